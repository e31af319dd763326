"""The schema's path through Alembic, and the checks around it.

The revisions live in ``pbem/alembic/versions`` (the package's own Alembic folder, so
an installed pbem finds them); :func:`migrate` runs them up to the head in one
transaction, with a :class:`~alembic.config.Config` built here rather than read from
``alembic.ini``. Events are never rewritten by a revision: they are the truth,
everything else can be rebuilt from them.

Databases made before Alembic carry a ``schema_info`` table (version 1, the first
released schema) and no ``alembic_version``: :func:`migrate` stamps them at the
matching revision (:data:`PRE_ALEMBIC`) and upgrades them from there. Those databases
hold the seeds of running games in the clear; :func:`migrate` seals them after the
upgrade when given the server's key (``pbem migrate`` and a start that upgrades do).

Games from before the roster was logged carry no roster in their log: after the
upgrade, :func:`record_rosters` gives each *running* one a ``roster`` event (actor
"migration") recording who holds the seats as the old tables say. Finished games are
left as they are; their logs verify as before and say the roster is not in the chain.
Both back-fills run after an upgrade and at every ``pbem migrate``, never at a start
that finds the schema current (they read every running game).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine

from pbem.errors import PbemError
from pbem.eventlog.seeds import seal_seed
from pbem.seal import PREFIX

SCRIPT_LOCATION = Path(__file__).resolve().parent / "alembic"
FIRST_RELEASE = "0001_schema_v1"
# The revision matching each ``schema_info.version`` of the releases before Alembic.
# Version 2 (``seats.bot_level``) came just before Alembic: its databases replay the
# revisions from the first release, each of which skips what is already there.
PRE_ALEMBIC = {1: FIRST_RELEASE, 2: FIRST_RELEASE}
_LOCK = 7_165_311  # PostgreSQL advisory lock held while the schema changes


class SchemaTooNew(PbemError):
    """The database was made by a newer version of pbem than this one."""


class SchemaOutdated(PbemError):
    """The database needs ``pbem migrate`` before this program can use it."""


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for pbem; with ``connection``, revisions run on it."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    """The newest revision this program knows."""
    return _scripts().get_current_head()


def _revision(connection: Connection) -> str | None:
    tables = set(inspect(connection).get_table_names())
    if "alembic_version" in tables:
        return MigrationContext.configure(connection).get_current_revision()
    if "events" in tables or "schema_info" in tables:
        version = 1
        if "schema_info" in tables:
            row = connection.exec_driver_sql("SELECT version FROM schema_info WHERE id = 1").first()
            version = row[0] if row else 1
        if version not in PRE_ALEMBIC:
            raise SchemaTooNew(
                f"The database has schema version {version} without Alembic's record: "
                "it was made by another pbem; upgrade pbem instead."
            )
        return PRE_ALEMBIC[version]
    return None


def current_revision(db: SqlEngine) -> str | None:
    """The database's Alembic revision (a database from before Alembic counts as the
    revision of its ``schema_info.version``); None for an empty database."""
    with db.connect() as connection:
        return _revision(connection)


def _check_known(revision: str | None) -> None:
    if revision is None:
        return
    try:
        known = _scripts().get_revision(revision) is not None
    except Exception:  # noqa: BLE001 - Alembic raises several kinds for an unknown id
        known = False
    if not known:
        raise SchemaTooNew(
            f"The database is at schema revision {revision}, which this program does not "
            f"know (its newest is {head_revision()}): upgrade pbem instead."
        )


def require_current(db: SqlEngine) -> None:
    """Refuses to run on a database whose schema is missing, older or newer than head."""
    revision = current_revision(db)
    head = head_revision()
    if revision != head:
        found = "no schema" if revision is None else f"schema revision {revision}"
        raise SchemaOutdated(
            f"The database has {found}; this program needs revision {head}. "
            "Run `pbem migrate` first."
        )


def migrate(
    db: SqlEngine, secret_key: str | None = None, *, backfill: bool = False
) -> tuple[str | None, str]:
    """Creates or upgrades the schema to the head revision, in one transaction; returns
    (revision before, revision after).

    After an upgrade from an older revision, or with ``backfill`` (``pbem migrate``), it
    then seals the seeds that first-release databases hold in the clear, given the
    server's ``secret_key`` (:func:`seal_plain_seeds`; the readers accept both), and
    gives the running games from before rosters were logged their roster event
    (:func:`record_rosters`). A start that finds the schema current does neither: both
    read every running game, and a command starts often (``pbem games``, a reply by
    mail); a game they left (its seed sealed under another key) waits for a
    ``pbem migrate`` with the right key."""
    if not backfill and _is_current(db):
        return head_revision(), head_revision()
    with db.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK})")
        tables = set(inspect(connection).get_table_names())
        before = _revision(connection)
        _check_known(before)
        config = alembic_config(connection)
        if before is not None and "alembic_version" not in tables:
            command.stamp(config, before)
        if before != head_revision():
            command.upgrade(config, "head")
        after = MigrationContext.configure(connection).get_current_revision()
    if backfill or before != after:
        if secret_key:
            seal_plain_seeds(db, secret_key)
        record_rosters(db, secret_key)
    return before, after


def _is_current(db: SqlEngine) -> bool:
    """Whether the schema is at the head revision: one read of ``alembic_version``, no
    lock and no write, so a start on a current database costs the same at any size."""
    with db.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return False
        current = MigrationContext.configure(connection).get_current_revision()
    return current == head_revision()


def seal_plain_seeds(db: SqlEngine, secret_key: str) -> int:
    """Seals every seed still stored as plain hex (written before seeds were sealed)
    under the server's key, in one transaction; returns how many. Running it again
    changes nothing."""
    with db.begin() as connection:
        rows = connection.execute(
            text("SELECT game_id, seed FROM game_secrets WHERE seed NOT LIKE :sealed"),
            {"sealed": PREFIX + "%"},
        ).all()
        for game_id, seed in rows:
            connection.execute(
                text("UPDATE game_secrets SET seed = :sealed WHERE game_id = :game_id"),
                {"sealed": seal_seed(secret_key, game_id, bytes.fromhex(seed)), "game_id": game_id},
            )
    return len(rows)


def record_rosters(db: SqlEngine, secret_key: str | None = None) -> list[str]:
    """Appends a ``roster`` event (actor "migration") to every running game whose log
    has no roster, recording it from the old tables: names, bots and their levels, the
    seats waiting for a newcomer (``seat_offers``), the creator, the policy and the
    pause; returns the games' ids. Running it again adds nothing. A game whose seed is
    sealed under another key than ``secret_key`` is left for a run with the right key.

    A name the roster could not hold (blank, or longer than a roster's names may be) is
    recorded cleaned, and the seat row takes the cleaned name too."""
    from sqlmodel import Session, col, select

    from pbem.errors import Conflict
    from pbem.eventlog import roster as roster_mod
    from pbem.eventlog.seeds import SeedSealed
    from pbem.games.service import GameService
    from pbem.games.tables import SeatOffer
    from pbem.models import Event, Game, Seat

    with Session(db) as session:
        running = {
            game.id: game for game in session.exec(select(Game).where(Game.status == "active"))
        }
        if not running:
            return []
        recorded = set(
            session.exec(
                select(Event.game_id).where(
                    Event.kind == "roster", col(Event.game_id).in_(list(running))
                )
            )
        )
        firsts = session.exec(
            select(Event.game_id, Event.payload).where(
                Event.seq == 0, col(Event.game_id).in_(list(running))
            )
        ).all()
        missing = sorted(
            game_id
            for game_id, payload in firsts
            if game_id not in recorded and "roster" not in (payload or {})
        )
    service = GameService(db, secret_key=secret_key)
    done = []
    for game_id in missing:
        with Session(db) as session:
            game = session.get(Game, game_id)
            seats = list(
                session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat)))
            )
            offers = [
                offer.seat
                for offer in session.exec(select(SeatOffer).where(SeatOffer.game_id == game_id))
            ]
        names = {
            row.seat: row.name.strip()[: roster_mod.NAME_LIMIT].strip() or f"Player {row.seat + 1}"
            for row in seats
        }
        cleaned = [
            row.model_copy(
                update={
                    "name": names[row.seat],
                    "bot_level": row.bot_level
                    if row.bot_level in roster_mod.BOT_LEVELS
                    else "normal",
                }
            )
            for row in seats
        ]
        creator = game.creator_seat
        if creator is not None and not 0 <= creator < len(seats):
            creator = None
        roster = roster_mod.from_seats(
            cleaned,
            creator,
            dict(game.policy or {}),
            paused=game.paused_at is not None,
            open_seats=offers,
        )

        def clean_rows(session, game, names=names) -> None:
            for row in session.exec(select(Seat).where(Seat.game_id == game.id)):
                if row.name != names[row.seat]:
                    row.name = names[row.seat]
                    session.add(row)
                if row.is_bot and row.bot_level not in roster_mod.BOT_LEVELS:
                    row.bot_level = "normal"
                    session.add(row)

        try:
            service.append_admin(
                game_id,
                "roster",
                None,
                {"roster": roster.to_json()},
                actor="migration",
                expected_seq=game.head_seq,
                change=clean_rows,
            )
        except (Conflict, SeedSealed):
            continue
        done.append(game_id)
    return done


def drop_all(db: SqlEngine) -> None:
    """Drops every table of the schema and Alembic's record of it (tests start afresh)."""
    from sqlmodel import SQLModel

    import pbem.games.tables  # noqa: F401 - the seat tables belong to the schema
    import pbem.mail.models  # noqa: F401 - and so do the mail tables
    import pbem.models  # noqa: F401

    SQLModel.metadata.drop_all(db)
    with db.begin() as connection:
        connection.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")


def differences(db: SqlEngine) -> list:
    """What Alembic's autogenerate finds between the models and the database (tables,
    columns, types, nullability, indexes, unique constraints); empty when they agree."""
    from alembic.autogenerate import compare_metadata
    from sqlmodel import SQLModel

    import pbem.games.tables  # noqa: F401
    import pbem.mail.models  # noqa: F401
    import pbem.models  # noqa: F401

    with db.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, SQLModel.metadata)
