"""The scheduler: reminders, deadlines and digests (the sweep), and the mail dispatcher.

Everything is derived from the database, so a restarted worker loses nothing, and every
job is safe to run twice at once:

- a reminder advances the seat's ``remind_at`` with a conditional update (``WHERE
  remind_at = <the value read>``) in the transaction that writes the mail, whose outbox
  key (seat, turn, number) is unique besides;
- at a deadline the sweep first claims it the same way (``deadline_at`` moves a lease
  ahead, or is cleared for ``wait``) together with the deadline mails; the action then
  appends with an expected seq (a bot's move) or re-checks the claim inside the event's
  transaction (a seat handed to a bot, a seat offered), so a second run loses;
- a digest is keyed per address and local day.

A reminder that the address's mail budget (:mod:`pbem.mail.budget`) would hold is not
written: the clock moves on as if it had gone.

Time of day (see :mod:`pbem.zones`): a reminder that falls due outside the seat's
preferred hour (``Seat.mail_hour``, in the seat's zone) moves forward to the next
occurrence of that hour; no reminder goes out in the last 12 hours before the deadline
(the deadline mail follows soon); each address's digest goes out once per local day at
its hour (08:00 when none is set), with the table talk of the last 24 hours for the
seats whose ``talk_mail`` is ``digest`` (:mod:`pbem.games.talk`; a digest of talk
alone is a ``talk_digest``). A paused game (``Game.paused_at``) gets no reminders,
deadlines, digest entries or bot moves; a seat on vacation gets no digest entries.

Bots at slow levels (:mod:`pbem.games.bot_runner`): :func:`start_background` also starts
the process's background runner, and a quick job (every ``scheduler.bots_every_seconds``)
looks for due bots, so a slow bot made due where no runner runs (``pbem receive``,
``pbem move``, a production web worker) moves within seconds; the sweep plays them too.

``pbem worker`` runs :func:`run_worker`; ``pbem serve`` runs :func:`start_background`.
"""

from __future__ import annotations

import logging
import os
import random
import secrets
import signal
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select, update

from pbem import i18n, links, zones
from pbem.channels import deliver
from pbem.errors import PbemError
from pbem.eventlog import audit
from pbem.games import rescue, talk, tallies
from pbem.games.bot_runner import BotRunner
from pbem.games.context import Runtime
from pbem.games.tables import SeatClock
from pbem.mail import budget, outbox, render, replies, seat_mails
from pbem.mail.dispatch import DispatchReport
from pbem.mail.dispatch import dispatch as dispatch_mail
from pbem.mail.models import Heartbeat, Mail
from pbem.models import Game, Seat
from pbem.zones import utc

log = logging.getLogger(__name__)

BATCH = 500
DEADLINE_LEASE = timedelta(minutes=10)
# No reminder within this long before the deadline itself: the deadline mail covers it.
QUIET_BEFORE_DEADLINE = timedelta(hours=12)
# The digest's hour when the player chose none, and how long after the hour a digest
# that was not sent yet (the worker was down) may still go out that day.
DIGEST_HOUR = 8
DIGEST_WINDOW_HOURS = 3
CONSEQUENCES = {
    "wait": "the game waits; reminders go on",
    "bot_turn": "a bot plays that turn",
    "bot_seat": "a bot takes over the seat",
    "replace": "the seat is offered to a new player",
}


class ClaimLost(Exception):
    """Another sweep acted on this deadline first."""


@dataclass
class SweepReport:
    reminders: int = 0
    deadlines: int = 0
    digests: int = 0
    bot_moves: int = 0

    def __str__(self) -> str:
        return (
            f"{self.reminders} reminders, {self.deadlines} deadlines, {self.digests} digests, "
            f"{self.bot_moves} bot moves"
        )


def sweep(runtime: Runtime, now: datetime | None = None) -> SweepReport:
    """One pass: reminders and deadlines that are due, the day's digests, and bot seats
    left waiting (a bot seat moves as soon as it is due; this catches any that did not)."""
    now = utc(now or runtime.clock())
    report = SweepReport()
    report.bot_moves = _bots(runtime)
    for clock in _due(runtime, SeatClock.remind_at, now):
        report.reminders += _guarded(_remind, runtime, clock, now)
    for clock in _due(runtime, SeatClock.deadline_at, now):
        report.deadlines += _guarded(_deadline, runtime, clock, now)
    report.digests = _digests(runtime, now)
    return report


def dispatch(runtime: Runtime, now: datetime | None = None) -> DispatchReport:
    """Sends the ready mail of the outbox (see :mod:`pbem.mail.dispatch`), then the ready
    webhook and push notices (:mod:`pbem.channels.deliver`)."""
    report = dispatch_mail(runtime, now)
    try:
        deliver.deliver(runtime, now)
    except Exception:  # noqa: BLE001 - notices must not stop the mail
        log.exception("notice deliveries")
    return report


def _guarded(action: Any, runtime: Runtime, clock: SeatClock, now: datetime) -> int:
    """Runs one seat's action; a failure is logged and retried next sweep, and does not
    hold up the other seats."""
    try:
        return action(runtime, clock, now)
    except Exception:  # noqa: BLE001 - one broken game must not stop the sweep
        log.exception("sweep: %s seat %s", clock.game_id, clock.seat)
        return 0


def _due(runtime: Runtime, column: Any, now: datetime) -> list[SeatClock]:
    """Clocks whose ``column`` time has come, of active games that are not paused
    (indexed on ``column``)."""
    with Session(runtime.db) as session:
        query = (
            select(SeatClock)
            .join(Game, col(Game.id) == col(SeatClock.game_id))
            .where(column <= now, Game.status == "active", col(Game.paused_at).is_(None))
            .order_by(column)
            .limit(BATCH)
        )
        return list(session.exec(query))


def _remind(runtime: Runtime, clock: SeatClock, now: datetime) -> int:
    """Sends a due reminder, or moves it on without a mail: past a vacation, out of the
    last 12 hours before the deadline, or forward to the seat's preferred hour."""
    with runtime.service.session() as session:
        game = session.get(Game, clock.game_id)
        seat = session.get(Seat, (clock.game_id, clock.seat))
        every = float(game.policy.get("reminder_every_hours", 0))
        away = bool(clock.paused_until and clock.paused_until > now)
        quiet = _near_deadline(clock, now)
        hour = seat.mail_hour
        held = not away and not quiet and hour is not None
        held = held and not zones.in_hour(now, hour, seat.timezone)
        if away:
            upcoming = clock.paused_until
        elif held:
            upcoming = zones.next_hour(now, hour, seat.timezone)
        elif every > 0:
            upcoming = clock.remind_at + timedelta(hours=every)
            while upcoming <= now:
                upcoming += timedelta(hours=every)
        else:
            upcoming = None
        sending = not (away or quiet or held)
        moved = session.exec(
            update(SeatClock)
            .where(
                SeatClock.game_id == clock.game_id,
                SeatClock.seat == clock.seat,
                SeatClock.remind_at == clock.remind_at,
            )
            .values(
                remind_at=upcoming,
                reminders=SeatClock.reminders + (0 if held or quiet else 1),
            )
        )
        if moved.rowcount != 1:
            return 0
        if not sending:
            session.commit()
            return 0
        number = clock.reminders + 1
        # The key ends with the head it was written at: a reply's tag names that event,
        # and the moves the mail lists are numbered as they stand there.
        turn = f"{clock.turn_since:%Y%m%d%H%M%S%f}"
        key = f"reminder:{clock.game_id}:{clock.seat}:{turn}:{number}:{game.head_seq}"
        mail = None
        # A reminder the address's mail budget would hold is not written at all.
        spent = budget.spent(
            session.connection(), game.id, seat.seat, seat.email, runtime.config, now
        )
        if seat.notify == "every_turn" and not seat.is_bot and not spent:
            mail = seat_mails.mail_seat(
                session,
                runtime,
                game,
                seat,
                "reminder",
                key,
                since=zones.when(clock.turn_since, seat.timezone, None, seat.language or "en"),
                deadline=clock.deadline_at,
                consequence=CONSEQUENCES[game.policy.get("at_deadline", "wait")],
                **replies.moves_context(runtime, session, game, seat),
            )
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
            return 0
        return int(mail is not None)


def _near_deadline(clock: SeatClock, now: datetime) -> bool:
    """Whether ``now`` is in the last 12 hours before the seat's deadline."""
    deadline = clock.deadline_at
    return deadline is not None and utc(now) >= utc(deadline) - QUIET_BEFORE_DEADLINE


def _deadline(runtime: Runtime, clock: SeatClock, now: datetime) -> int:
    """Claims a passed deadline with its mails, then applies the game's policy."""
    policy = runtime.service.game(clock.game_id).policy.get("at_deadline", "wait")
    lease = None if policy == "wait" else now + DEADLINE_LEASE
    with runtime.service.session() as session:
        if not _move_deadline(session, clock, clock.deadline_at, lease):
            return 0
        game = session.get(Game, clock.game_id)
        late = session.get(Seat, (clock.game_id, clock.seat))
        if clock.seat not in (game.to_move or []) or late.is_bot:
            session.commit()
            return 0
        _deadline_mails(session, runtime, game, late, clock, policy)
        session.commit()
    expected = lease

    def reclaim_lease(session: Session) -> None:
        if not _move_deadline(session, clock, expected, None):
            raise ClaimLost

    try:
        if policy == "bot_turn":
            _bot_turn(runtime, clock)
        elif policy == "bot_seat":
            rescue.hand_to_bot(runtime, clock.game_id, clock.seat, claim=reclaim_lease)
        elif policy == "replace":
            rescue.offer_seat(runtime, clock.game_id, clock.seat, claim=reclaim_lease)
    except ClaimLost:
        return 0
    except PbemError as error:
        log.warning("deadline of %s seat %s: %s", clock.game_id, clock.seat, error.message)
        return 0
    return 1


def _move_deadline(
    session: Session, clock: SeatClock, expected: datetime | None, value: datetime | None
) -> bool:
    moved = session.exec(
        update(SeatClock)
        .where(
            SeatClock.game_id == clock.game_id,
            SeatClock.seat == clock.seat,
            SeatClock.deadline_at == expected,
        )
        .values(deadline_at=value)
    )
    return moved.rowcount == 1


def _deadline_mails(
    session: Session, runtime: Runtime, game: Game, late: Seat, clock: SeatClock, policy: str
) -> None:
    turn = f"{clock.turn_since:%Y%m%d%H%M%S%f}"
    # Under "wait" the late seat's own mail lists its moves (replies by mail on); its
    # key ends with the head it was written at, which a reply's tag names.
    moves = replies.moves_context(runtime, session, game, late) if policy == "wait" else {}
    for seat in session.exec(select(Seat).where(Seat.game_id == game.id)):
        key = f"deadline:{game.id}:{late.seat}:{turn}:{seat.seat}:{game.head_seq}"
        if outbox.has_mail(session, key):
            continue
        mine = seat.seat == late.seat
        recipient = seat
        if mine and policy == "replace":
            # The seat's link and its settings page retire with this deadline: the mail
            # offers neither (no play link, no List-Unsubscribe to a dead page).
            recipient = Seat.model_validate({**seat.model_dump(), "token_hash": None})
        seat_mails.mail_seat(
            session,
            runtime,
            game,
            recipient,
            "deadline",
            key,
            late="your turn" if mine else f"{late.name}'s turn",
            late_name=late.name,
            outcome=_in_language(seat, render.deadline_outcome, policy, late.name, mine),
            **(moves if mine else {}),
        )


def _in_language(seat: Seat, words: Any, *arguments: Any) -> str:
    """``words(*arguments)`` in the language of ``seat``'s mails."""
    with i18n.speaking(seat.language):
        return words(*arguments)


def _bot_turn(runtime: Runtime, clock: SeatClock) -> None:
    """A bot plays the seat's moves until it is no longer due (each at its expected seq)."""
    service = runtime.service
    rng = random.Random(secrets.randbits(64))
    for _ in range(200):
        head = service.head(clock.game_id)
        if head.game.status != "active" or clock.seat not in head.engine.to_move(head.state):
            return
        legal = head.engine.legal_moves(head.state, clock.seat)
        move = head.engine.bot_move(head.engine.view(head.state, clock.seat), legal, rng)
        outcome = service.submit_move(
            clock.game_id, clock.seat, move, head.seq, kind="auto_move", actor="deadline"
        )
        if outcome.duplicate:
            return


def due_bots_query() -> Any:
    """The games of the due bot seats, through their partial index (ix_seats_due_bots)
    alone. Joined with the games in one query, SQLite's planner walked every game when
    the index was empty (as it mostly is: bots move at once), its statistics having no
    row for an empty index: 46 ms at 10,000 running games against 0.1 ms at 100. The
    games that may play are picked from these by :func:`_bots`."""
    return select(Seat.game_id).where(
        Seat.due == True,  # noqa: E712 - a SQL comparison
        Seat.is_bot == True,  # noqa: E712
    )


def _bots(runtime: Runtime) -> int:
    with Session(runtime.db) as session:
        # Made distinct here: a DISTINCT in SQL has SQLite walk every seat of every game.
        waiting = list(dict.fromkeys(session.exec(due_bots_query()).all()))
        due = []
        for start in range(0, len(waiting), BATCH):
            due += session.exec(
                select(Game.id).where(
                    col(Game.id).in_(waiting[start : start + BATCH]),
                    Game.status == "active",
                    col(Game.paused_at).is_(None),
                )
            ).all()
            if len(due) >= BATCH:
                break
        due = due[:BATCH]
    games = list(dict.fromkeys(due))
    moved = 0
    service = runtime.service
    runner = service.runner if service.runner is not None and service.runner.running else None
    for game_id in games:
        try:
            if runner is None:
                moved += service.play_bots(game_id)  # slow levels too: nobody else will
            elif not runner.has(game_id):
                # The quick bots here, a slow one on the runner (not in the sweep's turn).
                quick, slow = service.play_quick_bots(game_id)
                moved += quick
                if slow:
                    runner.submit(game_id)
        except PbemError as error:
            log.warning("bots of %s: %s", game_id, error.message)
    return moved


def bots_job(runtime: Runtime) -> int:
    """The quick job between sweeps: the due bots (:func:`_bots`), nothing else."""
    try:
        return _bots(runtime)
    except Exception:  # noqa: BLE001 - the next run tries again
        log.exception("bots")
        return 0


def digest_query() -> Any:
    """The due seats owed a game digest, with their games and clocks: read through the
    partial index ``ix_seats_due_digest``, never a pass over the running games or every
    seat (``tests/pbem/test_sweep_indexes.py`` reads both databases' plans)."""
    return (
        select(Seat, Game, SeatClock)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .join(
            SeatClock,
            (col(SeatClock.game_id) == col(Seat.game_id)) & (col(SeatClock.seat) == col(Seat.seat)),
        )
        .where(
            Seat.due == True,  # noqa: E712 - a SQL comparison
            Seat.notify == "digest",
            Seat.is_bot == False,  # noqa: E712
            Game.status == "active",
            col(Game.paused_at).is_(None),
        )
        .order_by(col(Seat.email), col(Game.updated_at))
    )


def _digests(runtime: Runtime, now: datetime) -> int:
    """Once a local day, at the address's hour, one mail per address listing its games
    that wait for it: none for a paused game or a seat on vacation."""
    with runtime.service.session() as session:
        rows = session.exec(digest_query()).all()
        by_address: dict[str, list[tuple[Seat, Game, SeatClock]]] = {}
        for seat, game, clock in rows:
            if seat.email:
                by_address.setdefault(seat.email.lower(), []).append((seat, game, clock))
        said = talk.digest_entries(session, now)  # table talk for the digest
        keys: dict[str, str] = {}
        for address in [*by_address, *(name for name in said if name not in by_address)]:
            entries = by_address.get(address)
            day = digest_day(_newest_seat(entries) if entries else said[address][0], now)
            if day is not None:
                keys[address] = f"digest:{address}:{day}"[:200]
        done = set(session.exec(select(Mail.key).where(col(Mail.key).in_(list(keys.values())))))
        count = 0
        for address in keys:
            entries = by_address.get(address, [])
            if keys[address] in done:
                continue
            waiting = [
                entry
                for entry in entries
                if not (entry[2].paused_until and utc(entry[2].paused_until) > now)
            ]
            talk_entries = said.get(address, (None, []))[1]
            if not waiting and not talk_entries:
                continue
            first = _newest_seat(entries) if entries else said[address][0]
            games = []
            language = i18n.known(first.language) or i18n.DEFAULT
            for seat, game, clock in waiting:
                token = seat_mails.seat_token(session, runtime, seat)
                games.append(
                    {
                        "title": game.title,
                        "phase": i18n.localize_kept(game.phase, game.engine, language),
                        "since": zones.when(clock.turn_since, seat.timezone, None, language),
                        "deadline": zones.when(clock.deadline_at, seat.timezone, now, language),
                        "link": links.play_url(runtime.config, token) if token else "",
                    }
                )
            settings = seat_mails.settings_link(runtime, first)
            outbox.enqueue(
                session,
                runtime,
                "digest" if games else "talk_digest",
                key=keys[address],
                recipient=first.email,
                context={
                    "name": first.name,
                    "count": len(games),
                    "games": games,
                    "settings": settings,
                    "talk": talk_entries,
                    "language": language,
                },
                unsubscribe=settings,
            )
            count += 1
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
            return 0
        return count


def _newest_seat(entries: list[tuple[Seat, Game, SeatClock]]) -> Seat:
    """The address's most recently created seat: its zone and hour are the address's."""
    return max(entries, key=lambda entry: (utc(entry[0].created_at), entry[0].game_id))[0]


def digest_day(seat: Seat, now: datetime) -> str | None:
    """The local date whose digest is due for ``seat``'s address at ``now`` (as
    YYYY-MM-DD), or None outside the digest's hours: from the seat's hour (08:00 when it
    has none) for three hours, in the seat's zone."""
    hour = DIGEST_HOUR if seat.mail_hour is None else seat.mail_hour
    seen = zones.local(now, seat.timezone)
    since = (seen.hour - hour) % 24
    if since >= DIGEST_WINDOW_HOURS:
        return None
    return f"{(seen - timedelta(hours=since)).date():%Y-%m-%d}"


# Running -----------------------------------------------------------------------------


def _beat(
    runtime: Runtime, name: str, started: datetime, note: str = "", seconds: float | None = None
) -> None:
    with Session(runtime.db) as session:
        row = session.get(Heartbeat, name) or Heartbeat(
            name=name, pid=os.getpid(), started_at=started, beat_at=started
        )
        row.pid = os.getpid()
        row.beat_at = utc(runtime.clock())
        if note:
            row.last_sweep = note[:300]
        if seconds is not None:
            row.sweep_seconds = seconds
        session.add(row)
        session.commit()


def _jobs(runtime: Runtime, name: str) -> tuple[Any, Any]:
    started = utc(runtime.clock())

    def sweep_job() -> None:
        began = time.perf_counter()
        report = sweep(runtime)
        try:
            # Every game's audit mark kept at its head (the audit queue), so that no page
            # view replays a long log.
            audit.catch_up(runtime.service)
        except Exception:  # noqa: BLE001 - the audit must not stop the sweep
            log.exception("audit catch-up")
        try:
            # The tallies of PostgreSQL connections that closed, gathered into one row.
            tallies.fold(runtime.db)
        except Exception:  # noqa: BLE001 - nor must the tallies
            log.exception("tallies")
        try:
            deliver.purge(runtime)  # webhook and push notices finished a month ago
        except Exception:  # noqa: BLE001 - nor must the notices
            log.exception("notice deliveries purge")
        seconds = time.perf_counter() - began
        note = f"{utc(runtime.clock()):%Y-%m-%d %H:%M:%S}: {report} in {seconds:.3f} s"
        _beat(runtime, name, started, note, seconds)

    def dispatch_job() -> None:
        dispatch(runtime)
        _beat(runtime, name, started)

    return sweep_job, dispatch_job


def start_runner(runtime: Runtime) -> BotRunner:
    """The process's background runner of slow bots, started (once) and set on the game
    service, which hands it the games whose due bot plays a slow level."""
    service = runtime.service
    if service.runner is None or not service.runner.running:
        service.runner = BotRunner(service).start()
    return service.runner


def stop_background(runtime: Runtime, scheduler: BackgroundScheduler, wait: bool = True) -> None:
    """Stops what :func:`start_background` started: the scheduler, then the bot runner
    (after its move under way; the games still waiting go to the next sweep)."""
    scheduler.shutdown(wait=wait)
    runner = runtime.service.runner
    if runner is not None:
        runner.stop(timeout=5.0 if wait else 0.0)


def start_background(runtime: Runtime, name: str | None = None) -> BackgroundScheduler:
    """Starts the sweep, the dispatcher, the quick bots job and the bot runner in
    background threads; returns the scheduler (stop both with :func:`stop_background`)."""
    name = name or f"{socket.gethostname()[:60]}:{os.getpid()}"
    sweep_job, dispatch_job = _jobs(runtime, name)
    start_runner(runtime)
    scheduler = BackgroundScheduler(timezone="UTC")
    every_sweep = float(runtime.config["scheduler"]["sweep_every_seconds"])
    every_bots = float(runtime.config["scheduler"].get("bots_every_seconds", 5))
    every_dispatch = float(runtime.config["mail"]["dispatch_every_seconds"])
    first = datetime.now().astimezone()
    scheduler.add_job(
        sweep_job,
        "interval",
        seconds=every_sweep,
        id="sweep",
        next_run_time=first,
        max_instances=1,
        coalesce=True,
    )
    scheduler.add_job(
        dispatch_job,
        "interval",
        seconds=every_dispatch,
        id="dispatch",
        next_run_time=first,
        max_instances=1,
        coalesce=True,
    )
    if every_bots > 0:
        scheduler.add_job(
            bots_job,
            "interval",
            args=[runtime],
            seconds=every_bots,
            id="bots",
            max_instances=1,
            coalesce=True,
        )
    scheduler.start()
    return scheduler


def run_worker(runtime: Runtime, stop: threading.Event | None = None) -> None:
    """Runs the scheduler until SIGTERM or SIGINT (or ``stop`` is set), then stops cleanly."""
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda *_: stop.set())
    scheduler = start_background(runtime)
    print("pbem worker: sweeping and sending mail; Ctrl-C or SIGTERM stops it.", flush=True)
    try:
        while not stop.wait(1.0):
            pass
    finally:
        stop_background(runtime, scheduler, wait=True)
    print("pbem worker stopped.", flush=True)
