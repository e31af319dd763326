"""Former players, the game-wide pause and each player's mail hour.

- ``former_players``: who held a seat and no longer does, so they still hear how the
  game ends (and a full export carries them).
- ``games.paused_at``: set while the creator has paused the whole game.
- ``seats.mail_hour``: the local hour a player wants reminders and the digest at.

Revision ID: 0008_roster_and_people
Revises: 0007_audit_marks
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_roster_and_people"
down_revision = "0007_audit_marks"
branch_labels = None
depends_on = None


def _columns(table: str) -> set[str]:
    return {column["name"] for column in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    if not sa.inspect(op.get_bind()).has_table("former_players"):
        op.create_table(
            "former_players",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=False),
            sa.Column("name", sa.String(length=200), nullable=False),
            sa.Column("email", sa.String(length=320), nullable=False),
            sa.Column("timezone", sa.String(length=64), nullable=False),
            sa.Column("reason", sa.String(length=32), nullable=False),
            sa.Column("left_seq", sa.Integer(), nullable=True),
            sa.Column("left_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_former_players_game", "former_players", ["game_id", "seat"])
    if "paused_at" not in _columns("games"):
        op.add_column("games", sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))
    if "mail_hour" not in _columns("seats"):
        op.add_column("seats", sa.Column("mail_hour", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("mail_hour")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("paused_at")
    op.drop_index("ix_former_players_game", table_name="former_players")
    op.drop_table("former_players")
