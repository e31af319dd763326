"""The outbox: mail rows written in the same transaction as the event that caused them.

:func:`install` adds :func:`on_transition` to the game service's listeners. For every
appended batch of events it keeps each seat's clock (:class:`SeatClock`: when the turn
began, the next reminder, the deadline) and writes the mails the batch calls for:

- ``invitation`` to every person at creation (with the seed commitment and the link);
- ``your_turn`` to each seat that *became* due (never again while it stays due), with
  what happened since its last move as that seat may see it: the move records only the
  seat and the events to describe (:func:`defer_seat_mail`); the dispatcher renders
  it, outside the move's transaction (:func:`render_deferred`);
- ``game_over`` to every person who held a seat when the game ends, with the result
  and the seed: each seat's player (a seat a bot plays now included) and every former
  player (:class:`FormerPlayer`: replaced, or left), one mail per former address.

Reminders, deadlines and digests come from the sweep (:mod:`pbem.scheduler`), rescue
notices from :mod:`pbem.games.rescue`; all of them go through :func:`enqueue`.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from datetime import datetime, timedelta
from functools import partial
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, func, or_
from sqlmodel import Session, col, select, update

from engines.api import Engine
from pbem.db import Prepared, write
from pbem.errors import TooMany
from pbem.eventlog.log import MOVE_KINDS, Folded, fold
from pbem.eventlog.store import game_engine
from pbem.games import names, results, seat_rules
from pbem.games.admin_lines import describe_admin
from pbem.games.outcomes import Transition
from pbem.games.roster import Roster, mover
from pbem.games.roster_log import or_seats, rosters
from pbem.games.tokens import hash_token
from pbem.mail import budget, games_link, render
from pbem.mail.models import FormerPlayer, Mail, SeatClock, SeatLink, utc
from pbem.models import Event, Game, Seat
from pbem.validate import canonical_address

HISTORY_LIMIT = 40


def install(runtime: Any) -> None:
    """Adds the outbox listener to the runtime's game service."""
    runtime.service.listeners.append(partial(on_transition, runtime))


def secret(runtime: Any) -> str:
    """The server's secret key, read once per runtime."""
    if "secret_key" not in runtime.extras:
        runtime.extras["secret_key"] = runtime.secret_key
    return runtime.extras["secret_key"]


# The listener ------------------------------------------------------------------------


def on_transition(runtime: Any, session: Session, transition: Transition) -> None:
    """Keeps the seats' clocks and writes this batch's mails, inside its transaction."""
    game = transition.game
    created = transition.events[0]["kind"] == "created"
    newly_due = turns_begun(transition)
    if (
        not created
        and not transition.finished
        and not newly_due
        and transition.due_after == transition.due_before
        and all(row["kind"] in MOVE_KINDS for row in transition.events)
    ):
        return  # a seat moved and keeps the turn: no clock changes, no mail
    now = utc(runtime.clock())
    loaded = transition.seats or session.exec(select(Seat).where(Seat.game_id == game.id))
    seats = {row.seat: row for row in loaded}
    if transition.clocks is not None:
        # The move read the clocks with the game (plain rows): write back only what
        # changed, in plain statements (into the move's batch).
        clocks = _keep_clocks(session, game.id, seats, transition, newly_due, now)
    else:
        clocks = {
            row.seat: row
            for row in session.exec(select(SeatClock).where(SeatClock.game_id == game.id))
        }
    for number, seat in seats.items():
        if transition.clocks is not None:
            break
        clock = clocks.get(number)
        if clock is None:
            clock = clocks[number] = SeatClock(game_id=game.id, seat=number)
        if created and transition.tokens and transition.tokens[number]:
            store_link(session, runtime, game.id, number, transition.tokens[number])
        if number not in transition.due_after or transition.finished:
            stop_turn(clock)
        elif number in newly_due and not seat.is_bot:
            start_turn(clock, game.policy, now)
        session.add(clock)
    if created and transition.tokens:
        check_invitations(session, runtime, [seat.email for seat in seats.values()])
        creator = seats.get(game.creator_seat) if game.creator_seat is not None else None
        if creator is not None and creator.email:
            # Whoever created the game has the creator's link: her seat is taken.
            budget.mark_taken(session.connection(), game.id, creator.email, now)
        for number, seat in seats.items():
            mail_seat(
                session,
                runtime,
                game,
                seat,
                "invitation",
                f"invitation:{game.id}:{number}:{game.head_seq}",
                **invitation_context(seats, number, number in transition.due_after),
                deadline=clocks[number].deadline_at,
                **(
                    inbound_context(
                        runtime, session, game, transition.engine, transition.after, seat
                    )
                    if number in transition.due_after and not seat.is_bot
                    else {}
                ),
                private=bool(game.private) and number == game.creator_seat,
            )
    elif transition.finished:
        _game_over(session, runtime, transition, seats)
    elif not created:
        for number in sorted(newly_due):
            seat = seats[number]
            if seat.notify != "every_turn":
                continue
            if invitation_says_due(session, runtime, game, seat, seats, clocks[number], transition):
                continue
            defer_seat_mail(
                session,
                runtime,
                game,
                seat,
                "your_turn",
                f"your_turn:{game.id}:{number}:{game.head_seq}",
                start=history_start(game, seat),
                others=[seats[other].name for other in sorted(transition.due_after - {number})],
                deadline=clocks[number].deadline_at,
                quiet=quiet_window(runtime),
            )


_CLOCK_FIELDS = ("turn_since", "remind_at", "deadline_at", "reminders")
_CLOCK_INSERT = Prepared(
    SeatClock.__table__.insert(), [column.key for column in SeatClock.__table__.columns]
)
_CLOCK_UPDATE = Prepared(
    SeatClock.__table__.update()
    .where(
        SeatClock.__table__.c.game_id == bindparam("b_game"),
        SeatClock.__table__.c.seat == bindparam("b_seat"),
    )
    .values({name: bindparam(name) for name in _CLOCK_FIELDS})
)


def _keep_clocks(
    session: Session,
    game_id: str,
    seats: dict[int, Any],
    transition: Transition,
    newly_due: frozenset[int],
    now: datetime,
) -> dict[int, Any]:
    """The seats' clocks moved on for this batch (a move that does not end the game):
    the changed ones updated, missing ones inserted, through the move's write batch
    (:func:`pbem.db.write`)."""
    clocks = dict(transition.clocks or {})
    changed, missing = [], []
    for number, seat in seats.items():
        clock = clocks.get(number)
        if clock is None:
            clock = clocks[number] = SimpleNamespace(
                game_id=game_id,
                seat=number,
                turn_since=None,
                remind_at=None,
                deadline_at=None,
                reminders=0,
                paused_until=None,
                vacation_days_used=0.0,
            )
            missing.append(clock)
        was = tuple(getattr(clock, name) for name in _CLOCK_FIELDS)
        if number not in transition.due_after:
            stop_turn(clock)
        elif number in newly_due and not seat.is_bot:
            start_turn(clock, transition.game.policy, now)
        if clock in missing:
            continue
        if tuple(getattr(clock, name) for name in _CLOCK_FIELDS) != was:
            values = {name: getattr(clock, name) for name in _CLOCK_FIELDS}
            changed.append({"b_game": game_id, "b_seat": number, **values})
    if changed:
        write(session, _CLOCK_UPDATE, changed)
    if missing:
        write(session, _CLOCK_INSERT, [vars(clock) for clock in missing])
    return clocks


def invitation_context(seats: dict[int, Seat], number: int, due: bool) -> dict[str, Any]:
    """What an invitation says beyond every seat mail's context: the other players, and
    whether the seat is due (``due``)."""
    return {
        "due": due,
        "already": False,
        "movers": [],
        "players": [
            {"name": other.name, "bot": other.is_bot}
            for other_number, other in sorted(seats.items())
            if other_number != number
        ],
    }


def invitation_says_due(
    session: Session,
    runtime: Any,
    game: Game,
    seat: Seat,
    seats: dict[int, Seat],
    clock: SeatClock,
    transition: Any,
) -> bool:
    """When a seat's turn begins before its invitation went out (bots moved first), the
    invitation is rendered again to say "it is already your turn" (with the deadline)
    and is the only mail: True. False when the invitation was sent (or is being sent):
    a "your turn" mail is due as usual. Only while bots alone have moved: once a person
    has played, the game is under way and the turn gets its own mail."""
    if any(other.last_move_seq is not None and not other.is_bot for other in seats.values()):
        return False
    invitation = session.exec(
        select(Mail).where(
            Mail.game_id == game.id,
            Mail.seat == seat.seat,
            Mail.kind == "invitation",
            Mail.status == "pending",
            Mail.attempts == 0,
        )
    ).first()
    if invitation is None:
        return False
    token = seat_token(session, runtime, seat)
    settings = settings_link(runtime, seat) if seat.token_hash else ""
    context = {
        **seat_context(runtime, game, seat, token, settings, clock.deadline_at),
        **invitation_context(seats, seat.seat, True),
        "already": True,
        "movers": [
            other.name
            for _, other in sorted(seats.items())
            if other.is_bot and other.last_move_seq is not None
        ],
        **inbound_context(runtime, session, game, transition.engine, transition.after, seat),
    }
    subject, text, html, unsubscribe = sealed_render(runtime, "invitation", context, settings)
    # The key names the event the seat became due at: a reply's tag names that turn.
    key = f"invitation:{game.id}:{seat.seat}:{game.head_seq}"
    result = session.exec(
        update(Mail)
        .where(col(Mail.id) == invitation.id, col(Mail.status) == "pending")
        .values(
            key=key,
            subject=subject,
            body_text=text,
            body_html=html,
            unsubscribe=unsubscribe,
        )
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)


def quiet_window(runtime: Any) -> timedelta:
    """How long a "your turn" mail waits before it goes (``mail.quiet_minutes``)."""
    minutes = float(runtime.config["mail"].get("quiet_minutes", 0) or 0)
    return timedelta(minutes=max(minutes, 0.0))


def turns_begun(transition: Transition) -> frozenset[int]:
    """The seats whose turn begins with this batch: due now and not before, or (with
    simultaneous choices) due again for a new choice after moving while the set of due
    seats changed. A seat that stays due through its own moves (rolling on) is not."""
    moved = {row["seat"] for row in transition.events if row["kind"] in MOVE_KINDS}
    changed = transition.due_after != transition.due_before
    return frozenset(
        seat
        for seat in transition.due_after
        if seat not in transition.due_before or (changed and seat in moved)
    )


def start_turn(clock: SeatClock, policy: dict[str, Any], now: datetime) -> None:
    """Starts a seat's timers for a new turn (after any vacation it is on)."""
    clock.turn_since = now
    clock.reminders = 0
    base = max(now, clock.paused_until) if clock.paused_until else now
    first = float(policy.get("reminder_after_hours", 0))
    days = float(policy.get("deadline_after_days", 0))
    clock.remind_at = base + timedelta(hours=first) if first > 0 else None
    clock.deadline_at = base + timedelta(days=days) if days > 0 else None


def stop_turn(clock: SeatClock) -> None:
    clock.turn_since = None
    clock.remind_at = None
    clock.deadline_at = None
    clock.reminders = 0


def _game_over(
    session: Session, runtime: Any, transition: Transition, seats: dict[int, Seat]
) -> None:
    game = transition.game
    session.flush()  # the lines below read this batch's events back
    sent = set(
        session.exec(select(Mail.key).where(Mail.game_id == game.id, Mail.kind == "game_over"))
    )
    seed = next(
        (row["payload"]["seed"] for row in transition.events if row["kind"] == "seed_revealed"),
        "",
    )
    resigned = seat_rules.resigned_seats(session, game.id)
    over = game_over_context(
        game,
        [seats[n].name + (" (resigned)" if n in resigned else "") for n in sorted(seats)],
    )
    told = set()
    for number, seat in seats.items():
        key = f"game_over:{game.id}:{number}"
        if key in sent:
            told.add(seat.email.lower())
            continue
        # A seat a bot plays now still has its player, who is told how the game ended.
        if mail_seat(
            session,
            runtime,
            game,
            seat,
            "game_over",
            key,
            bot_seat_too=True,
            lines=since_last_move(session, runtime, game, transition.engine, seat),
            seed=seed,
            **over,
        ):
            told.add(seat.email.lower())
    formers = session.exec(
        select(FormerPlayer)
        .where(FormerPlayer.game_id == game.id)
        .order_by(col(FormerPlayer.left_at).desc(), col(FormerPlayer.id).desc())
    )
    for former in formers:
        address = former.email.lower()
        key = f"game_over:{game.id}:former:{address}"
        if not address or address in told:
            continue
        told.add(address)
        if key in sent:
            continue
        start = max(game.head_seq - HISTORY_LIMIT, former.left_seq or 0, 0)
        current = seats.get(former.seat)
        mail_former(
            session,
            runtime,
            game,
            former,
            "game_over",
            key,
            seat_name=current.name if current is not None else "",
            resigned=former.reason == "resigned",
            lines=history(session, runtime, game, transition.engine, None, start)[0],
            seed=seed,
            **over,
        )


def game_over_context(game: Game, names: list[str]) -> dict[str, Any]:
    """The result as the game-over mail shows it (:func:`pbem.games.results.standings`):
    ``headline`` ("Anna wins."), ``reason`` (a sentence that names no one) and
    ``standings``, winners first: each row's ``rank``, ``name``, ``winner`` and
    ``score`` (its figures as text, "Coins: 14, Goods: 3")."""
    standing = results.standings(game.result, names) or {
        "headline": "",
        "reason": "",
        "columns": [],
        "rows": [],
    }
    rows = [
        {
            "rank": row["rank"],
            "name": row["name"],
            "winner": row["winner"],
            "score": ", ".join(
                f"{label}: {value}"
                for label, value in zip(standing["columns"], row["values"], strict=True)
            ),
        }
        for row in standing["rows"]
    ]
    return {"headline": standing["headline"], "reason": standing["reason"], "standings": rows}


# What happened since a seat's last move ---------------------------------------------


def history_start(game: Game, seat: Seat) -> int:
    """The event after which a seat's "since your last move" lines begin."""
    return max((seat.last_move_seq or 1) - 1, game.head_seq - HISTORY_LIMIT, 0)


def since_last_move(
    session: Session, runtime: Any, game: Game, engine: Engine, seat: Seat
) -> list[str]:
    """The history lines from ``seat``'s last move on, as that seat may see them."""
    return history(session, runtime, game, engine, seat.seat, history_start(game, seat))[0]


def history(
    session: Session,
    runtime: Any,
    game: Game,
    engine: Engine,
    viewer: int,
    start: int,
    upto: int | None = None,
) -> tuple[list[str], Any]:
    """The lines of the events after ``start`` up to ``upto`` (the head if None) as seat
    ``viewer`` may see them, and the state after the last of them. A move a bot made is
    marked with the seat's holder as of that move (the roster then; today's seats for a
    log without one)."""
    store = runtime.service.store
    state = store.state_at(session, game, engine, start)
    lines: list[str] = []
    kept = rosters(session, game, game.head_seq if upto is None else upto)
    today: list[Roster] = []
    for row in store.rows(session, game.id, after=start, upto=upto):
        if row["kind"] == "take_back":
            after = store.state_at(session, game, engine, row["seq"])
        else:
            after = fold(engine, [row], Folded(state, row["seq"] - 1)).state
        if row["kind"] in MOVE_KINDS:
            roster = kept.at(row["seq"])
            if roster is None:
                if not today:
                    seats = session.exec(select(Seat).where(Seat.game_id == game.id)).all()
                    today.append(or_seats(None, seats, game))
                roster = today[0]
            lines.extend(
                names.fill_lines(
                    engine.describe(state, row["seat"], row["payload"]["move"], after, viewer),
                    roster.names,
                    partial(marks_after, engine, after),
                )
            )
            made_by = mover(roster, row)
            if made_by is not None and made_by.note:
                lines.append(made_by.note)
        else:
            line = describe_admin(row)
            if line:
                lines.append(line)
        state = after
    return lines, state


def marks_after(engine: Engine, state: Any) -> list[str]:
    """The seats' civilisations or colours as the public view of ``state`` names them."""
    return names.marks_of(engine.view(state, None))


def check_invitations(session: Session, runtime: Any, addresses: list[str]) -> None:
    """Refuses (:class:`TooMany`, which undoes the whole creation) invitations beyond
    ``limits.invitations_per_address_per_day`` to one address in 24 hours, counted in
    the outbox so that every worker agrees."""
    limit = int(runtime.config.get("limits", {}).get("invitations_per_address_per_day", 0))
    if limit <= 0:
        return
    since = utc(runtime.clock()) - timedelta(days=1)
    wanted = Counter(canonical_address(address) for address in addresses if address)
    for address, count in sorted(wanted.items()):
        earlier = session.exec(
            select(func.count())
            .select_from(Mail)
            .where(
                Mail.kind == "invitation",
                _one_person(Mail.recipient, address),
                col(Mail.created_at) >= since,
            )
        ).one()
        if earlier + count > limit:
            raise TooMany(
                f"This server sends {address} at most {limit} invitations in 24 hours; "
                "please try again tomorrow."
            )


def _one_person(column: Any, canonical: str) -> Any:
    """A condition: ``column`` holds an address of the person ``canonical`` names (the
    address itself in any case, or its local part with any ``+tag``), the same on
    SQLite and PostgreSQL."""
    local, _, domain = canonical.rpartition("@")
    if not local:
        return func.lower(column) == canonical

    def escaped(text: str) -> str:
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")

    tagged = f"{escaped(local)}+%@{escaped(domain)}"
    return or_(func.lower(column) == canonical, func.lower(column).like(tagged, escape="\\"))


# Links -------------------------------------------------------------------------------


def store_link(session: Session, runtime: Any, game_id: str, seat: int, token: str) -> None:
    """Keeps a seat's current token sealed, so later mails can carry the link."""
    link = session.get(SeatLink, (game_id, seat)) or SeatLink(game_id=game_id, seat=seat)
    link.sealed = render.seal(secret(runtime), token)
    link.token_hash = hash_token(token)
    session.add(link)


def seat_token(session: Session, runtime: Any, seat: Seat) -> str | None:
    """The seat's current link token, if the outbox holds it (not for a revoked one)."""
    link = session.get(SeatLink, (seat.game_id, seat.seat))
    if link is None or seat.token_hash is None or link.token_hash != seat.token_hash:
        return None
    return render.unseal(secret(runtime), link.sealed)


def settings_link(runtime: Any, seat: Seat) -> str:
    return render.settings_url(
        runtime.config, secret(runtime), seat.game_id, seat.seat, seat.token_hash or ""
    )


# Writing mails -----------------------------------------------------------------------


def mail_seat(
    session: Session,
    runtime: Any,
    game: Game,
    seat: Seat,
    kind: str,
    key: str,
    *,
    bot_seat_too: bool = False,
    **extra: Any,
) -> Mail | None:
    """Writes a mail of ``kind`` to a seat's player (none for a seat without an address,
    nor for a seat a bot plays unless ``bot_seat_too``: its player still hears how the
    game ends), with the context every seat mail shares."""
    if (seat.is_bot and not bot_seat_too) or not seat.email:
        return None
    token = seat_token(session, runtime, seat)
    deadline = extra.pop("deadline", None)
    settings = settings_link(runtime, seat) if seat.token_hash else ""
    context = {
        **seat_context(runtime, game, seat, token, settings, deadline),
        "newcomer": is_newcomer(session, game.id, seat.seat),
        "bouncing": bouncing_others(session, game, seat),
        **extra,
    }
    return enqueue(
        session,
        runtime,
        kind,
        key=key,
        recipient=seat.email,
        context=context,
        game_id=game.id,
        seat=seat.seat,
        unsubscribe=context["settings"],
    )


def bouncing_others(session: Session, game: Game, seat: Seat) -> list[str]:
    """The names of the game's other players whose mail bounces (every seat mail says
    so: :func:`pbem.mail.inbound.receive.bouncing_names`)."""
    from pbem.mail.inbound import receive

    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))))
    return receive.bouncing_names(session, seats, seat)


def seat_context(
    runtime: Any,
    game: Game,
    seat: Seat,
    token: str | None,
    settings: str,
    deadline: datetime | None,
) -> dict[str, Any]:
    """The context every seat mail shares (each template lists, at its top, the keys
    it reads)."""
    return {
        "title": game.title,
        "game_name": render.engine_title(game.engine),
        "game_id": game.id,
        "game_page": render.game_url(runtime.config, game.id),
        "name": seat.name,
        "seat": seat.seat,
        "link": render.play_url(runtime.config, token) if token else "",
        "settings": settings,
        "head_hash": game.head_hash,
        "head_seq": game.head_seq,
        "phase": game.phase,
        "commitment": game.commitment,
        "policy": game.policy,
        "deadline": render.when(deadline, seat.timezone, utc(runtime.clock())),
        "lines": [],
        "others": [],
        "newcomer": False,
        "former": False,
    }


def is_newcomer(session: Session, game_id: str, seat: int) -> bool:
    """Whether the seat's player came to it after the game began (took it over from
    someone else): such a player never had the invitation, so their mails carry the
    seed commitment."""
    taken = session.exec(
        select(Event)
        .where(
            Event.game_id == game_id,
            Event.seat == seat,
            col(Event.kind).in_(("seat_taken", "seat_replaced")),
        )
        .order_by(col(Event.seq).desc())
        .limit(1)
    ).first()
    return taken is not None and not (taken.payload or {}).get("returning")


def mail_former(
    session: Session,
    runtime: Any,
    game: Game,
    former: Any,
    kind: str,
    key: str,
    *,
    seat_name: str = "",
    **extra: Any,
) -> Mail | None:
    """Writes a mail of ``kind`` (``game_over``, ``notice``) to a former player of the
    game (a :class:`~pbem.mail.models.FormerPlayer`: someone who held a seat and was
    replaced or left): no link, no settings, ``former=True``, ``seat_name`` (the name
    the seat has now) and ``until`` (when they left, in their time zone)."""
    if not former.email:
        return None
    context = {
        "title": game.title,
        "game_name": render.engine_title(game.engine),
        "game_id": game.id,
        "game_page": render.game_url(runtime.config, game.id),
        "name": former.name,
        "seat": former.seat,
        "seat_name": seat_name or former.name,
        "until": render.when(former.left_at, former.timezone),
        "link": "",
        "settings": "",
        "head_hash": game.head_hash,
        "head_seq": game.head_seq,
        "phase": game.phase,
        "commitment": game.commitment,
        "policy": game.policy,
        "deadline": "",
        "lines": [],
        "others": [],
        "newcomer": False,
        "former": True,
        **extra,
    }
    return enqueue(
        session,
        runtime,
        kind,
        key=key,
        recipient=former.email,
        context=context,
        game_id=game.id,
    )


# Mails whose recipient need not hold any seat: no link to "all your games" in them.
NO_GAMES_LINK = frozenset({"answer_stranger", "answer_gone"})


def enqueue(
    session: Session,
    runtime: Any,
    kind: str,
    *,
    key: str,
    recipient: str,
    context: dict[str, Any],
    game_id: str | None = None,
    seat: int | None = None,
    unsubscribe: str = "",
) -> Mail:
    """Renders a mail and adds it to the outbox in the open transaction.

    Links to a seat or its settings are stored sealed (:func:`render.seal_links`): the
    outbox row opens nothing; the dispatcher opens them as it sends (:func:`opened`).
    The footer's link to the recipient's games is the address's own (``my_games``),
    except in a refusal to someone who holds no seat (:data:`NO_GAMES_LINK`)."""
    if kind not in NO_GAMES_LINK:
        context = {"my_games": games_link.address_link(runtime, session, recipient), **context}
    subject, text, html, unsubscribe = sealed_render(runtime, kind, context, unsubscribe)
    mail = new_mail(runtime, kind, key, recipient, subject, text, html, unsubscribe, game_id, seat)
    session.add(mail)
    return mail


def sealed_render(
    runtime: Any, kind: str, context: dict[str, Any], unsubscribe: str
) -> tuple[str, str, str, str]:
    """A mail's subject, text, HTML and unsubscribe link, the links sealed."""
    subject, text, html = render.render(
        kind, {"base_url": render.base_url(runtime.config), **context}
    )
    server_key = secret(runtime)
    text, html, unsubscribe = (
        render.seal_links(runtime.config, server_key, part) for part in (text, html, unsubscribe)
    )
    return subject, text, html, unsubscribe


def new_mail(
    runtime: Any,
    kind: str,
    key: str,
    recipient: str,
    subject: str,
    text: str,
    html: str,
    unsubscribe: str,
    game_id: str | None,
    seat: int | None,
) -> Mail:
    """An outbox row, ready to send now, with its Message-ID and thread."""
    return Mail(
        **mail_values(
            runtime, kind, key, recipient, subject, text, html, unsubscribe, game_id, seat
        )
    )


def mail_values(
    runtime: Any,
    kind: str,
    key: str,
    recipient: str,
    subject: str,
    text: str,
    html: str,
    unsubscribe: str,
    game_id: str | None,
    seat: int | None,
    wait: timedelta = timedelta(0),
) -> dict[str, Any]:
    """The column values of an outbox row (:func:`new_mail`), as a plain dict: ready to
    send after ``wait``."""
    host = render.domain(runtime.config["mail"]["sender"])
    now = utc(runtime.clock())
    thread = f"<{game_id}.{seat}@{host}>" if game_id is not None else ""
    if kind == "invitation":
        message_id = thread
    else:
        message_id = f"<{kind}.{secrets.token_hex(8)}.{game_id or 'pbem'}@{host}>"
    return {
        "key": key[:200],
        "kind": kind,
        "game_id": game_id,
        "seat": seat,
        "recipient": recipient,
        "subject": subject,
        "body_text": text,
        "body_html": html,
        "message_id": message_id,
        "thread_id": thread if thread != message_id else "",
        "unsubscribe": unsubscribe,
        "status": "pending",
        "attempts": 0,
        "next_attempt_at": now + wait,
        "lease_owner": "",
        "lease_until": None,
        "last_error": "",
        "created_at": now,
        "sent_at": None,
    }


# Mails rendered after the move's transaction ----------------------------------------

# A mail whose body is still to be rendered keeps, in place of its text, what to render:
# the events its lines cover and what the move knew (the deadline, who else chooses).
DEFERRED = "{deferred}"


def is_deferred(mail: Mail) -> bool:
    return not mail.body_html and mail.body_text.startswith(DEFERRED)


_MAIL_INSERT = Prepared(
    Mail.__table__.insert(), [column.key for column in Mail.__table__.columns if column.key != "id"]
)


def defer_seat_mail(
    session: Session,
    runtime: Any,
    game: Game,
    seat: Seat,
    kind: str,
    key: str,
    *,
    start: int,
    others: list[str],
    deadline: datetime | None,
    quiet: timedelta = timedelta(0),
    context: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Records a seat's mail whose lines need the game's history (``your_turn``) without
    rendering it: the row holds only the events to describe (after ``start`` up to the
    head) and what the move knew. The dispatcher renders it (:func:`render_deferred`),
    outside the move's transaction.

    With a ``quiet`` window the mail waits that long before it goes, and the dispatcher
    drops it if it is no longer wanted by then (:func:`unwanted`: the player moved, the
    turn passed, or a later turn's mail of the seat waits). So turns that begin within
    one window of each other make one mail: the latest, which names its own turn. The
    move's transaction only inserts the row; it reads nothing back. Returns the row's
    values (None when the seat gets no mail).

    ``context``: what the mail says beyond the game at the head (JSON: the answer to a
    reply's headline, the moves it made), kept in the row and laid over the rendered
    context; its keys may fill the subject too."""
    if seat.is_bot or not seat.email:
        return None
    recipe = {
        "from": start,
        "upto": game.head_seq,
        "others": others,
        "deadline": deadline.isoformat() if deadline else None,
    }
    if quiet > timedelta(0):
        recipe["quiet"] = quiet.total_seconds()
    if context:
        recipe["context"] = context
    body = DEFERRED + json.dumps(recipe, separators=(",", ":"))
    subject = render.SUBJECTS[kind].format(**(context or {}), title=game.title)[:300]
    values = mail_values(
        runtime, kind, key, seat.email, subject, body, "", "", game.id, seat.seat, quiet
    )
    # A plain INSERT in the move's transaction (no unit of work to flush at the commit).
    write(session, _MAIL_INSERT, values)
    return values


def unwanted(runtime: Any, mail: Mail) -> str:
    """Why a waiting "your turn" mail (one recorded with a quiet window) should not go
    now: the game ended or is no longer running, a bot plays the seat, someone else
    holds it, the player turned these mails off, moved since, or is no longer due, or a
    later turn's mail of the seat waits (that one goes when its own window ends). ""
    when it should go."""
    recipe = json.loads(mail.body_text[len(DEFERRED) :])
    if not recipe.get("quiet"):
        return ""
    with runtime.service.reading() as session:
        game = session.get(Game, mail.game_id)
        seat = session.get(Seat, (mail.game_id, mail.seat))
        if game is None or seat is None:
            return "the seat is gone"
        if game.status != "active":
            return "the game is over"
        if seat.is_bot:
            return "a bot plays the seat now"
        if seat.email.strip().lower() != mail.recipient.strip().lower():
            return "the seat has another player now"
        if seat.notify != "every_turn":
            return "the player turned these mails off"
        if seat.last_move_seq is not None and seat.last_move_seq > int(recipe["upto"]):
            return "the player moved since"
        if not seat.due:
            return "the seat is no longer due"
        later = session.exec(
            select(Mail.id).where(
                Mail.game_id == mail.game_id,
                Mail.seat == mail.seat,
                Mail.recipient == mail.recipient,
                Mail.kind == mail.kind,
                Mail.status == "pending",
                col(Mail.id) > mail.id,
            )
        ).first()
        if later is not None:
            return "a later turn's mail replaces it"
    return ""


def render_deferred(runtime: Any, mail: Mail) -> None:
    """Renders a deferred mail in place (its links sealed, as every stored body), from
    the game as it was at the recorded head: lines, receipt hash and phase."""
    recipe = json.loads(mail.body_text[len(DEFERRED) :])
    upto = int(recipe["upto"])
    deadline = datetime.fromisoformat(recipe["deadline"]) if recipe.get("deadline") else None
    with runtime.service.reading() as session:
        game = runtime.service.store.game(session, mail.game_id)
        seat = session.get(Seat, (game.id, mail.seat))
        if seat is None:
            raise ValueError(f"game {game.id} has no seat {mail.seat}")
        engine = game_engine(game)
        lines, state = history(session, runtime, game, engine, seat.seat, recipe["from"], upto)
        event = session.get(Event, (game.id, upto))
        if event is None:
            raise ValueError(f"game {game.id} has no event {upto}")
        token = seat_token(session, runtime, seat)
        newcomer = is_newcomer(session, game.id, seat.seat)
        by_mail = inbound_context(runtime, session, game, engine, state, seat)
        holders = [
            row.name
            for row in session.exec(
                select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))
            )
        ]
        my_games = games_link.address_link(runtime, session, mail.recipient)
        bouncing = bouncing_others(session, game, seat)
    public = engine.view(state, None)
    phase = names.fill(str(public.get("phase", "")), holders, names.marks_of(public))
    settings = settings_link(runtime, seat) if seat.token_hash else ""
    context = seat_context(runtime, game, seat, token, settings, deadline)
    context.update(
        newcomer=newcomer,
        head_hash=event.hash,
        head_seq=upto,
        phase=phase[:200],
        lines=lines,
        others=list(recipe.get("others") or []),
        **by_mail,
        my_games=my_games,
        bouncing=bouncing,
    )
    context.update(recipe.get("context") or {})
    subject, text, html, unsubscribe = sealed_render(runtime, mail.kind, context, settings)
    mail.subject, mail.body_text, mail.body_html, mail.unsubscribe = (
        subject,
        text,
        html,
        unsubscribe,
    )


def inbound_context(
    runtime: Any, session: Session, game: Game, engine: Engine, state: Any, seat: Seat
) -> dict[str, Any]:
    """With replies by mail on (``mail.reply_address``): the seat's legal moves with
    their codes; see :mod:`pbem.mail.inbound`."""
    from pbem.mail.inbound import receive, tags

    if tags.reply_address_config(runtime.config) is None:
        return {}
    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))))
    listed = receive.moves.numbered(engine, state, seat.seat, [row.name for row in seats])
    return receive.move_context(game.engine, listed)


def moves_context(runtime: Any, session: Session, game: Game, seat: Seat) -> dict[str, Any]:
    """:func:`inbound_context` at the game's head, for a mail written outside a move (a
    reminder, a deadline): nothing is read when replies by mail are off."""
    from pbem.mail.inbound import tags

    if tags.reply_address_config(runtime.config) is None:
        return {}
    head = runtime.service.store.head(session, game.id)
    return inbound_context(runtime, session, game, head.engine, head.state, seat)


def opened(runtime: Any, mail: Mail) -> tuple[str, str, str]:
    """A stored mail's text, HTML and unsubscribe link with their links opened, as sent
    (a deferred mail is rendered first, see :func:`render_deferred`).

    :class:`render.UnsealError` when a link was sealed under another server key."""
    if is_deferred(mail):
        render_deferred(runtime, mail)
    key = secret(runtime)
    return tuple(  # type: ignore[return-value]
        render.open_links(key, part) for part in (mail.body_text, mail.body_html, mail.unsubscribe)
    )


def has_mail(session: Session, key: str) -> bool:
    return session.exec(select(col(Mail.id)).where(Mail.key == key)).first() is not None
