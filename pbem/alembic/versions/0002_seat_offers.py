"""Seat offers: seats waiting for a new player, open or named.

Added after the first release without a version change, so a database stamped at
``0001_schema_v1`` may have it already (the old upgrade created missing tables).

Revision ID: 0002_seat_offers
Revises: 0001_schema_v1
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_seat_offers"
down_revision = "0001_schema_v1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("seat_offers"):
        return
    op.create_table(
        "seat_offers",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("open", sa.Boolean(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("former_email", sa.String(length=320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
        sa.UniqueConstraint("token_hash"),
    )


def downgrade() -> None:
    op.drop_table("seat_offers")
