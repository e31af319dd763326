"""Private games, per-address mail facts, inbound mail and the talk preference.

- ``games.private``: a game that is not listed; spectators need its link.
- ``seats.talk_mail``: how table talk reaches the seat by mail.
- ``mail_addresses``: the generation of each address's "my games" link (revocable) and
  whether mail to it bounces.
- ``inbound_messages``: each message taken in by mail, so none applies twice.

Revision ID: 0009_addresses_inbound_private
Revises: 0008_roster_and_people
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_addresses_inbound_private"
down_revision = "0008_roster_and_people"
branch_labels = None
depends_on = None


def _columns(table: str) -> set[str]:
    return {column["name"] for column in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "private" not in _columns("games"):
        op.add_column(
            "games",
            sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false()),
        )
    if "talk_mail" not in _columns("seats"):
        op.add_column(
            "seats",
            sa.Column("talk_mail", sa.String(length=16), nullable=False, server_default="at_once"),
        )
    if not inspector.has_table("mail_addresses"):
        op.create_table(
            "mail_addresses",
            sa.Column("address", sa.String(length=320), nullable=False),
            sa.Column("games_link_generation", sa.Integer(), nullable=False),
            sa.Column("bouncing_since", sa.DateTime(timezone=True), nullable=True),
            sa.Column("bounce_detail", sa.String(length=500), nullable=False),
            sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("address"),
        )
    if not inspector.has_table("inbound_messages"):
        op.create_table(
            "inbound_messages",
            sa.Column("message_key", sa.String(length=64), nullable=False),
            sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("sender", sa.String(length=320), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=True),
            sa.Column("seat", sa.Integer(), nullable=True),
            sa.Column("outcome", sa.String(length=32), nullable=False),
            sa.Column("detail", sa.String(length=500), nullable=False),
            sa.PrimaryKeyConstraint("message_key"),
        )
        op.create_index("ix_inbound_messages_game", "inbound_messages", ["game_id", "received_at"])


def downgrade() -> None:
    op.drop_index("ix_inbound_messages_game", table_name="inbound_messages")
    op.drop_table("inbound_messages")
    op.drop_table("mail_addresses")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("talk_mail")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("private")
