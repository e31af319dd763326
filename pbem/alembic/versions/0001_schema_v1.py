"""The first released schema (``schema_info.version`` 1): the event log, snapshots, the
read model, seeds, the outbox, seat clocks and links, rescue votes, heartbeats.

Databases made before Alembic managed the schema are stamped at this revision by
:func:`pbem.migrations.migrate`, then upgraded like any other.

Revision ID: 0001_schema_v1
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_schema_v1"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("chance", sa.JSON(), nullable=False),
        sa.Column("state_hash", sa.String(length=64), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.String(length=40), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )
    op.create_table(
        "snapshots",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("engine_version", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("engine", sa.String(length=64), nullable=False),
        sa.Column("engine_version", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seat_count", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("head_seq", sa.Integer(), nullable=False),
        sa.Column("head_hash", sa.String(length=64), nullable=False),
        sa.Column("head_state", sa.JSON(), nullable=True),
        sa.Column("to_move", sa.JSON(), nullable=False),
        sa.Column("phase", sa.String(length=200), nullable=False),
        sa.Column("turn_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("policy", sa.JSON(), nullable=False),
        sa.Column("creator_seat", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_games_engine", "games", ["engine"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("due", sa.Boolean(), nullable=False),
        sa.Column("due_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_move_seq", sa.Integer(), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("notify", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_seats_due", "seats", ["due", "due_since"])
    op.create_table(
        "game_secrets",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seed", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("game_id"),
    )
    schema_info = op.create_table(
        "schema_info",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    # Releases from before Alembic read this row: they take the database for the
    # schema they know instead of creating it afresh.
    op.bulk_insert(schema_info, [{"id": 1, "version": 1}])
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("recipient", sa.String(length=320), nullable=False),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("body_text", sa.Text(), nullable=False),
        sa.Column("body_html", sa.Text(), nullable=False),
        sa.Column("message_id", sa.String(length=200), nullable=False),
        sa.Column("thread_id", sa.String(length=200), nullable=False),
        sa.Column("unsubscribe", sa.String(length=500), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    op.create_index("ix_mail_outbox_game_id", "mail_outbox", ["game_id"])
    op.create_index("ix_mail_outbox_ready", "mail_outbox", ["status", "next_attempt_at"])
    op.create_table(
        "seat_clocks",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("turn_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("remind_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reminders", sa.Integer(), nullable=False),
        sa.Column("paused_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("vacation_days_used", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_seat_clocks_remind_at", "seat_clocks", ["remind_at"])
    op.create_index("ix_seat_clocks_deadline_at", "seat_clocks", ["deadline_at"])
    op.create_table(
        "seat_links",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("sealed", sa.String(length=300), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_table(
        "rescue_votes",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("action", sa.String(length=400), nullable=False),
        sa.Column("voter", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "action", "voter"),
    )
    op.create_table(
        "worker_heartbeats",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_sweep", sa.String(length=300), nullable=False),
        sa.Column("sweep_seconds", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    for table in (
        "worker_heartbeats",
        "rescue_votes",
        "seat_links",
        "seat_clocks",
        "mail_outbox",
        "schema_info",
        "game_secrets",
        "seats",
        "games",
        "snapshots",
        "events",
    ):
        op.drop_table(table)
