"""Seat bot levels: the level a bot seat plays at ("easy" or "normal").

Came with the last schema version before Alembic (``schema_info.version`` 2), so a
database stamped at ``0001_schema_v1`` from that version has the column already.

Revision ID: 0005_seat_bot_level
Revises: 0004_seat_requests
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_seat_bot_level"
down_revision = "0004_seat_requests"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("seats")}
    if "bot_level" in columns:
        return
    op.add_column(
        "seats",
        sa.Column("bot_level", sa.String(length=16), nullable=False, server_default="normal"),
    )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("bot_level")
