"""Game counts kept by triggers: the listings' counts read a handful of rows.

The lobby and ``pbem games`` show how many games are running and finished (per title
when filtered). Counting them took a pass over every game's row (private ones are left
out), 6.7 ms at 10,000 games on SQLite against 0.4 ms at 100. ``game_counts`` holds one
row per (title, status, private) with its number of games. Triggers on ``games`` keep
it in the same transaction as the change (a game made, finished, deleted, or its title,
status or privacy changed); a move updates none of those columns, so it fires none of
them. The table is filled from the games already there.

Revision ID: 0012_game_counts
Revises: 0011_lean_move_writes
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_game_counts"
down_revision = "0011_lean_move_writes"
branch_labels = None
depends_on = None

_CHANGED = "OLD.engine IS DISTINCT FROM NEW.engine OR OLD.status IS DISTINCT FROM NEW.status"
_CHANGED += " OR OLD.private IS DISTINCT FROM NEW.private"
_ONE_LESS = (
    "UPDATE game_counts SET games = games - 1 "
    "WHERE engine = OLD.engine AND status = OLD.status AND private = OLD.private;"
)
_ONE_MORE = (
    "INSERT INTO game_counts (engine, status, private, games) "
    "VALUES (NEW.engine, NEW.status, NEW.private, 1) "
    "ON CONFLICT (engine, status, private) DO UPDATE SET games = game_counts.games + 1;"
)

SQLITE = (
    "CREATE TRIGGER IF NOT EXISTS games_counted_insert AFTER INSERT ON games "
    f"BEGIN {_ONE_MORE} END",
    "CREATE TRIGGER IF NOT EXISTS games_counted_delete AFTER DELETE ON games "
    f"BEGIN {_ONE_LESS} END",
    "CREATE TRIGGER IF NOT EXISTS games_counted_update "
    "AFTER UPDATE OF engine, status, private ON games "
    f"WHEN {_CHANGED.replace('IS DISTINCT FROM', 'IS NOT')} "
    f"BEGIN {_ONE_LESS} {_ONE_MORE} END",
)
POSTGRESQL = (
    "CREATE OR REPLACE FUNCTION pbem_count_games() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN "
    f"IF TG_OP IN ('UPDATE', 'DELETE') THEN {_ONE_LESS} END IF; "
    f"IF TG_OP IN ('UPDATE', 'INSERT') THEN {_ONE_MORE} END IF; "
    "RETURN NULL; "
    "END $$",
    "DROP TRIGGER IF EXISTS games_counted ON games",
    "DROP TRIGGER IF EXISTS games_counted_update ON games",
    "CREATE TRIGGER games_counted AFTER INSERT OR DELETE ON games "
    "FOR EACH ROW EXECUTE FUNCTION pbem_count_games()",
    "CREATE TRIGGER games_counted_update AFTER UPDATE OF engine, status, private ON games "
    f"FOR EACH ROW WHEN ({_CHANGED}) EXECUTE FUNCTION pbem_count_games()",
)


def upgrade() -> None:
    bind = op.get_bind()
    if "game_counts" not in sa.inspect(bind).get_table_names():
        op.create_table(
            "game_counts",
            sa.Column("engine", sa.String(length=64), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("private", sa.Boolean(), nullable=False),
            sa.Column("games", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("engine", "status", "private"),
        )
    for statement in SQLITE if bind.dialect.name == "sqlite" else POSTGRESQL:
        op.execute(statement)
    # The counts of the games already there (the triggers count from here on).
    op.execute("DELETE FROM game_counts")
    op.execute(
        "INSERT INTO game_counts (engine, status, private, games) "
        "SELECT engine, status, private, count(*) FROM games GROUP BY engine, status, private"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in ("games_counted_insert", "games_counted_delete", "games_counted_update"):
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        op.execute("DROP TRIGGER IF EXISTS games_counted ON games")
        op.execute("DROP TRIGGER IF EXISTS games_counted_update ON games")
        op.execute("DROP FUNCTION IF EXISTS pbem_count_games()")
    op.drop_table("game_counts")
