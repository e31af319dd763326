"""Turn notices beyond mail (:mod:`pbem.channels`): webhooks per game, web push
subscriptions per seat, spectators following a game by mail, the deliveries the worker
sends to webhooks and push services, and the links to each address's calendar.

- ``game_webhooks``: a game's webhooks (Discord, Slack, plain JSON), set by its creator.
- ``push_subscriptions``: a browser's push subscription for one seat.
- ``game_followers``: a spectator's address following a public game (double opt-in).
- ``notice_deliveries``: one notice to a webhook or a push subscription (an outbox).
- ``calendar_links``: each address's calendar link generation and the link's hash.
- ``games.notice_channels``: the game has (had) any of the first three, so a move that
  begins a turn looks for them; the games without pay no query.

Revision ID: 0020_notice_channels
Revises: 0019_audit_ready
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020_notice_channels"
down_revision = "0019_audit_ready"
branch_labels = None
depends_on = None

TABLES = (
    "game_webhooks",
    "push_subscriptions",
    "game_followers",
    "notice_deliveries",
    "calendar_links",
)


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    present = set(inspector.get_table_names())
    if "notice_channels" not in {column["name"] for column in inspector.get_columns("games")}:
        op.add_column(
            "games",
            sa.Column("notice_channels", sa.Boolean(), nullable=False, server_default=sa.false()),
        )
    if "game_webhooks" not in present:
        op.create_table(
            "game_webhooks",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("url", sa.String(length=2000), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_game_webhooks_game_id", "game_webhooks", ["game_id"])
    if "push_subscriptions" not in present:
        op.create_table(
            "push_subscriptions",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=False),
            sa.Column("holder", sa.String(length=64), nullable=False),
            sa.Column("endpoint", sa.String(length=2000), nullable=False),
            sa.Column("p256dh", sa.String(length=200), nullable=False),
            sa.Column("auth", sa.String(length=100), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_push_subscriptions_seat", "push_subscriptions", ["game_id", "seat"])
    if "game_followers" not in present:
        op.create_table(
            "game_followers",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("person", sa.String(length=320), nullable=False),
            sa.Column("every_turn", sa.Boolean(), nullable=False),
            sa.Column("token_hash", sa.String(length=64), nullable=False),
            sa.Column("client", sa.String(length=64), nullable=False),
            sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("token_hash"),
        )
        op.create_index("ix_game_followers_game", "game_followers", ["game_id"])
        op.create_index("ix_game_followers_person", "game_followers", ["person"])
    if "notice_deliveries" not in present:
        op.create_table(
            "notice_deliveries",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("key", sa.String(length=200), nullable=False),
            sa.Column("channel", sa.String(length=16), nullable=False),
            sa.Column("target", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=True),
            sa.Column("payload", sa.JSON(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("attempts", sa.Integer(), nullable=False),
            sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
            sa.Column("last_error", sa.String(length=500), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
            sa.PrimaryKeyConstraint("id"),
            sa.UniqueConstraint("key"),
        )
        op.create_index(
            "ix_notice_deliveries_ready", "notice_deliveries", ["status", "next_attempt_at"]
        )
    if "calendar_links" not in present:
        op.create_table(
            "calendar_links",
            sa.Column("address", sa.String(length=320), nullable=False),
            sa.Column("generation", sa.Integer(), nullable=False),
            sa.Column("token_hash", sa.String(length=64), nullable=False),
            sa.PrimaryKeyConstraint("address"),
            sa.UniqueConstraint("token_hash"),
        )


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
    with op.batch_alter_table("games") as batch:
        batch.drop_column("notice_channels")
