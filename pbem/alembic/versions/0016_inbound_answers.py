"""Answers that refuse mail are counted, and our own Message-IDs are looked up.

- ``inbound_answers``: when an answer of each kind that refuses mail last went to a
  person (canonical address), and at which position of the game: at most one a day of
  each kind and position.
- ``ix_mail_outbox_message_id``: inbound mail whose Message-ID is one the outbox sent is
  our own mail come back (a loop), found by this index.

Revision ID: 0016_inbound_answers
Revises: 0015_mail_budget
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_inbound_answers"
down_revision = "0015_mail_budget"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table("inbound_answers"):
        op.create_table(
            "inbound_answers",
            sa.Column("address", sa.String(length=320), nullable=False),
            sa.Column("kind", sa.String(length=80), nullable=False),
            sa.Column("seq", sa.Integer(), nullable=False),
            sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("address", "kind"),
        )
    indexes = {index["name"] for index in inspector.get_indexes("mail_outbox")}
    if "ix_mail_outbox_message_id" not in indexes:
        op.create_index("ix_mail_outbox_message_id", "mail_outbox", ["message_id"])


def downgrade() -> None:
    op.drop_index("ix_mail_outbox_message_id", table_name="mail_outbox")
    op.drop_table("inbound_answers")
