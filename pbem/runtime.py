"""Wiring: configuration, database and services for one process (web, worker or CLI)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine as SqlEngine

from pbem import channels
from pbem.config import load_config, make_var, secret_key
from pbem.db import make_engine
from pbem.games import ratings
from pbem.games.service import GameService, utcnow
from pbem.mail import listener, notice_mails  # registers the mail tables before the schema


@dataclass
class Runtime:
    """Everything a process needs: its configuration, database and game service."""

    config: dict[str, dict[str, Any]]
    db: SqlEngine
    service: GameService
    clock: Callable[[], datetime] = utcnow
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def secret_key(self) -> str:
        return secret_key(self.config)

    @property
    def production(self) -> bool:
        return bool(self.config["server"].get("production"))


def build_runtime(
    overrides: Mapping[str, Any] | None = None,
    clock: Callable[[], datetime] = utcnow,
    db: SqlEngine | None = None,
    *,
    create_schema: bool = True,
) -> Runtime:
    """Loads the configuration, opens the database and wires the services together.

    Mail's listeners (of transitions and of notices) are installed here, so every
    appended event writes its mails in the same transaction wherever the event comes
    from (web, worker or CLI).
    """
    config = load_config(overrides)
    make_var(config)
    key = secret_key(config)
    if db is None:
        db = make_engine(
            config["database"]["url"],
            synchronous=config["database"].get("sqlite_synchronous", "FULL"),
            writer_queue=config["database"].get("sqlite_writer_queue", True),
        )
    if create_schema and config["server"].get("production"):
        from pbem.migrations import require_current

        require_current(db)  # production upgrades only through `pbem migrate`
    elif create_schema:
        from pbem.migrations import migrate

        migrate(db, secret_key=key)
    service = GameService(
        db, snapshot_every=config["database"]["snapshot_every"], clock=clock, secret_key=key
    )
    runtime = Runtime(config=config, db=db, service=service, clock=clock)
    listener.install(runtime)
    notice_mails.install(runtime)
    channels.install(runtime)
    ratings.install(runtime)
    return runtime
