"""Fewer pages written by a move: the events table keyed by its primary key alone on
SQLite, no listing index a listing does not need, partial indexes for due seats.

A move used to write about 11 pages to SQLite's log (the WAL): the event's row and its
primary-key index entry, the game's row and three listing indexes (``updated_at``
changes), the seat's row and ``ix_seats_due``, and the mail and clock rows with theirs.
After this revision it writes about 8:

- ``events`` becomes WITHOUT ROWID on SQLite (rebuilt, rows copied in order): the row
  is the primary key's entry. PostgreSQL keeps its table and index as they are.
- ``ix_games_listing`` (every status, newest first) goes: that listing merges the two
  status ranges of ``ix_games_listing_status``. ``ix_games_status`` and
  ``ix_games_engine`` go too: the listing indexes lead with the same columns.
- ``ix_seats_due`` (every seat, due or not) becomes two partial indexes: the due bots,
  by game, and the due seats that take a daily digest, by address. A turn passing
  between players mailed each turn touches neither.

Revision ID: 0011_lean_move_writes
Revises: 0010_seats_email_index
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0011_lean_move_writes"
down_revision = "0010_seats_email_index"
branch_labels = None
depends_on = None

_PARTIAL = {
    "sqlite": (
        "CREATE INDEX IF NOT EXISTS ix_seats_due_bots ON seats (game_id) WHERE due = 1 AND is_bot = 1",
        "CREATE INDEX IF NOT EXISTS ix_seats_due_digest ON seats (email) WHERE due = 1 AND notify = 'digest'",
    ),
    "postgresql": (
        "CREATE INDEX IF NOT EXISTS ix_seats_due_bots ON seats (game_id) WHERE due = true AND is_bot = true",
        "CREATE INDEX IF NOT EXISTS ix_seats_due_digest ON seats (email) WHERE due = true AND notify = 'digest'",
    ),
}


def _rebuild_events(with_rowid: bool) -> None:
    """SQLite only: the events table made again, with or without a rowid."""
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "events", recreate="always", table_kwargs={"sqlite_with_rowid": with_rowid}
    ):
        pass


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in ("ix_games_listing", "ix_games_status", "ix_games_engine", "ix_seats_due"):
        op.execute(f"DROP INDEX IF EXISTS {name}")
    for statement in _PARTIAL[dialect]:
        op.execute(statement)
    _rebuild_events(with_rowid=False)


def downgrade() -> None:
    _rebuild_events(with_rowid=True)
    op.execute("DROP INDEX IF EXISTS ix_seats_due_bots")
    op.execute("DROP INDEX IF EXISTS ix_seats_due_digest")
    op.create_index("ix_seats_due", "seats", ["due", "due_since"])
    op.create_index("ix_games_engine", "games", ["engine"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_index("ix_games_listing", "games", ["updated_at", "id"])
