"""Who may act on a seat: one table, checked in one place (:func:`permit`).

A seat is *present* while its player holds it and is not past a deadline. It becomes
*absent* only by its own clock (its turn's deadline has passed) or by its own player's
request (handed to a bot, left the game); a seat waiting for a new player is absent too.
Nobody acts against a present player. Against an absent seat the deadline policy acts,
or a vote of a majority of the *other human* seats, with at least two voters: in a
two-player game only the policy and the player themself can move a seat. The game's
creator has one vote like everybody else. The operator (command line, ``by=None``)
keeps every power and is recorded as the operator.

README.md's "Who may act on a seat" shows the same table (a test keeps them equal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from engines.text import Text
from pbem.errors import BadInput, NotAllowed, TooMany
from pbem.games.context import Runtime
from pbem.games.tables import FormerPlayer, RescueVote, SeatClock, SeatOffer, SeatRequest
from pbem.i18n import T, current_language
from pbem.models import Game, Seat
from pbem.zones import utc, when

ALWAYS = "yes"
IF_ABSENT = "only if absent"
NEVER = "no"

ACTORS = ("player", "deadline", "vote", "operator", "newcomer")
ACTOR_TITLES = {
    "player": "the seat's own player (from their link)",
    "deadline": "the deadline policy",
    "vote": "a vote of the other human seats (majority, at least 2)",
    "operator": "the operator (command line)",
    "newcomer": "someone outside the game",
}

# action: (its description, who may do it: actor -> ALWAYS / IF_ABSENT / NEVER)
WHO_MAY: dict[str, tuple[str, dict[str, str]]] = {
    "to_bot": (
        "hand the seat to a bot",
        {"player": ALWAYS, "deadline": IF_ABSENT, "vote": IF_ABSENT, "operator": ALWAYS},
    ),
    "leave": ("leave the game (the seat becomes open)", {"player": ALWAYS}),
    "resign": (
        "resign (a bot plays the seat to the end; it cannot be taken back)",
        {"player": ALWAYS},
    ),
    "reclaim": ("take a bot seat back", {"player": ALWAYS, "operator": ALWAYS}),
    "vacation": ("pause the seat's deadlines (whole days)", {"player": ALWAYS}),
    "open": ("open the seat to newcomers (policy `replace`)", {"deadline": IF_ABSENT}),
    "replace": (
        "give the seat to a named newcomer (who must accept)",
        {"vote": IF_ABSENT, "operator": ALWAYS},
    ),
    "take": (
        "ask for an open seat (the link goes to the given address only)",
        {"newcomer": ALWAYS},
    ),
}

# Requests per seat in any 24 hours (counted in the database, so every worker agrees).
# Requests for an open seat are counted per requester instead (:func:`count_take`).
PER_DAY = {"vacation": 3, "rescue": 10, "resend": 3}

# Requests for open seats in any 24 hours, per requester: ``limits.<key>`` (default).
TAKE_LIMITS = {
    "requester": ("seat_requests_per_address_per_day", 3),
    "client": ("seat_requests_per_client_per_day", 10),
}


def may(action: str, actor: str) -> str:
    """What the table says about ``actor`` doing ``action``."""
    return WHO_MAY[action][1].get(actor, NEVER)


def markdown_table() -> str:
    """The table as README.md shows it."""
    head = "| action | " + " | ".join(ACTOR_TITLES[actor] for actor in ACTORS) + " |"
    rule = "| --- |" + " --- |" * len(ACTORS)
    rows = [
        f"| {text} | " + " | ".join(may(action, actor) for actor in ACTORS) + " |"
        for action, (text, _) in WHO_MAY.items()
    ]
    return "\n".join([head, rule, *rows])


@dataclass
class Permission:
    """Who carried an action: ``player``, ``deadline``, ``vote`` (with its voters),
    ``operator`` or ``newcomer``."""

    by: str
    voters: list[int] = field(default_factory=list)


@dataclass
class VoteCounted:
    """A vote was recorded; not enough yet."""

    votes: int
    needed: int

    @property
    def message(self) -> str:
        return f"Your vote is counted: {self.votes} of the {self.needed} needed."


def absence(session: Session, game: Game, seat: Seat, now: datetime) -> str | None:
    """Why ``seat`` is absent (``open``, ``bot`` or ``late``), or None when its player is
    present."""
    if session.get(SeatOffer, (game.id, seat.seat)) is not None or not seat.email:
        return "open"
    if seat.is_bot:
        return "bot"
    clock = session.get(SeatClock, (game.id, seat.seat))
    if clock is None or clock.turn_since is None or seat.seat not in (game.to_move or []):
        return None
    if clock.deadline_at is not None:
        return "late" if utc(clock.deadline_at) <= now else None
    # The sweep clears a passed deadline (or leases it while it acts); a turn that had one
    # and has none any more is past it.
    return "late" if float(game.policy.get("deadline_after_days", 0) or 0) > 0 else None


def absence_key(session: Session, game: Game, seat: Seat, now: datetime) -> str | None:
    """Names the current absence, so votes from an earlier one do not count."""
    why = absence(session, game, seat, now)
    if why != "late":
        return why
    clock = session.get(SeatClock, (game.id, seat.seat))
    return f"late@{utc(clock.turn_since):%Y%m%d%H%M%S}"


def is_resigned(session: Session, game_id: str, seat: int) -> bool:
    """Whether ``seat``'s player resigned (its :class:`FormerPlayer` row says so): a bot
    plays it to the end, and no action may move it again."""
    return (
        session.exec(
            select(FormerPlayer.id).where(
                FormerPlayer.game_id == game_id,
                FormerPlayer.seat == seat,
                FormerPlayer.reason == "resigned",
            )
        ).first()
        is not None
    )


def resigned_seats(session: Session, game_id: str) -> set[int]:
    """The seats of ``game_id`` whose players resigned."""
    return set(
        session.exec(
            select(FormerPlayer.seat).where(
                FormerPlayer.game_id == game_id, FormerPlayer.reason == "resigned"
            )
        )
    )


def is_holder(session: Session, seat: Seat) -> bool:
    """Whether a person holds ``seat`` (a human with an address, not waiting for a
    newcomer)."""
    return (
        bool(seat.email)
        and not seat.is_bot
        and session.get(SeatOffer, (seat.game_id, seat.seat)) is None
    )


def permit(
    runtime: Runtime,
    session: Session,
    game: Game,
    action: str,
    target: Seat,
    by: int | None,
    *,
    deadline: bool = False,
    detail: str = "",
) -> Permission | VoteCounted:
    """Whether ``by`` may do ``action`` to ``target`` now, by the table: a
    :class:`Permission`, or the vote ``by`` cast (committed), or :class:`NotAllowed`."""
    text = WHO_MAY[action][0]
    now = utc(runtime.clock())
    if is_resigned(session, game.id, target.seat):
        raise NotAllowed(
            T(
                "%(name)s resigned; a bot plays the seat to the end of the game, and "
                "nothing about it can change any more.",
                name=target.name,
            )
        )
    if deadline:
        # The sweep acts only on a deadline it has claimed, so the seat is past it.
        if may(action, "deadline") == NEVER:
            raise NotAllowed(f"The deadline policy cannot {text}.")
        return Permission("deadline")
    if by is None:
        if may(action, "operator") == NEVER:
            raise NotAllowed(f"Only the seat's own player can {text}.")
        return Permission("operator")
    if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by < game.seat_count:
        raise BadInput(T("Only a player of this game can ask for that."))
    if by == target.seat:
        if may(action, "player") == NEVER:
            raise NotAllowed(
                T(
                    "The other players or the deadline decide about that for your seat, "
                    "and only while you are away."
                )
            )
        return Permission("player")
    voter = session.get(Seat, (game.id, by))
    if voter is None or not is_holder(session, voter):
        raise NotAllowed(T("Only a player who holds a seat of this game can vote."))
    if may(action, "vote") == NEVER:
        raise NotAllowed(_only_their_own(action, target.name, text))
    why = absence_key(session, game, target, now)
    if why is None:
        raise NotAllowed(
            T(
                "%(name)s is present (their deadline has not passed), and nobody acts "
                "against a present player.",
                name=target.name,
            )
        )
    eligible = [
        row.seat
        for row in session.exec(select(Seat).where(Seat.game_id == game.id))
        if row.seat != target.seat and is_holder(session, row)
    ]
    if len(eligible) < 2:
        raise NotAllowed(
            T(
                "Fewer than two other players hold seats in this game, so only the deadline "
                "policy or %(name)s themself can move this seat.",
                name=target.name,
            )
        )
    needed = len(eligible) // 2 + 1
    key = f"{action}:{target.seat}:{why}:{detail}"[:400]
    if session.get(RescueVote, (game.id, key, by)) is None:
        count_request(session, runtime, game.id, by, "rescue")
        session.add(RescueVote(game_id=game.id, action=key, voter=by, created_at=now))
        session.commit()
    voters = sorted(
        voter
        for voter in session.exec(
            select(RescueVote.voter).where(RescueVote.game_id == game.id, RescueVote.action == key)
        )
        if voter in eligible
    )
    if len(voters) >= needed:
        return Permission("vote", voters)
    return VoteCounted(len(voters), needed)


def count_request(session: Session, runtime: Runtime, game_id: str, seat: int, kind: str) -> None:
    """Counts a request of ``kind`` by ``seat``; :class:`TooMany` past the day's limit
    (nothing is written then), saying when the seat may ask again."""
    now = utc(runtime.clock())
    made = _made(
        session,
        now,
        SeatRequest.game_id == game_id,
        SeatRequest.seat == seat,
        SeatRequest.kind == kind,
    )
    limit = PER_DAY[kind]
    if len(made) >= limit:
        later = again(made, limit, now)
        raise TooMany(
            {
                "vacation": T(
                    "That makes too many vacation requests in a day (at most %(most)d); %(again)s",
                    most=limit,
                    again=later,
                ),
                "rescue": T(
                    "That makes too many requests about seats in a day (at most %(most)d); "
                    "%(again)s",
                    most=limit,
                    again=later,
                ),
                "resend": T(
                    "That makes too many invitations sent again for this seat in a day (at "
                    "most %(most)d); %(again)s",
                    most=limit,
                    again=later,
                ),
            }[kind]
        )
    session.add(SeatRequest(game_id=game_id, seat=seat, kind=kind, created_at=now))


def count_take(
    session: Session,
    runtime: Runtime,
    game_id: str,
    seat: int,
    requester: str,
    client: str | None,
) -> None:
    """Counts a request for an open seat by the person behind ``requester`` (a canonical
    address, :func:`pbem.validate.canonical_address`) and from ``client`` (the web
    client's address; None from the command line), whatever seat or game they ask for:
    :class:`TooMany` past either day's limit (``limits.seat_requests_per_address_per_day``,
    ``limits.seat_requests_per_client_per_day``), and nothing is written then. Nobody's
    requests count against anybody else, so no one can lock others out of a seat."""
    now = utc(runtime.clock())
    limits = runtime.config.get("limits", {})
    asking = {"requester": requester, "client": (client or "")[:64]}
    for key, (setting, default) in TAKE_LIMITS.items():
        if not asking[key]:
            continue
        limit = int(limits.get(setting, default))
        made = _made(
            session, now, SeatRequest.kind == "take", getattr(SeatRequest, key) == asking[key]
        )
        if len(made) >= limit:
            later = again(made, limit, now)
            if key == "requester":
                raise TooMany(
                    T(
                        "Seats were asked for from this address %(made)d times in the last 24 "
                        "hours, and at most %(most)d are allowed; %(again)s",
                        made=len(made),
                        most=limit,
                        again=later,
                    )
                )
            raise TooMany(
                T(
                    "Seats were asked for from your network address %(made)d times in the "
                    "last 24 hours, and at most %(most)d are allowed; %(again)s",
                    made=len(made),
                    most=limit,
                    again=later,
                )
            )
    session.add(SeatRequest(game_id=game_id, seat=seat, kind="take", created_at=now, **asking))


def _made(session: Session, now: datetime, *where: Any) -> list[datetime]:
    """When the requests matching ``where`` were made in the 24 hours before ``now``,
    oldest first."""
    since = now - timedelta(days=1)
    return [
        utc(moment)
        for moment in session.exec(
            select(SeatRequest.created_at)
            .where(*where, col(SeatRequest.created_at) > since)
            .order_by(col(SeatRequest.created_at))
        )
    ]


def again(made: list[datetime], limit: int, now: datetime) -> Text:
    """When a request may be made again, in words: once enough of ``made`` (oldest
    first) are more than a day old that fewer than ``limit`` remain (the time in the
    language of the page or mail being written)."""
    moment = made[len(made) - limit] + timedelta(days=1)
    return T(
        "you can ask again from %(moment)s. Nothing was changed.",
        moment=when(moment, "UTC", now, language=current_language()),
    )


def _only_their_own(action: str, name: str, text: str) -> str:
    """The refusal of a vote on ``action``, which only the seat's own player may ask."""
    sentences = {
        "leave": T("Only %(name)s can leave the game for their own seat.", name=name),
        "resign": T("Only %(name)s can resign for their own seat.", name=name),
        "reclaim": T("Only %(name)s can take a bot seat back for their own seat.", name=name),
        "vacation": T(
            "Only %(name)s can pause the seat's deadlines for their own seat.", name=name
        ),
        "take": T("Only %(name)s can ask for an open seat for their own seat.", name=name),
    }
    return sentences.get(action) or f"Only {name} can {text} for their own seat."


def clear_votes(session: Session, game_id: str, seat: int) -> None:
    """Forgets every vote about ``seat`` (it changed hands, or its player came back)."""
    for vote in session.exec(select(RescueVote).where(RescueVote.game_id == game_id)):
        parts = vote.action.split(":")
        if len(parts) > 1 and parts[1] == str(seat):
            session.delete(vote)
