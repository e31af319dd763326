"""Rescuing games: bot seats, leaving, open seats, replacement players, vacations.

Who may do what to a seat is :mod:`pbem.games.seat_rules` (one table, checked in
:func:`pbem.games.seat_rules.permit`); this module carries the actions out. Each action is
one administrative event in the game's log (a line in its history), appended by
:meth:`GameService.append_admin` with its read-model change and its mails in the same
transaction:

- :func:`hand_to_bot` (``seat_to_bot``): a bot plays the seat until its player reclaims
  it; the seat's link keeps working, so its player can reclaim it.
- :func:`leave_game` (``seat_left``): the player gives the seat up; a bot keeps it going
  and the seat is open on the game's public page.
- :func:`resign` (``seat_resigned``): the player resigns; the game's engine says what
  that means (:func:`engines.api.resignation_of`): for every title here a bot plays the
  seat to the end. The link is retired, the seat is not open to newcomers and cannot be
  taken back (:func:`pbem.games.seat_rules.is_resigned`); the player is still told how
  the game ends (a :class:`FormerPlayer` with the reason "resigned").
- :func:`offer_seat` (``seat_offered``): the deadline policy ``replace``; the old link is
  retired and the seat is open on the game's public page (its link goes to nobody).
- :func:`invite_replacement` (``seat_offered`` with a newcomer): a vote or the operator
  names a newcomer; the invitation link goes to the newcomer's address only.
- :func:`request_open_seat`: someone outside the game asks for an open seat with a name
  and an address; the invitation link goes to that address only (no event yet). Requests
  are counted per requester (:func:`pbem.games.seat_rules.count_take`), and the link
  lapses after ``limits.seat_request_hours``.
- :func:`take_seat` (``seat_taken``): an invitation link is accepted; until then it opens
  only the "take this seat" form. A named newcomer's invitation lapses after
  ``limits.invitation_days`` (:func:`lapses_at`); :func:`resend_invitation` (the game's
  creator or the operator) mails a fresh link and retires the old one.
- :func:`reclaim` (``seat_reclaimed``): a bot seat goes back to its player, who is
  mailed a fresh link (the old one stops working).
- :func:`start_vacation` (``vacation``): the seat's deadlines pause for whole days,
  within ``scheduler.max_vacation_days`` per game; the others are told.
- :func:`end_vacation` (``vacation_ended``): the seat's player is back early; the
  unused whole days are given back and the clock runs again; the others are told.

The player whose seat is moved is always told by mail: what happened, by whom, and how
to come back. A replaced player's old link shows a page that says so (see
:func:`link_status`). Every function returns a :class:`RescueOutcome`; refusals raise
the service's errors with a message fit to show the player.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from pbem import links, zones
from pbem.errors import BadInput, Gone, NotAllowed, NotFound, NotTaken, Rejected
from pbem.games import seat_rules
from pbem.games.admin_lines import BY_WHOM, HEADLINES, describe_admin
from pbem.games.clocks import start_turn, stop_turn
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.games.seat_rules import Permission, VoteCounted, count_request
from pbem.games.tables import FormerPlayer, RetiredLink, SeatClock, SeatOffer
from pbem.games.tokens import hash_token, new_token
from pbem.models import Event, Game, Seat
from pbem.validate import (
    canonical_address,
    check_name_free,
    clean_email,
    clean_name,
    is_game_id,
    same_person,
)
from pbem.zones import utc


@dataclass
class RescueOutcome:
    """What a rescue request did: carried out (``seq`` of its event) or a vote counted."""

    done: bool
    message: str
    seq: int | None = None
    votes: int = 0
    needed: int = 0
    token: str | None = field(default=None, repr=False)


Claim = Callable[[Session], None]


# Actions -----------------------------------------------------------------------------


def hand_to_bot(
    runtime: Runtime,
    game_id: str,
    seat: int,
    by: int | None = None,
    claim: Claim | None = None,
    level: str = "normal",
) -> RescueOutcome:
    """A bot plays ``seat`` from now on, until its player reclaims it. ``claim`` (the
    scheduler's guard against acting twice) runs first in the event's transaction.
    ``level`` is the bot's level ("easy" or "normal")."""
    from engines import bot_levels_of, get_engine

    levels = bot_levels_of(get_engine(runtime.service.game(game_id).engine))
    if level not in levels:
        raise BadInput(f"A bot plays this game at one of these levels: {', '.join(levels)}.")
    target = _seat(runtime, game_id, seat)
    if target.is_bot:
        return RescueOutcome(True, f"A bot already plays {target.name}'s seat.")
    permitted = _permit(runtime, game_id, "to_bot", seat, by, deadline=claim is not None)
    if isinstance(permitted, RescueOutcome):
        return permitted

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        if row.is_bot:
            raise Rejected(f"A bot already plays {row.name}'s seat.")
        if permitted.by == "player":
            count_request(session, runtime, game_id, seat, "rescue")
        _bot_plays(session, row, level)

    outcome = _append(
        runtime,
        game_id,
        "seat_to_bot",
        target,
        permitted,
        change,
        claim=claim,
        level=level,
        target_lines=[
            f"From now on a bot plays your seat, {BY_WHOM[permitted.by]}.",
            'Your link still works: open it, go to "Seats and deadlines" and choose '
            '"Take my seat back" at any time.',
        ],
    )
    runtime.service.play_bots(game_id)
    return outcome


def leave_game(runtime: Runtime, game_id: str, seat: int, by: int | None) -> RescueOutcome:
    """The seat's own player leaves: their link is retired, a bot keeps the seat going and
    the seat is open on the game's public page."""
    target = _seat(runtime, game_id, seat)
    permitted = _permit(runtime, game_id, "leave", seat, by)
    assert isinstance(permitted, Permission)
    page = game_url(runtime, game_id)

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        if not row.email:
            raise Rejected("This seat has no player to leave it.")
        count_request(session, runtime, game_id, seat, "rescue")
        come_back = (
            f"The seat is open on the game's page, {page}; to come back, ask for it there "
            "with your address while nobody else has taken it."
        )
        _retire(session, runtime, game, row, f"You left {game.title}. {come_back}")
        _tell(
            session,
            runtime,
            game,
            row,
            f"former:seat_left:{game_id}:{seat}:{game.head_seq}",
            HEADLINES["seat_left"],
            [
                f"You left {game.title}, as you asked; your link no longer opens the seat.",
                "A bot plays your seat until a new player takes it.",
                come_back,
            ],
        )
        _former(session, runtime, game, row, "left")
        _open(session, runtime, game, row, open_to_all=True)
        row.is_bot = True
        session.add(row)

    outcome = _append(
        runtime,
        game_id,
        "seat_left",
        target,
        permitted,
        change,
        notify_target=False,
        other_lines=[f"A new player can ask for the seat on the game's page: {page}"],
    )
    runtime.service.play_bots(game_id)
    return outcome


def resign(runtime: Runtime, game_id: str, seat: int, by: int | None) -> RescueOutcome:
    """The seat's own player resigns. What that means is the engine's; for
    ``"bot_plays_on"`` (every title here) a bot plays the seat to the end: the link is
    retired, the seat is not open to newcomers, nobody can take it back, and the player
    is still told how the game ends. Refused while the game is paused."""
    from engines import get_engine
    from engines.api import resignation_of

    target = _seat(runtime, game_id, seat)
    game = runtime.service.game(game_id)
    meaning = resignation_of(get_engine(game.engine, game.engine_version))
    paused = "The game is paused: nobody can resign until it goes on. Nothing was changed."
    if game.paused_at is not None:
        raise Rejected(paused)
    permitted = _permit(runtime, game_id, "resign", seat, by)
    assert isinstance(permitted, Permission)
    level = target.bot_level if target.is_bot and target.bot_level else "normal"
    page = game_url(runtime, game_id)

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        if not row.email or not row.token_hash:
            raise Rejected("This seat has no player to resign it.")
        if game.paused_at is not None:
            raise Rejected(paused)
        count_request(session, runtime, game_id, seat, "rescue")
        _retire(
            session,
            runtime,
            game,
            row,
            f"You resigned from {game.title}; a bot plays your seat to the end of the game. "
            "You will get the result by mail when the game ends.",
        )
        _tell(
            session,
            runtime,
            game,
            row,
            f"former:seat_resigned:{game_id}:{seat}:{game.head_seq}",
            "Your resignation is recorded",
            [
                f"You resigned from {game.title}, as you asked; your link no longer opens "
                "the seat.",
                "A bot plays your seat to the end of the game; the seat cannot be taken back.",
                f"You will get the result by mail when the game ends. The game's page: {page}",
            ],
        )
        _former(session, runtime, game, row, "resigned")
        row.email = ""
        row.token_hash = None
        _bot_plays(session, row, level)

    outcome = _append(
        runtime,
        game_id,
        "seat_resigned",
        target,
        permitted,
        change,
        notify_target=False,
        resignation=meaning,
        level=level,
    )
    runtime.service.play_bots(game_id)
    return outcome


def offer_seat(
    runtime: Runtime, game_id: str, seat: int, claim: Claim | None = None
) -> RescueOutcome:
    """The deadline policy ``replace``: the seat's link is retired and the seat is open on
    the game's public page, where a newcomer asks for it (its link goes to nobody)."""
    target = _seat(runtime, game_id, seat)
    permitted = _permit(runtime, game_id, "open", seat, None, deadline=True)
    assert isinstance(permitted, Permission)
    page = game_url(runtime, game_id)

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        come_back = (
            f"The seat is open on the game's page, {page}; to come back, ask for it there "
            "with your address while nobody else has taken it."
        )
        _retire(
            session,
            runtime,
            game,
            row,
            f"The deadline of your turn in {game.title} passed, so your seat was offered "
            f"to a new player. {come_back}",
        )
        if row.email:
            _tell(
                session,
                runtime,
                game,
                row,
                f"former:seat_offered:{game_id}:{seat}:{game.head_seq}",
                HEADLINES["seat_offered"],
                [
                    "The deadline of your turn passed, so your seat is offered to a new "
                    "player; your link no longer opens it.",
                    come_back,
                ],
            )
        _former(session, runtime, game, row, "offered")
        _open(session, runtime, game, row, open_to_all=True)

    return _append(
        runtime,
        game_id,
        "seat_offered",
        target,
        permitted,
        change,
        claim=claim,
        notify_target=False,
        other_lines=[f"A new player can ask for the seat on the game's page: {page}"],
    )


def invite_replacement(
    runtime: Runtime,
    game_id: str,
    seat: int,
    name: Any,
    email: Any,
    by: int | None = None,
    timezone: str = "UTC",
) -> RescueOutcome:
    """A vote of the other players (or the operator) gives ``seat`` to a newcomer: the
    old link is retired and an invitation goes to the newcomer's address only; the seat
    is theirs once they accept it (:func:`take_seat`)."""
    name, email = clean_name(name), clean_email(email)
    target = _seat(runtime, game_id, seat)
    _not_a_player(runtime, game_id, email)
    _name_free(runtime, game_id, target.seat, name)
    permitted = _permit(runtime, game_id, "replace", seat, by, detail=email.lower())
    if isinstance(permitted, RescueOutcome):
        return permitted
    token = new_token()
    whom = BY_WHOM[permitted.by]

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        _retire(
            session,
            runtime,
            game,
            row,
            f"Your seat in {game.title} was given to a new player {whom}. Ask the other "
            "players or the server's operator if you want to play again.",
        )
        if row.email and not row.seat == by:
            _tell(
                session,
                runtime,
                game,
                row,
                f"former:seat_replaced:{game_id}:{seat}:{game.head_seq}",
                HEADLINES["seat_offered"],
                [
                    f"Your seat is given to a new player {whom}; your link no longer opens it.",
                    "If you want to play again, write to the other players; if the "
                    "newcomer does not take the seat, they or the operator can invite you "
                    "back.",
                ],
            )
        _former(session, runtime, game, row, "replaced")
        offer = _open(session, runtime, game, row, open_to_all=False)
        offer.name, offer.email, offer.token_hash = name, email, hash_token(token)
        offer.invited_at = utc(runtime.clock())
        session.add(offer)
        _invite(session, runtime, game, row, offer, token)

    outcome = _append(
        runtime,
        game_id,
        "seat_offered",
        target,
        permitted,
        change,
        notify_target=False,
        new_name=name,
    )
    outcome.token = token
    return outcome


def request_open_seat(
    runtime: Runtime, game_id: str, seat: Any, name: Any, email: Any, client: str | None = None
) -> RescueOutcome:
    """Someone outside the game asks for an open seat: the invitation link goes to the
    address they gave, and only there (never into the answer). A newer request replaces
    an earlier one that was not accepted (whoever accepts first takes the seat), and a
    link not used within ``limits.seat_request_hours`` lapses. Requests are limited per
    person (the canonical address given) and per ``client`` (the web client's address;
    None from the command line), never per seat, so nobody can lock others out."""
    if not is_game_id(game_id):
        raise NotFound("There is no such game.")
    name, email = clean_name(name), clean_email(email)
    target = _seat(runtime, game_id, seat)
    _not_a_player(runtime, game_id, email)
    _name_free(runtime, game_id, target.seat, name)
    token = new_token()
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        offer = session.get(SeatOffer, (game_id, target.seat))
        if offer is None or not offer.open:
            raise NotAllowed("This seat is not open to new players.")
        seat_rules.count_take(
            session, runtime, game_id, target.seat, canonical_address(email), client
        )
        if offer.token_hash:
            session.add(
                RetiredLink(
                    token_hash=offer.token_hash,
                    game_id=game_id,
                    seat=target.seat,
                    message="Someone else asked for this seat after you, so this link no "
                    "longer takes it. If the seat is still open on the game's page, you can "
                    "ask for it again there.",
                    created_at=utc(runtime.clock()),
                )
            )
        offer.name, offer.email, offer.token_hash = name, email, hash_token(token)
        offer.invited_at = utc(runtime.clock())
        session.add(offer)
        _invite(session, runtime, game, target, offer, token)
        session.commit()
    outcome = RescueOutcome(
        True, f"A link to take the seat is on its way to {email}; it works once."
    )
    outcome.token = token
    return outcome


def take_seat(runtime: Runtime, token: str, name: Any = None) -> RescueOutcome:
    """The holder of an invitation link accepts the seat; from now on the same link opens
    it. ``name`` may change the name the invitation gave."""
    found = offer_for_token(runtime, token)
    if found is None:
        raise NotFound("This link is not valid (it may have been replaced).")
    if is_lapsed(runtime, found):
        raise Gone(lapsed_message(runtime, found))
    name = clean_name(name) if name not in (None, "") else found.name
    target = _seat(runtime, found.game_id, found.seat)
    permitted = Permission("newcomer")
    token_hash = hash_token(token)
    returning = same_person(found.former_email, found.email)

    def change(session: Session, game: Game) -> None:
        offer = session.get(SeatOffer, (found.game_id, found.seat))
        if offer is None or offer.token_hash != token_hash:
            raise Rejected("This invitation was replaced or used already.")
        if is_lapsed(runtime, offer):
            raise Gone(lapsed_message(runtime, offer))
        row = _locked_seat(session, found.game_id, found.seat)
        others = list(
            session.exec(select(Seat).where(Seat.game_id == found.game_id, Seat.seat != found.seat))
        )
        for other in others:
            # A newcomer never holds a second seat, whoever took one since the invitation.
            _not_the_holder(other, offer.email)
        check_name_free(name, [other.name for other in others])
        row.name, row.email, row.timezone = name, offer.email, "UTC"
        row.is_bot = False
        row.bot_level = "normal"
        row.notify = "every_turn"
        row.token_hash = token_hash
        session.add(row)
        issue_link(session, runtime, game.id, row.seat, token)
        clock = _clock(session, game.id, row.seat)
        if row.seat in (game.to_move or []):
            start_turn(clock, game.policy, utc(runtime.clock()))
        seat_rules.clear_votes(session, game.id, row.seat)
        session.delete(offer)
        if not returning and game.creator_seat == row.seat:
            # Creating the game was the person's, not the seat's: a newcomer at the
            # creator's seat does not inherit the game's settings (the operator keeps them).
            game.creator_seat = None
            session.add(game)
        if returning:
            # The former player holds the seat again: no longer one of its former players.
            for former in session.exec(
                select(FormerPlayer).where(
                    FormerPlayer.game_id == game.id, FormerPlayer.seat == row.seat
                )
            ):
                if same_person(former.email, found.email):
                    session.delete(former)

    outcome = _append(
        runtime,
        found.game_id,
        "seat_taken",
        target,
        permitted,
        change,
        new_name=name,
        returning=returning,
        target_lines=[
            "You take your seat again." if returning else f"You take over {target.name}'s seat.",
            "The seat is yours now; your link opens it. Keep it to yourself.",
        ],
    )
    return outcome


def resend_invitation(runtime: Runtime, game_id: str, seat: Any, by: int | None) -> RescueOutcome:
    """Mails the named newcomer of ``seat`` a fresh invitation link (lapsed or not) and
    retires the old one: for the game's creator (``by``, their seat) or the operator
    (``by=None``); the creator at most ``seat_rules.PER_DAY["resend"]`` times a day per
    seat. No event:
    the seat was offered already, and stays offered to the same person."""
    target = _seat(runtime, game_id, seat)
    if isinstance(by, bool) or (by is not None and not isinstance(by, int)):
        raise BadInput("Only a player of this game can ask for that.")
    token = new_token()
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        if by is not None and (game.creator_seat is None or by != game.creator_seat):
            raise NotAllowed(
                "Only the game's creator (or the server's operator) can send an invitation again."
            )
        offer = session.get(SeatOffer, (game_id, target.seat))
        if offer is None or not offer.email or not offer.token_hash:
            raise Rejected(
                f"No invitation waits for {target.name}'s seat, so there is nothing to send "
                "again. Nothing was changed."
            )
        if offer.open:
            raise Rejected(
                "This seat is open on the game's page: whoever asked for it can ask again "
                "there. Nothing was changed."
            )
        if by is not None:  # the operator keeps every power
            count_request(session, runtime, game_id, target.seat, "resend")
        now = utc(runtime.clock())
        session.add(
            RetiredLink(
                token_hash=offer.token_hash,
                game_id=game_id,
                seat=target.seat,
                message="This invitation was sent again, with a new link: the newest mail "
                "about this seat has the link that works.",
                created_at=now,
            )
        )
        offer.token_hash, offer.invited_at = hash_token(token), now
        session.add(offer)
        _invite(session, runtime, game, target, offer, token)
        session.commit()
        email = offer.email
    outcome = RescueOutcome(True, f"A fresh invitation is on its way to {email}.")
    outcome.token = token
    return outcome


def reclaim(runtime: Runtime, game_id: str, seat: int, by: int | None = None) -> RescueOutcome:
    """A bot seat goes back to its player, with a fresh link mailed to them."""
    target = _seat(runtime, game_id, seat)
    if not target.is_bot:
        raise Rejected(f"{target.name}'s seat is not played by a bot.")
    permitted = _permit(runtime, game_id, "reclaim", seat, by)
    assert isinstance(permitted, Permission)
    if not target.email:
        raise Rejected("This seat has no player to give it back to; it is open to new players.")
    token = new_token()

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        if not row.is_bot or not row.email:
            raise Rejected(f"{row.name}'s seat is not played by a bot.")
        if permitted.by == "player":
            count_request(session, runtime, game_id, seat, "rescue")
        row.is_bot = False
        row.bot_level = "normal"
        _give_link(
            session,
            runtime,
            game,
            row,
            token,
            f"Your seat is yours again ({BY_WHOM.get(permitted.by, 'as asked')}); the bot "
            "has stopped. "
            "Here is your fresh link (the old one no longer works): play your turns from it "
            'as before, or hand the seat to a bot again under "Seats and deadlines".',
        )
        seat_rules.clear_votes(session, game_id, seat)

    outcome = _append(
        runtime, game_id, "seat_reclaimed", target, permitted, change, notify_target=False
    )
    outcome.token = token
    return outcome


WHOLE_DAYS = re.compile(r"[0-9]{1,4}")


def vacation_days(days: Any, cap: int) -> int:
    """``days`` as a whole number of days from 1 to ``cap``, or :class:`BadInput`."""
    sentence = f"A vacation lasts whole days: give a number from 1 to {cap}."
    if isinstance(days, bool):
        raise BadInput(sentence)
    if isinstance(days, str) and WHOLE_DAYS.fullmatch(days.strip()):
        days = int(days.strip())
    elif isinstance(days, float) and days.is_integer():
        days = int(days)
    if not isinstance(days, int) or not 1 <= days <= cap:
        raise BadInput(sentence)
    return days


def start_vacation(
    runtime: Runtime, game_id: str, seat: int, days: Any, by: int | None = None
) -> RescueOutcome:
    """Pauses the seat's reminders and deadlines for whole ``days`` (within the cap)."""
    cap = int(float(runtime.config["scheduler"]["max_vacation_days"]))
    days = vacation_days(days, cap)
    target = _seat(runtime, game_id, seat)
    permitted = _permit(runtime, game_id, "vacation", seat, seat if by is None else by)
    assert isinstance(permitted, Permission)
    now = utc(runtime.clock())
    until = now + timedelta(days=days)

    def change(session: Session, game: Game) -> None:
        clock = _clock(session, game_id, seat)
        left = cap - clock.vacation_days_used
        if days > left + 1e-9:
            raise Rejected(
                f"This game allows {cap:g} days of vacation per seat; {left:g} are left."
            )
        count_request(session, runtime, game_id, seat, "vacation")
        clock.vacation_days_used += days
        clock.paused_until = until
        if clock.deadline_at is not None:
            clock.deadline_at += timedelta(days=days)
        if clock.remind_at is not None:
            clock.remind_at = max(clock.remind_at, until)
        session.add(clock)

    return _append(
        runtime,
        game_id,
        "vacation",
        target,
        permitted,
        change,
        days=days,
        until=_iso(until),
        notify_target=False,
    )


def end_vacation(runtime: Runtime, game_id: str, seat: int, by: int | None = None) -> RescueOutcome:
    """Ends the seat's vacation now: the unused whole days are given back, and a due
    seat's clock runs again with the deadline as far off as it was when the vacation
    began (now + what was left then; a turn that began during the vacation gets the
    policy's full time) and the first reminder ``reminder_after_hours`` from now."""
    target = _seat(runtime, game_id, seat)
    permitted = _permit(runtime, game_id, "vacation", seat, seat if by is None else by)
    assert isinstance(permitted, Permission)
    now = utc(runtime.clock())
    away = "You are not on vacation in this game; nothing was changed."

    def change(session: Session, game: Game) -> None:
        clock = _clock(session, game_id, seat)
        if clock.paused_until is None or utc(clock.paused_until) <= now:
            raise Rejected(away)
        until = utc(clock.paused_until)
        unused = int((until - now) / timedelta(days=1))
        clock.vacation_days_used = max(clock.vacation_days_used - unused, 0.0)
        if clock.deadline_at is not None:
            clock.deadline_at = now + max(utc(clock.deadline_at) - until, timedelta(0))
        if clock.turn_since is not None and clock.remind_at is not None:
            first = float(game.policy.get("reminder_after_hours", 0))
            clock.remind_at = now + timedelta(hours=first) if first > 0 else None
        clock.paused_until = None
        session.add(clock)

    with runtime.service.reading() as session:
        clock = session.get(SeatClock, (game_id, seat))
    if clock is None or clock.paused_until is None or utc(clock.paused_until) <= now:
        raise Rejected(away)
    return _append(
        runtime,
        game_id,
        "vacation_ended",
        target,
        permitted,
        change,
        notify_target=False,
    )


# Links that do not open a seat (yet, or any more) ------------------------------------


def offer_for_token(runtime: Runtime, token: Any) -> SeatOffer | None:
    """The pending invitation a link token belongs to, if any."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    with runtime.service.reading() as session:
        return session.exec(
            select(SeatOffer).where(SeatOffer.token_hash == hash_token(token))
        ).first()


def lapses_at(runtime: Runtime, offer: SeatOffer) -> datetime:
    """When ``offer``'s pending link stops working: a request for an open seat
    ``limits.seat_request_hours`` after it was mailed, a named newcomer's invitation
    ``limits.invitation_days`` after (links from before the offers were dated count from
    the offer's creation)."""
    limits = runtime.config.get("limits", {})
    since = utc(offer.invited_at or offer.created_at)
    if offer.open:
        return since + timedelta(hours=float(limits.get("seat_request_hours", 48)))
    return since + timedelta(days=float(limits.get("invitation_days", 30)))


def is_lapsed(runtime: Runtime, offer: SeatOffer) -> bool:
    """Whether ``offer``'s pending link no longer takes the seat."""
    return lapses_at(runtime, offer) <= utc(runtime.clock())


def lapsed_message(runtime: Runtime, offer: SeatOffer) -> str:
    """What a lapsed link says: since when, why, and who can send a fresh one."""
    limits = runtime.config.get("limits", {})
    moment = zones.when(lapses_at(runtime, offer), "UTC")
    page = game_url(runtime, offer.game_id)
    if offer.open:
        hours = float(limits.get("seat_request_hours", 48))
        return (
            f"This link lapsed on {moment}: a link to take an open seat works for {hours:g} "
            f"hours after it is asked for. If the seat is still open on the game's page, "
            f"{page}, you can ask for it again there."
        )
    days = float(limits.get("invitation_days", 30))
    game = runtime.service.game(offer.game_id)
    who = (
        'The game\'s creator can send it again from their "Seats and deadlines" page, and '
        "so can the server's operator"
        if game.creator_seat is not None
        else "The server's operator can send it again, and the other players can invite you "
        "again by a vote"
    )
    return (
        f"This invitation expired on {moment}: an invitation works for {days:g} days. "
        f"{who}: ask them for a fresh link."
    )


def retired_for_token(runtime: Runtime, token: Any) -> RetiredLink | None:
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    with runtime.service.reading() as session:
        return session.get(RetiredLink, hash_token(token))


def holder_seat(runtime: Runtime, token: str) -> Seat:
    """The seat a link opens; an invitation not yet accepted is refused with
    :class:`NotTaken`, a replaced player's link with :class:`Gone` (its sentence)."""
    try:
        return runtime.service.seat_for_token(token)
    except NotFound:
        offer = offer_for_token(runtime, token)
        if offer is not None and is_lapsed(runtime, offer):
            raise Gone(lapsed_message(runtime, offer)) from None
        if offer is not None:
            raise NotTaken(
                "This seat is not yours until you take it: open the link and accept the "
                "seat first. Nothing was done."
            ) from None
        retired = retired_for_token(runtime, token)
        if retired is not None:
            raise Gone(retired.message) from None
        raise


def open_seats(runtime: Runtime, game_id: str) -> list[Seat]:
    """The seats of a game that anyone outside it may ask for."""
    with runtime.service.reading() as session:
        numbers = {
            offer.seat
            for offer in session.exec(
                select(SeatOffer).where(SeatOffer.game_id == game_id, SeatOffer.open == True)  # noqa: E712
            )
        }
        return [
            row
            for row in session.exec(select(Seat).where(Seat.game_id == game_id))
            if row.seat in numbers
        ]


def game_url(runtime: Runtime, game_id: str) -> str:
    return links.game_url(runtime.config, game_id)


# Helpers -----------------------------------------------------------------------------


def _open(
    session: Session, runtime: Runtime, game: Game, row: Seat, *, open_to_all: bool
) -> SeatOffer:
    """The seat loses its player: no address, no link, no clock; it waits for a newcomer."""
    offer = session.get(SeatOffer, (game.id, row.seat)) or SeatOffer(
        game_id=game.id, seat=row.seat, created_at=utc(runtime.clock())
    )
    if offer.token_hash:
        session.add(
            RetiredLink(
                token_hash=offer.token_hash,
                game_id=game.id,
                seat=row.seat,
                message="This invitation was withdrawn; the seat went another way.",
                created_at=utc(runtime.clock()),
            )
        )
        offer.token_hash = None
        offer.invited_at = None
    offer.open = open_to_all
    offer.former_email = row.email or offer.former_email
    offer.name, offer.email = "", ""
    session.add(offer)
    session.flush()
    row.email = ""
    row.token_hash = None
    session.add(row)
    stop_turn(_clock(session, game.id, row.seat))
    seat_rules.clear_votes(session, game.id, row.seat)
    return offer


def _bot_plays(session: Session, row: Seat, level: str) -> None:
    """A bot plays the seat at ``level``: the seat's clock stops and its votes lapse."""
    row.is_bot = True
    row.bot_level = level
    session.add(row)
    stop_turn(_clock(session, row.game_id, row.seat))
    seat_rules.clear_votes(session, row.game_id, row.seat)


def _former(session: Session, runtime: Runtime, game: Game, row: Seat, reason: str) -> None:
    """Records that the person holding ``row`` stops holding it (``reason``: left, offered,
    replaced) at the event being appended: they are still told how the game ends, and a
    full export carries them."""
    if not row.email:
        return
    seq = session.exec(select(func.max(Event.seq)).where(Event.game_id == game.id)).one()
    session.add(
        FormerPlayer(
            game_id=game.id,
            seat=row.seat,
            name=row.name,
            email=row.email,
            timezone=row.timezone,
            reason=reason,
            left_seq=seq,
            left_at=utc(runtime.clock()),
        )
    )


def _retire(session: Session, runtime: Runtime, game: Game, row: Seat, message: str) -> None:
    """Remembers the seat's current link as retired, with what its holder should read."""
    if row.token_hash and session.get(RetiredLink, row.token_hash) is None:
        session.add(
            RetiredLink(
                token_hash=row.token_hash,
                game_id=game.id,
                seat=row.seat,
                message=message[:1000],
                created_at=utc(runtime.clock()),
            )
        )


def _tell(
    session: Session,
    runtime: Runtime,
    game: Game,
    row: Seat,
    key: str,
    headline: str,
    lines: list[str],
) -> None:
    """Tells the seat's (departing) player at their address that they no longer hold
    it (a ``seat_left`` notice: no link goes with it)."""
    runtime.service.tell(
        session,
        Notice(
            kind="seat_left",
            key=key,
            game_id=game.id,
            seat=row.seat,
            address=row.email,
            name=row.name,
            facts={"headline": headline, "lines": lines},
        ),
    )


def _invite(
    session: Session, runtime: Runtime, game: Game, row: Seat, offer: SeatOffer, token: str
) -> None:
    """The invitation to take ``row`` that ``offer`` holds, to the newcomer's address only,
    with the time its link lapses (a ``seat_offered`` notice)."""
    runtime.service.tell(
        session,
        Notice(
            kind="seat_offered",
            key=f"seat_invite:{game.id}:{row.seat}:{hash_token(token)[:24]}",
            game_id=game.id,
            seat=row.seat,
            address=offer.email,
            name=offer.name,
            facts={"holder": row.name, "token": token, "lapses_at": lapses_at(runtime, offer)},
        ),
    )


def issue_link(session: Session, runtime: Runtime, game_id: str, seat: int, token: str) -> None:
    """Tells the listeners a seat's new link token (a ``link_issued`` notice)."""
    runtime.service.tell(
        session,
        Notice(
            kind="link_issued",
            key=f"link:{game_id}:{seat}:{hash_token(token)[:24]}",
            game_id=game_id,
            seat=seat,
            facts={"token": token},
        ),
    )


def _not_a_player(runtime: Runtime, game_id: str, email: str) -> None:
    """A seat's link never goes to another player of the same game (one person is one
    address: case and ``+tags`` aside, :func:`pbem.validate.same_person`)."""
    for row in runtime.service.seats(game_id):
        _not_the_holder(row, email)


def _not_the_holder(row: Seat, email: str) -> None:
    """Refuses ``email`` when the person behind it holds ``row``."""
    if row.email and same_person(row.email, email):
        raise NotAllowed(
            "That address belongs to a player of this game, and a seat's link never "
            "goes to another player of the same game."
        )


def _name_free(runtime: Runtime, game_id: str, seat: int, name: str) -> None:
    """A newcomer's name is not another seat's player's (names are unique in a game)."""
    check_name_free(name, [row.name for row in runtime.service.seats(game_id) if row.seat != seat])


def _give_link(
    session: Session, runtime: Runtime, game: Game, row: Seat, token: str, message: str
) -> None:
    """Gives a seat a fresh link (the old one stops working) and mails it to the seat;
    a seat that is due starts its turn's clock afresh."""
    row.token_hash = hash_token(token)
    session.add(row)
    issue_link(session, runtime, game.id, row.seat, token)
    clock = _clock(session, game.id, row.seat)
    if row.seat in (game.to_move or []):
        start_turn(clock, game.policy, utc(runtime.clock()))
    runtime.service.tell(
        session,
        Notice(
            kind="link_given",
            key=f"seat_link:{game.id}:{row.seat}:{game.head_seq}",
            game_id=game.id,
            seat=row.seat,
            facts={"message": message, "deadline": clock.deadline_at, "even_a_bot": False},
        ),
    )


def _seat(runtime: Runtime, game_id: str, seat: Any) -> Seat:
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise BadInput("Name the seat by its number.")
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        if game.status != "active":
            raise Rejected("This game is over; its seats cannot change any more.")
        row = session.get(Seat, (game_id, seat)) if 0 <= seat < game.seat_count else None
        if row is None:
            raise NotFound("There is no such seat in this game.")
        return row


def _locked_seat(session: Session, game_id: str, seat: int) -> Seat:
    row = session.get(Seat, (game_id, seat))
    if row is None:
        raise NotFound("There is no such seat in this game.")
    return row


def _clock(session: Session, game_id: str, seat: int) -> SeatClock:
    clock = session.get(SeatClock, (game_id, seat))
    if clock is None:
        clock = SeatClock(game_id=game_id, seat=seat)
    session.add(clock)
    return clock


def _permit(
    runtime: Runtime,
    game_id: str,
    action: str,
    seat: int,
    by: int | None,
    *,
    deadline: bool = False,
    detail: str = "",
) -> Permission | RescueOutcome:
    """:func:`pbem.games.seat_rules.permit` for ``seat``: a permission, or a counted vote."""
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        target = _locked_seat(session, game_id, seat)
        result = seat_rules.permit(
            runtime, session, game, action, target, by, deadline=deadline, detail=detail
        )
    if isinstance(result, VoteCounted):
        return RescueOutcome(False, result.message, votes=result.votes, needed=result.needed)
    return result


def _append(
    runtime: Runtime,
    game_id: str,
    kind: str,
    target: Seat,
    permitted: Permission,
    change: Callable[[Session, Game], None],
    claim: Claim | None = None,
    *,
    notify_target: bool = True,
    notify_others: bool = True,
    target_lines: list[str] | None = None,
    other_lines: list[str] | None = None,
    **fields: Any,
) -> RescueOutcome:
    """Appends the event; its change, and the notices to the players, in one transaction."""
    payload = {"seat": target.seat, "name": target.name, "by": permitted.by, **fields}
    if permitted.voters:
        payload["voters"] = permitted.voters
    line = describe_admin({"kind": kind, "seat": target.seat, "payload": payload})

    def change_and_tell(session: Session, game: Game) -> None:
        if claim is not None:
            claim(session)
        change(session, game)
        seq = game.head_seq
        for other in session.exec(select(Seat).where(Seat.game_id == game_id)):
            mine = other.seat == target.seat
            if (mine and not notify_target) or (not mine and not notify_others):
                continue
            runtime.service.tell(
                session,
                Notice(
                    kind="seat_event",
                    key=f"{kind}:{game_id}:{seq}:{other.seat}",
                    game_id=game_id,
                    seat=other.seat,
                    facts={
                        "event": kind,
                        "headline": HEADLINES[kind],
                        # The seat's own player reads what happened to them in the
                        # second person.
                        "lines": list(target_lines)
                        if mine and target_lines
                        else [line, *((None if mine else other_lines) or [])],
                        # A seat just handed to a bot: its player is told all the same.
                        "even_a_bot": mine,
                    },
                ),
            )

    outcome = runtime.service.append_admin(
        game_id, kind, target.seat, payload, actor=permitted.by, change=change_and_tell
    )
    return RescueOutcome(True, line, seq=outcome.seq)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
