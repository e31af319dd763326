"""A move leaves the listing indexes alone: the events of games that no longer move are
counted by triggers, and the status index drops ``head_seq``.

``ix_games_listing_status`` held ``head_seq`` so that ``/metrics`` could add up the
events of every game from the index alone; as ``head_seq`` changes at every move, every
move rewrote the index's page. Now:

- ``game_counts`` gains ``events``: the events (``head_seq + 1``) of its games that are
  not running. The triggers of revision 0012 are made again to keep it as well. They
  also fire when a game that is not running gets an event, and never on a move of a
  running game.
- ``/metrics`` adds those to the events of the running games, read through the status
  index (a look-up per running game, however many have ended).
- The index is ``(status, updated_at, id)``. With the game's ``updated_at`` moved on at
  most once a minute by moves (:data:`pbem.games.service.ACTIVITY_STEP`), a move
  within the minute rewrites neither listing index: about 8.3 pages to SQLite's log for
  the bench's move before, 7.2 after (``bench/bench_move_pages.py``).

Revision ID: 0013_quiet_listing_indexes
Revises: 0012_game_counts
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_quiet_listing_indexes"
down_revision = "0012_game_counts"
branch_labels = None
depends_on = None

_CHANGED = "OLD.engine IS DISTINCT FROM NEW.engine OR OLD.status IS DISTINCT FROM NEW.status"
_CHANGED += " OR OLD.private IS DISTINCT FROM NEW.private"
# A game that is not running got an event (a note after the end, an import...).
_CHANGED += " OR (OLD.head_seq IS DISTINCT FROM NEW.head_seq AND NEW.status <> 'active')"


def _events(row: str) -> str:
    """The events a game's row adds to its count: none while it runs."""
    return f"CASE WHEN {row}.status = 'active' THEN 0 ELSE {row}.head_seq + 1 END"


_ONE_LESS = (
    f"UPDATE game_counts SET games = games - 1, events = events - {_events('OLD')} "
    "WHERE engine = OLD.engine AND status = OLD.status AND private = OLD.private;"
)
_ONE_MORE = (
    "INSERT INTO game_counts (engine, status, private, games, events) "
    f"VALUES (NEW.engine, NEW.status, NEW.private, 1, {_events('NEW')}) "
    "ON CONFLICT (engine, status, private) DO UPDATE "
    "SET games = game_counts.games + 1, events = game_counts.events + excluded.events;"
)
_SQLITE_TRIGGERS = ("games_counted_insert", "games_counted_delete", "games_counted_update")

SQLITE = (
    *(f"DROP TRIGGER IF EXISTS {name}" for name in _SQLITE_TRIGGERS),
    f"CREATE TRIGGER games_counted_insert AFTER INSERT ON games BEGIN {_ONE_MORE} END",
    f"CREATE TRIGGER games_counted_delete AFTER DELETE ON games BEGIN {_ONE_LESS} END",
    "CREATE TRIGGER games_counted_update "
    "AFTER UPDATE OF engine, status, private, head_seq ON games "
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
    "DROP TRIGGER IF EXISTS games_counted_update ON games",
    "CREATE TRIGGER games_counted_update "
    "AFTER UPDATE OF engine, status, private, head_seq ON games "
    f"FOR EACH ROW WHEN ({_CHANGED}) EXECUTE FUNCTION pbem_count_games()",
)


def _recount(with_events: bool) -> None:
    op.execute("DELETE FROM game_counts")
    if with_events:
        op.execute(
            "INSERT INTO game_counts (engine, status, private, games, events) "
            f"SELECT engine, status, private, count(*), sum({_events('games')}) "
            "FROM games GROUP BY engine, status, private"
        )
    else:
        op.execute(
            "INSERT INTO game_counts (engine, status, private, games) "
            "SELECT engine, status, private, count(*) FROM games GROUP BY engine, status, private"
        )


def upgrade() -> None:
    bind = op.get_bind()
    columns = {column["name"] for column in sa.inspect(bind).get_columns("game_counts")}
    if "events" not in columns:  # tables made from the models already have it
        with op.batch_alter_table("game_counts") as batch:
            batch.add_column(
                sa.Column("events", sa.BigInteger(), nullable=False, server_default="0")
            )
    for statement in SQLITE if bind.dialect.name == "sqlite" else POSTGRESQL:
        op.execute(statement)
    _recount(with_events=True)
    op.execute("DROP INDEX IF EXISTS ix_games_listing_status")
    op.create_index("ix_games_listing_status", "games", ["status", "updated_at", "id"])


def downgrade() -> None:
    from importlib import import_module

    before = import_module("pbem.alembic.versions.0012_game_counts")
    bind = op.get_bind()
    op.execute("DROP INDEX IF EXISTS ix_games_listing_status")
    op.create_index("ix_games_listing_status", "games", ["status", "updated_at", "id", "head_seq"])
    if bind.dialect.name == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
        statements = before.SQLITE
    else:
        op.execute("DROP TRIGGER IF EXISTS games_counted_update ON games")
        statements = before.POSTGRESQL
    with op.batch_alter_table("game_counts") as batch:
        batch.drop_column("events")
    for statement in statements:
        op.execute(statement)
    _recount(with_events=False)
