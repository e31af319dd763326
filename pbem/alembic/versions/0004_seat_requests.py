"""Seat requests: votes, vacations and open-seat requests, counted per seat and day.

Added after the first release without a version change (see ``0002_seat_offers``).

Revision ID: 0004_seat_requests
Revises: 0003_retired_links
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_seat_requests"
down_revision = "0003_retired_links"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("seat_requests"):
        return
    op.create_table(
        "seat_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_seat_requests_seat", "seat_requests", ["game_id", "seat", "kind", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_seat_requests_seat", table_name="seat_requests")
    op.drop_table("seat_requests")
