"""Profiles and ratings: public handles, each finished game's seats, ratings per title.

- ``profiles``: a handle an address claimed (hidden or not; a deleted one is kept,
  without its address, until the handle is freed).
- ``player_games``: each seat of a finished game (who held it at the end, rank,
  figures, rating after it).
- ``ratings``: one OpenSkill rating per address and title.
- ``rated_games``: the games recorded, so that none is counted twice.

Revision ID: 0022_profiles_ratings
Revises: 0021_open_games
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_profiles_ratings"
down_revision = "0021_open_games"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table("profiles"):
        op.create_table(
            "profiles",
            sa.Column("handle_key", sa.String(length=24), primary_key=True),
            sa.Column("handle", sa.String(length=24), nullable=False),
            sa.Column("person", sa.String(length=320), nullable=False),
            sa.Column("hidden", sa.Boolean(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("freed_at", sa.DateTime(timezone=True), nullable=True),
        )
        op.create_index("ix_profiles_person", "profiles", ["person"])
    if not inspector.has_table("player_games"):
        op.create_table(
            "player_games",
            sa.Column("game_id", sa.String(length=32), primary_key=True),
            sa.Column("seat", sa.Integer(), primary_key=True),
            sa.Column("person", sa.String(length=320), nullable=False),
            sa.Column("engine", sa.String(length=64), nullable=False),
            sa.Column("title", sa.String(length=200), nullable=False),
            sa.Column("name", sa.String(length=200), nullable=False),
            sa.Column("rank", sa.Integer(), nullable=False),
            sa.Column("seats", sa.Integer(), nullable=False),
            sa.Column("resigned", sa.Boolean(), nullable=False),
            sa.Column("private", sa.Boolean(), nullable=False),
            sa.Column("moves", sa.Integer(), nullable=False),
            sa.Column("move_hours", sa.Float(), nullable=False),
            sa.Column("missed_deadlines", sa.Integer(), nullable=False),
            sa.Column("mu", sa.Float(), nullable=True),
            sa.Column("sigma", sa.Float(), nullable=True),
            sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        )
        op.create_index("ix_player_games_person", "player_games", ["person", "finished_at"])
    if not inspector.has_table("ratings"):
        op.create_table(
            "ratings",
            sa.Column("person", sa.String(length=320), primary_key=True),
            sa.Column("engine", sa.String(length=64), primary_key=True),
            sa.Column("mu", sa.Float(), nullable=False),
            sa.Column("sigma", sa.Float(), nullable=False),
            sa.Column("conservative", sa.Float(), nullable=False),
            sa.Column("games", sa.Integer(), nullable=False),
            sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        )
        op.create_index("ix_ratings_board", "ratings", ["engine", "conservative"])
    if not inspector.has_table("rated_games"):
        op.create_table(
            "rated_games",
            sa.Column("game_id", sa.String(length=32), primary_key=True),
            sa.Column("engine", sa.String(length=64), nullable=False),
            sa.Column("rated", sa.Boolean(), nullable=False),
            sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("rated_games")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
    op.drop_index("ix_player_games_person", table_name="player_games")
    op.drop_table("player_games")
    op.drop_index("ix_profiles_person", table_name="profiles")
    op.drop_table("profiles")
