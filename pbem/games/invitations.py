"""Newcomers to a seat: invitations, requests for an open seat, and taking a seat.

- :func:`invite_replacement` (``seat_offered`` with a newcomer): a vote or the operator
  names a newcomer; the invitation link goes to the newcomer's address only.
- :func:`request_open_seat`: someone outside the game asks for an open seat with a name
  and an address; the invitation link goes to that address only (no event yet). Requests
  are counted per requester (:func:`pbem.games.seat_rules.count_take`), and the link
  lapses after ``limits.seat_request_hours``.
- :func:`take_seat` (``seat_taken``): an invitation link is accepted; until then it opens
  only the "take this seat" form. A named newcomer's invitation lapses after
  ``limits.invitation_days`` (:func:`pbem.games.seat_links.lapses_at`);
  :func:`resend_invitation` (the game's creator or the operator) mails a fresh link and
  retires the old one.

A seat's link never goes to another player of the same game, and a newcomer's name is
not another player's. What a pending or lapsed link says is :mod:`pbem.games.seat_links`.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from pbem.errors import BadInput, Gone, NotAllowed, NotFound, Rejected
from pbem.games import seat_rules
from pbem.games.admin_lines import BY_WHOM, HEADLINES
from pbem.games.clocks import start_turn
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.games.seat_changes import (
    RescueOutcome,
    active_seat,
    append_event,
    issue_link,
    locked_seat,
    permission,
    record_former,
    retire_link,
    seat_clock,
    tell_departing,
    vacate,
)
from pbem.games.seat_links import is_lapsed, lapsed_message, lapses_at, offer_for_token
from pbem.games.seat_rules import Permission, count_request
from pbem.games.tables import FormerPlayer, RetiredLink, SeatOffer
from pbem.games.tokens import hash_token, new_token
from pbem.i18n import T
from pbem.models import Game, Seat
from pbem.validate import (
    canonical_address,
    check_name_free,
    clean_email,
    clean_name,
    is_game_id,
    same_person,
)
from pbem.zones import utc


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
    target = active_seat(runtime, game_id, seat)
    _not_a_player(runtime, game_id, email)
    _name_free(runtime, game_id, target.seat, name)
    permitted = permission(runtime, game_id, "replace", seat, by, detail=email.lower())
    if isinstance(permitted, RescueOutcome):
        return permitted
    token = new_token()
    whom = BY_WHOM[permitted.by]

    def change(session: Session, game: Game) -> None:
        row = locked_seat(session, game_id, seat)
        retire_link(
            session,
            runtime,
            game,
            row,
            f"Your seat in {game.title} was given to a new player {whom}. Ask the other "
            "players or the server's operator if you want to play again.",
        )
        if row.email and not row.seat == by:
            tell_departing(
                session,
                runtime,
                game,
                row,
                f"former:seat_replaced:{game_id}:{seat}:{game.head_seq}",
                HEADLINES["seat_offered"],
                [
                    T(
                        "Your seat is given to a new player %(by)s; your link no longer opens it.",
                        by=whom,
                    ),
                    T(
                        "If you want to play again, write to the other players; if the "
                        "newcomer does not take the seat, they or the operator can invite "
                        "you back."
                    ),
                ],
            )
        record_former(session, runtime, game, row, "replaced")
        offer = vacate(session, runtime, game, row, open_to_all=False)
        offer.name, offer.email, offer.token_hash = name, email, hash_token(token)
        offer.invited_at = utc(runtime.clock())
        session.add(offer)
        invite(session, runtime, game, row, offer, token)

    outcome = append_event(
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
        raise NotFound(T("There is no such game."))
    name, email = clean_name(name), clean_email(email)
    target = active_seat(runtime, game_id, seat)
    _not_a_player(runtime, game_id, email)
    _name_free(runtime, game_id, target.seat, name)
    token = new_token()
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        offer = session.get(SeatOffer, (game_id, target.seat))
        if offer is None or not offer.open:
            raise NotAllowed(T("This seat is not open to new players."))
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
        invite(session, runtime, game, target, offer, token)
        session.commit()
    outcome = RescueOutcome(
        True,
        T(
            "A link to take the seat is on its way to %(address)s; it works once.",
            address=str(email),
        ),
    )
    outcome.token = token
    return outcome


def take_seat(runtime: Runtime, token: str, name: Any = None) -> RescueOutcome:
    """The holder of an invitation link accepts the seat; from now on the same link opens
    it. ``name`` may change the name the invitation gave."""
    found = offer_for_token(runtime, token)
    if found is None:
        raise NotFound(T("This link is not valid (it may have been replaced)."))
    if is_lapsed(runtime, found):
        raise Gone(lapsed_message(runtime, found))
    name = clean_name(name) if name not in (None, "") else found.name
    target = active_seat(runtime, found.game_id, found.seat)
    permitted = Permission("newcomer")
    token_hash = hash_token(token)
    returning = same_person(found.former_email, found.email)

    def change(session: Session, game: Game) -> None:
        offer = session.get(SeatOffer, (found.game_id, found.seat))
        if offer is None or offer.token_hash != token_hash:
            raise Rejected(T("This invitation was replaced or used already."))
        if is_lapsed(runtime, offer):
            raise Gone(lapsed_message(runtime, offer))
        row = locked_seat(session, found.game_id, found.seat)
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
        clock = seat_clock(session, game.id, row.seat)
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

    outcome = append_event(
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
    target = active_seat(runtime, game_id, seat)
    if isinstance(by, bool) or (by is not None and not isinstance(by, int)):
        raise BadInput(T("Only a player of this game can ask for that."))
    token = new_token()
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        if by is not None and (game.creator_seat is None or by != game.creator_seat):
            raise NotAllowed(
                T(
                    "Only the game's creator (or the server's operator) can send an invitation again."
                )
            )
        offer = session.get(SeatOffer, (game_id, target.seat))
        if offer is None or not offer.email or not offer.token_hash:
            raise Rejected(
                T(
                    "No invitation waits for %(name)s's seat, so there is nothing to send "
                    "again. Nothing was changed.",
                    name=target.name,
                )
            )
        if offer.open:
            raise Rejected(
                T(
                    "This seat is open on the game's page: whoever asked for it can ask again "
                    "there. Nothing was changed."
                )
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
        invite(session, runtime, game, target, offer, token)
        session.commit()
        email = offer.email
    outcome = RescueOutcome(
        True, T("A fresh invitation is on its way to %(address)s.", address=str(email))
    )
    outcome.token = token
    return outcome


def invite(
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


def _not_a_player(runtime: Runtime, game_id: str, email: str) -> None:
    """A seat's link never goes to another player of the same game (one person is one
    address: case and ``+tags`` aside, :func:`pbem.validate.same_person`)."""
    for row in runtime.service.seats(game_id):
        _not_the_holder(row, email)


def _not_the_holder(row: Seat, email: str) -> None:
    """Refuses ``email`` when the person behind it holds ``row``."""
    if row.email and same_person(row.email, email):
        raise NotAllowed(
            T(
                "That address belongs to a player of this game, and a seat's link never "
                "goes to another player of the same game."
            )
        )


def _name_free(runtime: Runtime, game_id: str, seat: int, name: str) -> None:
    """A newcomer's name is not another seat's player's (names are unique in a game)."""
    check_name_free(name, [row.name for row in runtime.service.seats(game_id) if row.seat != seat])
