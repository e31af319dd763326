"""Audit marks: how far the audit page has verified each game's log (derived data).

Revision ID: 0007_audit_marks
Revises: 0006_game_listing_indexes
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_audit_marks"
down_revision = "0006_game_listing_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("audit_marks"):
        return
    op.create_table(
        "audit_marks",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("engine_version", sa.Integer(), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("seed_revealed", sa.Boolean(), nullable=False),
        sa.Column("whole_at_end", sa.Boolean(), nullable=False),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id"),
    )


def downgrade() -> None:
    op.drop_table("audit_marks")
