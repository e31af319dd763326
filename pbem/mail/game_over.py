"""The game-over mail: the result and the seed to every person who held a seat when
the game ends: each seat's player (a seat a bot plays now included) and every former
player (:class:`~pbem.games.tables.FormerPlayer`: replaced, or left), one mail per
former address.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from pbem import i18n
from pbem.games import results, seat_rules
from pbem.games.context import Runtime
from pbem.games.outcomes import Transition
from pbem.games.tables import FormerPlayer
from pbem.mail.history import HISTORY_LIMIT, history, since_last_move
from pbem.mail.models import Mail
from pbem.mail.outbox import address_language
from pbem.mail.seat_mails import mail_former, mail_seat
from pbem.models import Game, Seat
from pbem.words import join_names


def game_over_mails(
    session: Session, runtime: Runtime, transition: Transition, seats: dict[int, Seat]
) -> None:
    """The ``game_over`` mails: to every seat's player (a seat a bot plays now included)
    and to every former player, one mail per address, each once."""
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

    def over(language: str | None) -> dict[str, Any]:
        """The result in ``language`` (who won and who resigned, in its words)."""
        with i18n.speaking(language):
            names = [
                i18n.gettext("%(name)s (resigned)", name=seats[n].name)
                if n in resigned
                else seats[n].name
                for n in sorted(seats)
            ]
            return game_over_context(game, names)

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
            **over(seat.language),
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
            **over(address_language(session, former.email)),
        )


def game_over_context(game: Game, names: list[str]) -> dict[str, Any]:
    """The result as the game-over mail shows it (:func:`pbem.games.results.standings`):
    ``headline`` ("Anna wins."), ``reason`` (a sentence that names no one) and
    ``standings``, winners first: each row's ``rank``, ``name``, ``winner`` and
    ``score`` (its figures as text, "Coins: 14, Goods: 3"); the headline in the spoken
    language (:func:`winners_headline`)."""
    standing = results.standings(game.result, names, game.engine) or {
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
    headline = winners_headline([row["name"] for row in standing["rows"] if row["winner"]])
    return {"headline": headline, "reason": standing["reason"], "standings": rows}


def winners_headline(winners: list[str]) -> str:
    """Who won, in the spoken language: "Anna wins.", "Anna and Ben share the win."
    (:func:`pbem.games.results.standings` says it in English)."""
    if not winners:
        return ""
    return i18n.ngettext(
        "%(names)s wins.",
        "%(names)s share the win.",
        len(winners),
        names=join_names(winners, i18n.spoken()),
    )
