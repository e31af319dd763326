"""Rescuing games: a seat handed to a bot, left, resigned, offered, or taken back.

Who may do what to a seat is :mod:`pbem.games.seat_rules` (one table, checked in
:func:`pbem.games.seat_rules.permit`); this module carries the main actions out. Each
action is one administrative event in the game's log (a line in its history), appended
with its read-model change and its mails in the same transaction
(:mod:`pbem.games.seat_changes`):

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
- :func:`reclaim` (``seat_reclaimed``): a bot seat goes back to its player, who is
  mailed a fresh link (the old one stops working).

Newcomers (invitations, requests for an open seat, taking a seat) are
:mod:`pbem.games.invitations`; vacations are :mod:`pbem.games.vacations`.

The player whose seat is moved is always told by mail: what happened, by whom, and how
to come back. A replaced player's old link shows a page that says so (see
:func:`pbem.games.seat_links.holder_seat`). Every function returns a
:class:`RescueOutcome`; refusals raise the service's errors with a message fit to show
the player.
"""

from __future__ import annotations

from sqlmodel import Session

from pbem.errors import BadInput, Rejected
from pbem.games import seat_rules
from pbem.games.admin_lines import BY_WHOM, HEADLINES
from pbem.games.clocks import start_turn, stop_turn
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.games.seat_changes import (
    Claim,
    RescueOutcome,
    active_seat,
    append_event,
    game_url,
    issue_link,
    locked_seat,
    permission,
    record_former,
    retire_link,
    seat_clock,
    tell_departing,
    vacate,
)
from pbem.games.seat_rules import Permission, count_request
from pbem.games.tokens import hash_token, new_token
from pbem.i18n import T
from pbem.models import Game, Seat
from pbem.zones import utc


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
        raise BadInput(
            T("A bot plays this game at one of these levels: %(levels)s.", levels=", ".join(levels))
        )
    target = active_seat(runtime, game_id, seat)
    if target.is_bot:
        return RescueOutcome(True, T("A bot already plays %(name)s's seat.", name=str(target.name)))
    permitted = permission(runtime, game_id, "to_bot", seat, by, deadline=claim is not None)
    if isinstance(permitted, RescueOutcome):
        return permitted

    def change(session: Session, game: Game) -> None:
        row = locked_seat(session, game_id, seat)
        if row.is_bot:
            raise Rejected(T("A bot already plays %(name)s's seat.", name=row.name))
        if permitted.by == "player":
            count_request(session, runtime, game_id, seat, "rescue")
        _bot_plays(session, row, level)

    outcome = append_event(
        runtime,
        game_id,
        "seat_to_bot",
        target,
        permitted,
        change,
        claim=claim,
        level=level,
        target_lines=[
            T("From now on a bot plays your seat, %(by)s.", by=BY_WHOM[permitted.by]),
            T(
                'Your link still works: open it, go to "Seats and deadlines" and choose '
                '"Take my seat back" at any time.'
            ),
        ],
    )
    return outcome


def leave_game(runtime: Runtime, game_id: str, seat: int, by: int | None) -> RescueOutcome:
    """The seat's own player leaves: their link is retired, a bot keeps the seat going and
    the seat is open on the game's public page."""
    target = active_seat(runtime, game_id, seat)
    permitted = permission(runtime, game_id, "leave", seat, by)
    assert isinstance(permitted, Permission)
    page = game_url(runtime, game_id)

    def change(session: Session, game: Game) -> None:
        row = locked_seat(session, game_id, seat)
        if not row.email:
            raise Rejected(T("This seat has no player to leave it."))
        count_request(session, runtime, game_id, seat, "rescue")
        come_back = (
            f"The seat is open on the game's page, {page}; to come back, ask for it there "
            "with your address while nobody else has taken it."
        )
        retire_link(session, runtime, game, row, f"You left {game.title}. {come_back}")
        tell_departing(
            session,
            runtime,
            game,
            row,
            f"former:seat_left:{game_id}:{seat}:{game.head_seq}",
            HEADLINES["seat_left"],
            [
                T(
                    "You left %(title)s, as you asked; your link no longer opens the seat.",
                    title=game.title,
                ),
                T("A bot plays your seat until a new player takes it."),
                T(
                    "The seat is open on the game's page, %(page)s; to come back, ask for it "
                    "there with your address while nobody else has taken it.",
                    page=page,
                ),
            ],
        )
        record_former(session, runtime, game, row, "left")
        vacate(session, runtime, game, row, open_to_all=True)
        row.is_bot = True
        session.add(row)

    outcome = append_event(
        runtime,
        game_id,
        "seat_left",
        target,
        permitted,
        change,
        notify_target=False,
        other_lines=[
            T("A new player can ask for the seat on the game's page: %(page)s", page=page)
        ],
    )
    return outcome


def resign(runtime: Runtime, game_id: str, seat: int, by: int | None) -> RescueOutcome:
    """The seat's own player resigns. What that means is the engine's; for
    ``"bot_plays_on"`` (every title here) a bot plays the seat to the end: the link is
    retired, the seat is not open to newcomers, nobody can take it back, and the player
    is still told how the game ends. Refused while the game is paused."""
    from engines import get_engine
    from engines.api import resignation_of

    target = active_seat(runtime, game_id, seat)
    game = runtime.service.game(game_id)
    meaning = resignation_of(get_engine(game.engine, game.engine_version))
    paused = T("The game is paused: nobody can resign until it goes on. Nothing was changed.")
    if game.paused_at is not None:
        raise Rejected(paused)
    permitted = permission(runtime, game_id, "resign", seat, by)
    assert isinstance(permitted, Permission)
    level = target.bot_level if target.is_bot and target.bot_level else "normal"
    page = game_url(runtime, game_id)

    def change(session: Session, game: Game) -> None:
        row = locked_seat(session, game_id, seat)
        if not row.email or not row.token_hash:
            raise Rejected(T("This seat has no player to resign it."))
        if game.paused_at is not None:
            raise Rejected(paused)
        count_request(session, runtime, game_id, seat, "rescue")
        retire_link(
            session,
            runtime,
            game,
            row,
            f"You resigned from {game.title}; a bot plays your seat to the end of the game. "
            "You will get the result by mail when the game ends.",
        )
        tell_departing(
            session,
            runtime,
            game,
            row,
            f"former:seat_resigned:{game_id}:{seat}:{game.head_seq}",
            T("Your resignation is recorded"),
            [
                T(
                    "You resigned from %(title)s, as you asked; your link no longer opens "
                    "the seat.",
                    title=game.title,
                ),
                T("A bot plays your seat to the end of the game; the seat cannot be taken back."),
                T(
                    "You will get the result by mail when the game ends. The game's page: %(page)s",
                    page=page,
                ),
            ],
        )
        record_former(session, runtime, game, row, "resigned")
        row.email = ""
        row.token_hash = None
        _bot_plays(session, row, level)

    outcome = append_event(
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
    return outcome


def offer_seat(
    runtime: Runtime, game_id: str, seat: int, claim: Claim | None = None
) -> RescueOutcome:
    """The deadline policy ``replace``: the seat's link is retired and the seat is open on
    the game's public page, where a newcomer asks for it (its link goes to nobody)."""
    target = active_seat(runtime, game_id, seat)
    permitted = permission(runtime, game_id, "open", seat, None, deadline=True)
    assert isinstance(permitted, Permission)
    page = game_url(runtime, game_id)

    def change(session: Session, game: Game) -> None:
        row = locked_seat(session, game_id, seat)
        come_back = (
            f"The seat is open on the game's page, {page}; to come back, ask for it there "
            "with your address while nobody else has taken it."
        )
        retire_link(
            session,
            runtime,
            game,
            row,
            f"The deadline of your turn in {game.title} passed, so your seat was offered "
            f"to a new player. {come_back}",
        )
        if row.email:
            tell_departing(
                session,
                runtime,
                game,
                row,
                f"former:seat_offered:{game_id}:{seat}:{game.head_seq}",
                HEADLINES["seat_offered"],
                [
                    T(
                        "The deadline of your turn passed, so your seat is offered to a new "
                        "player; your link no longer opens it."
                    ),
                    T(
                        "The seat is open on the game's page, %(page)s; to come back, ask for "
                        "it there with your address while nobody else has taken it.",
                        page=page,
                    ),
                ],
            )
        record_former(session, runtime, game, row, "offered")
        vacate(session, runtime, game, row, open_to_all=True)

    return append_event(
        runtime,
        game_id,
        "seat_offered",
        target,
        permitted,
        change,
        claim=claim,
        notify_target=False,
        other_lines=[
            T("A new player can ask for the seat on the game's page: %(page)s", page=page)
        ],
    )


# What a reclaimed seat's old link answers: what happened, and where the working link is.
RECLAIMED_LINK = (
    "This seat was taken back from the bot that played it, and a fresh link went to its "
    "player by mail; this old link stopped working then. If the seat is yours, open the "
    "newest mail from this game and play from the link in it. No such mail? Look in your "
    "spam folder, or ask the game's creator to send your link again."
)


def reclaim(runtime: Runtime, game_id: str, seat: int, by: int | None = None) -> RescueOutcome:
    """A bot seat goes back to its player, with a fresh link mailed to them."""
    target = active_seat(runtime, game_id, seat)
    if not target.is_bot:
        raise Rejected(T("%(name)s's seat is not played by a bot.", name=target.name))
    permitted = permission(runtime, game_id, "reclaim", seat, by)
    assert isinstance(permitted, Permission)
    if not target.email:
        raise Rejected(T("This seat has no player to give it back to; it is open to new players."))
    token = new_token()

    def change(session: Session, game: Game) -> None:
        row = locked_seat(session, game_id, seat)
        if not row.is_bot or not row.email:
            raise Rejected(T("%(name)s's seat is not played by a bot.", name=row.name))
        if permitted.by == "player":
            count_request(session, runtime, game_id, seat, "rescue")
        row.is_bot = False
        row.bot_level = "normal"
        retire_link(session, runtime, game, row, RECLAIMED_LINK)
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

    outcome = append_event(
        runtime, game_id, "seat_reclaimed", target, permitted, change, notify_target=False
    )
    outcome.token = token
    return outcome


def _bot_plays(session: Session, row: Seat, level: str) -> None:
    """A bot plays the seat at ``level``: the seat's clock stops and its votes lapse."""
    row.is_bot = True
    row.bot_level = level
    session.add(row)
    stop_turn(seat_clock(session, row.game_id, row.seat))
    seat_rules.clear_votes(session, row.game_id, row.seat)


def _give_link(
    session: Session, runtime: Runtime, game: Game, row: Seat, token: str, message: str
) -> None:
    """Gives a seat a fresh link (the old one stops working) and mails it to the seat;
    a seat that is due starts its turn's clock afresh."""
    row.token_hash = hash_token(token)
    session.add(row)
    issue_link(session, runtime, game.id, row.seat, token)
    clock = seat_clock(session, game.id, row.seat)
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
