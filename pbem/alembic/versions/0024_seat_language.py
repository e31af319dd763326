"""A seat's language: ``seats.language``, the language of its pages and mails.

NULL (every seat made before) means the browser's choice on pages and English in mails.

Revision ID: 0024_seat_language
Revises: 0023_dice_contributions
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024_seat_language"
down_revision = "0023_dice_contributions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "language" not in {column["name"] for column in inspector.get_columns("seats")}:
        with op.batch_alter_table("seats") as batch:
            batch.add_column(sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("language")
