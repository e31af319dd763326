"""Audits that are ready: the games whose log the audit has not verified to its head are
listed in ``audit_queue``, kept by triggers on ``games``.

The worker verifies every listed game's new events (:func:`pbem.eventlog.audit.catch_up`)
and takes it off once its mark is at the head, so a page view finds the mark current. It
used to look for work by joining every game changed in the last two days with its mark.

Why a table and not a column on ``games`` with a partial index (``WHERE head_seq >
audited_seq``): an index whose condition names ``head_seq`` is an index a move changes.
On PostgreSQL a move's update of the game's row is a heap-only (HOT) update today (301
of 302 in ``pbem bench``'s listener moves), writing no index entry at all; a predicate
on ``head_seq`` would make every move write a new entry in each of the game's three
indexes. On SQLite it would rewrite the partial index's page at every move of a game
already behind. The queue is written only when a game joins it: a game already listed
costs a move one look-up of its key, and the worker deletes the row once.

- ``audit_queue(game_id)``: one row per game to verify.
- Triggers: after a game's row is inserted (created, imported), and after an update that
  changes its ``head_seq`` (every appended event), the game is listed unless it is.
- ``audit_marks.roster``: the roster at the mark, as a ``roster`` event carries it, so
  that a view resumes without reading the roster's events from the whole log (at
  10,000 events that read was most of what a view costs more than at 100). Marks kept
  before have none; their views read the events as before.
- Back-fill: every game without a mark, whose mark is behind its head or on another
  engine version, and every finished game whose whole log was not replayed since it
  ended.

Revision ID: 0019_audit_ready
Revises: 0018_flat_counts
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_audit_ready"
down_revision = "0018_flat_counts"
branch_labels = None
depends_on = None

_LIST = "INSERT INTO audit_queue (game_id) VALUES (NEW.id) ON CONFLICT (game_id) DO NOTHING;"
_SQLITE_TRIGGERS = ("games_audit_insert", "games_audit_update")
SQLITE = (
    f"CREATE TRIGGER IF NOT EXISTS games_audit_insert AFTER INSERT ON games BEGIN {_LIST} END",
    "CREATE TRIGGER IF NOT EXISTS games_audit_update AFTER UPDATE OF head_seq ON games "
    f"WHEN NEW.head_seq IS NOT OLD.head_seq BEGIN {_LIST} END",
)
POSTGRESQL = (
    "CREATE OR REPLACE FUNCTION pbem_queue_audit() RETURNS trigger LANGUAGE plpgsql AS $$ "
    f"BEGIN {_LIST} RETURN NULL; END $$",
    "DROP TRIGGER IF EXISTS games_audit_insert ON games",
    "DROP TRIGGER IF EXISTS games_audit_update ON games",
    "CREATE TRIGGER games_audit_insert AFTER INSERT ON games "
    "FOR EACH ROW EXECUTE FUNCTION pbem_queue_audit()",
    "CREATE TRIGGER games_audit_update AFTER UPDATE OF head_seq ON games "
    "FOR EACH ROW WHEN (OLD.head_seq IS DISTINCT FROM NEW.head_seq) "
    "EXECUTE FUNCTION pbem_queue_audit()",
)
BACK_FILL = (
    "INSERT INTO audit_queue (game_id) "
    "SELECT games.id FROM games LEFT JOIN audit_marks ON audit_marks.game_id = games.id "
    "WHERE audit_marks.game_id IS NULL OR audit_marks.seq < games.head_seq "
    "OR audit_marks.engine_version <> games.engine_version "
    "OR (games.status = 'finished' AND NOT audit_marks.whole_at_end) "
    "ON CONFLICT (game_id) DO NOTHING"
)


def upgrade() -> None:
    bind = op.get_bind()
    if "audit_queue" not in sa.inspect(bind).get_table_names():
        op.create_table(
            "audit_queue",
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.PrimaryKeyConstraint("game_id"),
        )
    marks = {column["name"] for column in sa.inspect(bind).get_columns("audit_marks")}
    if "roster" not in marks:
        with op.batch_alter_table("audit_marks") as batch:
            batch.add_column(sa.Column("roster", sa.JSON(), nullable=True))
    for statement in SQLITE if bind.dialect.name == "sqlite" else POSTGRESQL:
        op.execute(statement)
    op.execute(BACK_FILL)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        op.execute("DROP TRIGGER IF EXISTS games_audit_insert ON games")
        op.execute("DROP TRIGGER IF EXISTS games_audit_update ON games")
        op.execute("DROP FUNCTION IF EXISTS pbem_queue_audit()")
    op.drop_table("audit_queue")
    with op.batch_alter_table("audit_marks") as batch:
        batch.drop_column("roster")
