"""The sweep's queries for due bots and digests read their partial indexes on both
databases, so their cost follows the seats that may owe something, not the running
games: the plans of the real queries, on a table of 2,000 running games whose seats owe
nothing (fresh planner statistics, as a server has them)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text

from pbem.games import talk
from pbem.scheduler import digest_query, due_bots_query

GAMES = 2_000


def _fill(db) -> None:
    now = datetime.now(UTC)
    with db.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO games (id, engine, engine_version, title, options, seat_count, "
                "status, commitment, head_seq, head_hash, to_move, phase, policy, private, "
                "created_at, updated_at) VALUES (:id, 'pig', 1, 'race', '{}', 2, 'active', "
                "'c', 0, 'h', '[0]', '', '{}', false, :now, :now)"
            ),
            [{"id": f"g{number}", "now": now} for number in range(GAMES)],
        )
        connection.execute(
            text(
                "INSERT INTO seats (game_id, seat, name, email, is_bot, bot_level, due, "
                "timezone, notify, talk_mail, created_at) VALUES (:game, :seat, 'Ann', "
                "'ann@example.org', false, 'normal', :due, 'UTC', 'every_turn', 'at_once', "
                ":now)"
            ),
            [
                {"game": f"g{number}", "seat": seat, "due": seat == 0, "now": now}
                for number in range(GAMES)
                for seat in range(2)
            ],
        )
        connection.execute(
            text(
                "INSERT INTO seat_clocks (game_id, seat, reminders, vacation_days_used) "
                "SELECT game_id, seat, 0, 0 FROM seats"
            )
        )
    if db.dialect.name == "postgresql":
        with db.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("ANALYZE")
    else:
        with db.begin() as connection:
            connection.exec_driver_sql("ANALYZE")


def plan(db, query) -> str:
    """The database's plan for ``query``, with its parameters bound as the code binds
    them."""
    compiled = query.compile(db)
    with db.connect() as connection:
        if db.dialect.name == "sqlite":
            params = tuple(compiled.params[name] for name in compiled.positiontup)
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", params)
            return "\n".join(row[-1] for row in rows)
        rows = connection.exec_driver_sql(f"EXPLAIN {compiled}", compiled.params)
        return "\n".join(row[0] for row in rows)


def test_the_digest_queries_read_their_partial_indexes(db):
    _fill(db)
    game_digest = plan(db, digest_query())
    talk_digest = plan(db, talk.digest_seats_query())
    bots = plan(db, due_bots_query())
    assert "ix_seats_due_digest" in game_digest, game_digest
    assert "ix_seats_talk_digest" in talk_digest, talk_digest
    assert "ix_seats_due_bots" in bots, bots
    # None walks the seats or the games (the indexes are empty, as they mostly are).
    for found in (game_digest, talk_digest, bots):
        assert "SCAN seats\n" not in f"{found}\n" and "Seq Scan" not in found, found
        assert "SCAN games" not in found, found
