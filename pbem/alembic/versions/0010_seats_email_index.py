"""An index on lower(seats.email): an address's "my games" page finds its seats by it.

Revision ID: 0010_seats_email_index
Revises: 0009_addresses_inbound_private
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0010_seats_email_index"
down_revision = "0009_addresses_inbound_private"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # (Inspectors do not list expression indexes on every backend: IF NOT EXISTS.)
    op.execute("CREATE INDEX IF NOT EXISTS ix_seats_email ON seats (lower(email))")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_seats_email")
