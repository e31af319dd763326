"""Fewer pages written by a move: no listing index a listing does not need, partial
indexes for due seats.

A move used to write about 11.3 pages to SQLite's log (the WAL): the event's row and its
primary-key index entry, the game's row and three listing indexes (``updated_at``
changes), the seat's row and ``ix_seats_due``, and the mail and clock rows with theirs.
After this revision it writes about 9.3 (``bench/bench_move_pages.py``):

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

_BOTS = "CREATE INDEX IF NOT EXISTS ix_seats_due_bots ON seats (game_id) WHERE "
_DIGEST = "CREATE INDEX IF NOT EXISTS ix_seats_due_digest ON seats (email) WHERE "
_PARTIAL = {
    "sqlite": (
        _BOTS + "due = 1 AND is_bot = 1",
        _DIGEST + "due = 1 AND notify = 'digest'",
    ),
    "postgresql": (
        _BOTS + "due = true AND is_bot = true",
        _DIGEST + "due = true AND notify = 'digest'",
    ),
}


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for name in ("ix_games_listing", "ix_games_status", "ix_games_engine", "ix_seats_due"):
        op.execute(f"DROP INDEX IF EXISTS {name}")
    for statement in _PARTIAL[dialect]:
        op.execute(statement)


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_seats_due_bots")
    op.execute("DROP INDEX IF EXISTS ix_seats_due_digest")
    op.create_index("ix_seats_due", "seats", ["due", "due_since"])
    op.create_index("ix_games_engine", "games", ["engine"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_index("ix_games_listing", "games", ["updated_at", "id"])
