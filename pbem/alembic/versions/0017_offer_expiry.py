"""Invitations lapse and open-seat requests are counted per requester.

- ``seat_offers.invited_at``: when the pending invitation link was mailed; a named
  invitation lapses ``limits.invitation_days`` after it, a request for an open seat
  ``limits.seat_request_hours`` after it. Pending links made before this revision count
  from the offer's ``created_at``.
- ``seat_requests.requester`` and ``seat_requests.client``: who asked for an open seat
  (the canonical address given, the web client's address), each counted per day, with an
  index each.

Revision ID: 0017_offer_expiry
Revises: 0016_inbound_answers
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_offer_expiry"
down_revision = "0016_inbound_answers"
branch_labels = None
depends_on = None

INDEXES = {
    "ix_seat_requests_requester": ["kind", "requester", "created_at"],
    "ix_seat_requests_client": ["kind", "client", "created_at"],
}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    offers = {column["name"] for column in inspector.get_columns("seat_offers")}
    if "invited_at" not in offers:  # tables made from the models already have it
        with op.batch_alter_table("seat_offers") as batch:
            batch.add_column(sa.Column("invited_at", sa.DateTime(timezone=True), nullable=True))
        op.execute("UPDATE seat_offers SET invited_at = created_at WHERE token_hash IS NOT NULL")
    requests = {column["name"] for column in inspector.get_columns("seat_requests")}
    with op.batch_alter_table("seat_requests") as batch:
        if "requester" not in requests:
            batch.add_column(
                sa.Column("requester", sa.String(length=320), nullable=False, server_default="")
            )
        if "client" not in requests:
            batch.add_column(
                sa.Column("client", sa.String(length=64), nullable=False, server_default="")
            )
    made = {index["name"] for index in inspector.get_indexes("seat_requests")}
    for name, columns in INDEXES.items():
        if name not in made:
            op.create_index(name, "seat_requests", columns)


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="seat_requests")
    with op.batch_alter_table("seat_requests") as batch:
        batch.drop_column("client")
        batch.drop_column("requester")
    with op.batch_alter_table("seat_offers") as batch:
        batch.drop_column("invited_at")
