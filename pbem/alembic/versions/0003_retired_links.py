"""Retired links: the hash of a replaced player's link and what happened to the seat.

Added after the first release without a version change (see ``0002_seat_offers``).

Revision ID: 0003_retired_links
Revises: 0002_seat_offers
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_retired_links"
down_revision = "0002_seat_offers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("retired_links"):
        return
    op.create_table(
        "retired_links",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("message", sa.String(length=1000), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    op.create_index("ix_retired_links_game_id", "retired_links", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_retired_links_game_id", table_name="retired_links")
    op.drop_table("retired_links")
