"""The mails of open games (:mod:`pbem.games.open_games`), from their notices: no game
runs yet, so each goes to an address, not a seat.

- ``open_created``: the creator gets the link to her game's page;
- ``open_hold``: someone who asked for a seat gets the link to confirm it (to the
  address they gave only), and when it lapses;
- ``open_joined``: the creator hears who took a seat, and how many are left;
- ``open_cancelled``: whoever held a seat hears that the creator called the game off.

The game's own mails (every player's invitation with their link) come when it starts,
from the game's creation (:mod:`pbem.mail.listener`).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from pbem import links, zones
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.mail import outbox

KINDS = frozenset({"open_created", "open_hold", "open_joined", "open_cancelled"})


def on_open_notice(runtime: Runtime, session: Session, notice: Notice) -> None:
    """Writes the mail of an open game's notice, in its transaction."""
    outbox.enqueue(
        session,
        runtime,
        "open",
        key=notice.key,
        recipient=notice.address,
        context=notice_context(runtime, notice),
    )


def notice_context(runtime: Runtime, notice: Notice) -> dict[str, Any]:
    """What the ``open`` mail of ``notice`` says."""
    facts, config = notice.facts, runtime.config
    title = facts["title"]
    if notice.kind == "open_created":
        subject = f"{title}: listed for players to join"
        headline = f"Your game {title} is listed for players to join."
        lines = [
            "It starts when every open seat is taken and confirmed. From its page you see "
            "who joined, and you can start it at once with bots in the seats still open.",
            "Keep this link to yourself: it is your page of the game.",
        ]
        link = [("Your game's page", links.open_manage_url(config, facts["token"]))]
    elif notice.kind == "open_hold":
        until = zones.when(facts["lapses_at"], "UTC")
        subject = f"{title}: please confirm your seat"
        headline = f"Please confirm your seat in {title}."
        lines = [
            "Someone (we hope you) asked for a seat in this game with this address. Open "
            "the link and confirm to take the seat; nothing happens until you do.",
            f"The seat is held for you until {until}; after that the link lapses and the "
            "seat is open to others again.",
            "If you did not ask for it, ignore this mail: you will hear nothing more.",
        ]
        link = [("Confirm your seat", links.open_confirm_url(config, facts["token"]))]
    elif notice.kind == "open_cancelled":
        subject = f"{title}: called off"
        headline = f"{title} was called off."
        lines = [
            "Its creator called the game off before it started, so your seat in it is "
            "gone. Nothing more will come about it.",
        ]
        link = [("Other games looking for players", f"{links.base_url(config)}/open")]
    else:
        left = int(facts["left"])
        subject = f"{title}: {facts['joined']} took a seat"
        headline = f"{facts['joined']} took a seat in {title}."
        lines = [
            "Every open seat is taken: the game starts now, and your link comes in the next mail."
            if left == 0
            else f"{left} open seat{'' if left == 1 else 's'} still to be taken."
        ]
        link = [("The game's page", links.open_url(config, notice.game_id))]
    return {
        "subject": subject,
        "title": title,
        "name": notice.name,
        "headline": headline,
        "lines": lines,
        "links": link,
    }
