"""Game listing indexes: the lobby and `pbem games` page in the database.

Revision ID: 0006_game_listing_indexes
Revises: 0005_seat_bot_level
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0006_game_listing_indexes"
down_revision = "0005_seat_bot_level"
branch_labels = None
depends_on = None


# The listing indexes as this revision made them (0011 drops the first).
LISTING_INDEXES = {
    "ix_games_listing": "games (updated_at, id)",
    "ix_games_listing_status": "games (status, updated_at, id, head_seq)",
    "ix_games_listing_engine": "games (engine, status, updated_at, id)",
}


def upgrade() -> None:
    # IF NOT EXISTS: a database made by the releases before Alembic may have them.
    for name, columns in LISTING_INDEXES.items():
        op.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {columns}")


def downgrade() -> None:
    for name in LISTING_INDEXES:
        op.drop_index(name, table_name="games")
