"""Contributions to the draws: a game's mix, a seat's contribution, pending games.

- ``game_secrets.mix``: the mix of the contributions recorded so far (chance scheme 2);
  NULL for the games that draw from the seed alone (every game made before).
- ``seats.contributed``: whether the seat gave its contribution.
- ``pending_games``: a committed seed waiting for its creator's contribution.
- ``open_seats.contribution``: a joiner's contribution, given when confirming.

Revision ID: 0023_dice_contributions
Revises: 0022_profiles_ratings
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023_dice_contributions"
down_revision = "0022_profiles_ratings"
branch_labels = None
depends_on = None


def _columns(inspector, table: str) -> set[str]:
    return {column["name"] for column in inspector.get_columns(table)}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "mix" not in _columns(inspector, "game_secrets"):
        with op.batch_alter_table("game_secrets") as batch:
            batch.add_column(sa.Column("mix", sa.String(length=64), nullable=True))
    if "contributed" not in _columns(inspector, "seats"):
        with op.batch_alter_table("seats") as batch:
            batch.add_column(
                sa.Column("contributed", sa.Boolean(), nullable=False, server_default=sa.false())
            )
    if "contribution" not in _columns(inspector, "open_seats"):
        with op.batch_alter_table("open_seats") as batch:
            batch.add_column(sa.Column("contribution", sa.JSON(), nullable=True))
    if not inspector.has_table("pending_games"):
        op.create_table(
            "pending_games",
            sa.Column("id", sa.String(length=32), primary_key=True),
            sa.Column("seed", sa.Text(), nullable=False),
            sa.Column("commitment", sa.String(length=64), nullable=False),
            sa.Column("contributions", sa.JSON(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("pending_games")
    with op.batch_alter_table("open_seats") as batch:
        batch.drop_column("contribution")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("contributed")
    with op.batch_alter_table("game_secrets") as batch:
        batch.drop_column("mix")
