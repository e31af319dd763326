"""Counts that cost the same at any size: tallies for ``/metrics``, a partial index for
the talk digest.

- ``tallies`` holds the events appended and the mails by status (failed mails by
  reason), kept by triggers on ``events`` and ``mail_outbox`` in the transaction of the
  change. ``/metrics`` added up ``head_seq`` over every running game and counted the
  outbox one status at a time: 25 times the cost of 100 games at 10,000 games with
  87,000 mails kept. On PostgreSQL each backend adds to a row of its own (``shard`` is
  ``pg_backend_pid()``), so concurrent moves never queue on a counter row or deadlock
  over two; :func:`pbem.games.tallies.fold` gathers the rows of finished backends.
  The tallies start from the rows already there.
- ``ix_seats_talk_digest``: the sweep's table-talk digest looked for seats whose talk
  comes by digest with a pass over every seat; the partial index holds only those.
  (The due seats owed a game digest already have ``ix_seats_due_digest``.)

Revision ID: 0018_flat_counts
Revises: 0017_offer_expiry
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_flat_counts"
down_revision = "0017_offer_expiry"
branch_labels = None
depends_on = None


def _mail_name(row: str) -> str:
    """The tally a mail row counts in: ``mails:<status>``, and for a failed mail
    ``mails:failed:<reason>`` by its ``last_error``'s prefix, as the dispatcher writes it
    (:data:`pbem.mail.dispatch.FAILURE_REASONS`; ``other`` for anything else)."""
    reason = (
        f"CASE WHEN substr({row}.last_error, 1, 12) = 'unbuildable:' THEN 'unbuildable' "
        f"WHEN substr({row}.last_error, 1, 8) = 'refused:' THEN 'refused' "
        f"WHEN substr({row}.last_error, 1, 8) = 'gave up:' THEN 'gave_up' ELSE 'other' END"
    )
    return (
        f"'mails:' || {row}.status || "
        f"CASE WHEN {row}.status = 'failed' THEN ':' || {reason} ELSE '' END"
    )


def _add(name: str, delta: str, shard: str) -> str:
    return (
        f"INSERT INTO tallies (name, shard, count) VALUES ({name}, {shard}, {delta}) "
        "ON CONFLICT (name, shard) DO UPDATE SET count = tallies.count + excluded.count;"
    )


_EVENTS = "'events'"
_MAIL_CHANGED = f"({_mail_name('OLD')}) IS DISTINCT FROM ({_mail_name('NEW')})"
_SQLITE_TRIGGERS = (
    "events_tallied_insert",
    "events_tallied_delete",
    "mails_tallied_insert",
    "mails_tallied_delete",
    "mails_tallied_update",
)
SQLITE = (
    "CREATE TRIGGER IF NOT EXISTS events_tallied_insert AFTER INSERT ON events "
    f"BEGIN {_add(_EVENTS, '1', '0')} END",
    "CREATE TRIGGER IF NOT EXISTS events_tallied_delete AFTER DELETE ON events "
    f"BEGIN {_add(_EVENTS, '-1', '0')} END",
    "CREATE TRIGGER IF NOT EXISTS mails_tallied_insert AFTER INSERT ON mail_outbox "
    f"BEGIN {_add(_mail_name('NEW'), '1', '0')} END",
    "CREATE TRIGGER IF NOT EXISTS mails_tallied_delete AFTER DELETE ON mail_outbox "
    f"BEGIN {_add(_mail_name('OLD'), '-1', '0')} END",
    "CREATE TRIGGER IF NOT EXISTS mails_tallied_update "
    "AFTER UPDATE OF status, last_error ON mail_outbox "
    f"WHEN {_MAIL_CHANGED.replace('IS DISTINCT FROM', 'IS NOT')} "
    f"BEGIN {_add(_mail_name('OLD'), '-1', '0')} {_add(_mail_name('NEW'), '1', '0')} END",
)
_BACKEND = "pg_backend_pid()"
POSTGRESQL = (
    "CREATE OR REPLACE FUNCTION pbem_tally_events() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN "
    f"IF TG_OP = 'INSERT' THEN {_add(_EVENTS, '1', _BACKEND)} "
    f"ELSE {_add(_EVENTS, '-1', _BACKEND)} END IF; "
    "RETURN NULL; "
    "END $$",
    "CREATE OR REPLACE FUNCTION pbem_tally_mails() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN "
    f"IF TG_OP IN ('UPDATE', 'DELETE') THEN {_add(_mail_name('OLD'), '-1', _BACKEND)} END IF; "
    f"IF TG_OP IN ('UPDATE', 'INSERT') THEN {_add(_mail_name('NEW'), '1', _BACKEND)} END IF; "
    "RETURN NULL; "
    "END $$",
    "DROP TRIGGER IF EXISTS events_tallied ON events",
    "DROP TRIGGER IF EXISTS mails_tallied ON mail_outbox",
    "DROP TRIGGER IF EXISTS mails_tallied_update ON mail_outbox",
    "CREATE TRIGGER events_tallied AFTER INSERT OR DELETE ON events "
    "FOR EACH ROW EXECUTE FUNCTION pbem_tally_events()",
    "CREATE TRIGGER mails_tallied AFTER INSERT OR DELETE ON mail_outbox "
    "FOR EACH ROW EXECUTE FUNCTION pbem_tally_mails()",
    "CREATE TRIGGER mails_tallied_update AFTER UPDATE OF status, last_error ON mail_outbox "
    f"FOR EACH ROW WHEN ({_MAIL_CHANGED}) EXECUTE FUNCTION pbem_tally_mails()",
)
_TALK = "CREATE INDEX IF NOT EXISTS ix_seats_talk_digest ON seats (game_id) WHERE "
TALK_INDEX = {
    "sqlite": _TALK + "talk_mail = 'digest' AND is_bot = 0",
    "postgresql": _TALK + "talk_mail = 'digest' AND is_bot = false",
}


def upgrade() -> None:
    bind = op.get_bind()
    if "tallies" not in sa.inspect(bind).get_table_names():
        op.create_table(
            "tallies",
            sa.Column("name", sa.String(length=48), nullable=False),
            sa.Column("shard", sa.Integer(), nullable=False),
            sa.Column("count", sa.BigInteger(), nullable=False, server_default="0"),
            sa.PrimaryKeyConstraint("name", "shard"),
        )
    for statement in SQLITE if bind.dialect.name == "sqlite" else POSTGRESQL:
        op.execute(statement)
    # The counts of the rows already there (the triggers count from here on).
    op.execute("DELETE FROM tallies")
    op.execute("INSERT INTO tallies (name, shard, count) SELECT 'events', 0, count(*) FROM events")
    op.execute(
        "INSERT INTO tallies (name, shard, count) "
        f"SELECT name, 0, count(*) FROM (SELECT {_mail_name('mail_outbox')} AS name "
        "FROM mail_outbox) AS named GROUP BY name"
    )
    op.execute(TALK_INDEX[bind.dialect.name])


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_seats_talk_digest")
    if op.get_bind().dialect.name == "sqlite":
        for name in _SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    else:
        op.execute("DROP TRIGGER IF EXISTS events_tallied ON events")
        op.execute("DROP TRIGGER IF EXISTS mails_tallied ON mail_outbox")
        op.execute("DROP TRIGGER IF EXISTS mails_tallied_update ON mail_outbox")
        op.execute("DROP FUNCTION IF EXISTS pbem_tally_events()")
        op.execute("DROP FUNCTION IF EXISTS pbem_tally_mails()")
    op.drop_table("tallies")
