"""Each address's mail budget per game (``mail_budgets``).

The dispatcher counts every mail of a game to one person (canonical address) there: the
mails of the day, and, until the address takes its seat, the seat mails after its
invitation. See :mod:`pbem.mail.budget`.

Revision ID: 0015_mail_budget
Revises: 0013_quiet_listing_indexes
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_mail_budget"
down_revision = "0013_quiet_listing_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("mail_budgets"):
        return
    op.create_table(
        "mail_budgets",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("early", sa.Integer(), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("today", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "address"),
    )


def downgrade() -> None:
    op.drop_table("mail_budgets")
