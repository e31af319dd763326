"""Game listing indexes: the lobby and `pbem games` page in the database.

Revision ID: 0006_game_listing_indexes
Revises: 0005_seat_bot_level
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

from pbem.migrations import LISTING_INDEXES, create_listing_indexes

revision = "0006_game_listing_indexes"
down_revision = "0005_seat_bot_level"
branch_labels = None
depends_on = None


def upgrade() -> None:
    create_listing_indexes(op.get_bind())


def downgrade() -> None:
    for name in LISTING_INDEXES:
        op.drop_index(name, table_name="games")
