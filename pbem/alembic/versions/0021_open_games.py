"""Open games: games looking for players, and strangers' holds on their open seats.

- ``open_games``: a game its creator left seats open in, kept until it starts (its
  seats, options and policy as chosen, the creator's address and the hash of her
  page's link, its status and how many open seats are left).
- ``open_seats``: a stranger's hold on an open seat, pending until confirmed from the
  link mailed to the address given (the link's hash; it lapses at ``expires_at``).

Revision ID: 0021_open_games
Revises: 0020_notice_channels
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021_open_games"
down_revision = "0020_notice_channels"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table("open_games"):
        op.create_table(
            "open_games",
            sa.Column("id", sa.String(length=32), primary_key=True),
            sa.Column("engine", sa.String(length=64), nullable=False),
            sa.Column("title", sa.String(length=200), nullable=False),
            sa.Column("options", sa.JSON(), nullable=False),
            sa.Column("policy", sa.JSON(), nullable=False),
            sa.Column("seats", sa.JSON(), nullable=False),
            sa.Column("creator_email", sa.String(length=320), nullable=False),
            sa.Column("creator_token_hash", sa.String(length=64), nullable=False, unique=True),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("open_left", sa.Integer(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        )
        op.create_index("ix_open_games_listing", "open_games", ["status", "created_at"])
    if not inspector.has_table("open_seats"):
        op.create_table(
            "open_seats",
            sa.Column("game_id", sa.String(length=32), primary_key=True),
            sa.Column("seat", sa.Integer(), primary_key=True),
            sa.Column("name", sa.String(length=200), nullable=False),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("person", sa.String(length=320), nullable=False),
            sa.Column("timezone", sa.String(length=64), nullable=False),
            sa.Column("token_hash", sa.String(length=64), nullable=False, unique=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        )
        op.create_index(
            "ix_open_seats_person", "open_seats", ["person", "confirmed_at", "expires_at"]
        )


def downgrade() -> None:
    op.drop_index("ix_open_seats_person", table_name="open_seats")
    op.drop_table("open_seats")
    op.drop_index("ix_open_games_listing", table_name="open_games")
    op.drop_table("open_games")
