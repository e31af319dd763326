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

from pbem import i18n, links, zones
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.i18n import gettext, ngettext
from pbem.mail import outbox

KINDS = frozenset({"open_created", "open_hold", "open_joined", "open_cancelled"})


def on_open_notice(runtime: Runtime, session: Session, notice: Notice) -> None:
    """Writes the mail of an open game's notice, in its transaction, in the language of
    the address (:func:`pbem.mail.outbox.address_language`)."""
    language = outbox.address_language(session, notice.address)
    with i18n.speaking(language):
        context = notice_context(runtime, notice)
    outbox.enqueue(
        session,
        runtime,
        "open",
        key=notice.key,
        recipient=notice.address,
        context={**context, "language": language},
    )


def notice_context(runtime: Runtime, notice: Notice) -> dict[str, Any]:
    """What the ``open`` mail of ``notice`` says, in the spoken language
    (:func:`pbem.i18n.speaking`)."""
    facts, config = notice.facts, runtime.config
    title = facts["title"]
    if notice.kind == "open_created":
        subject = gettext("%(title)s: listed for players to join", title=title)
        headline = gettext("Your game %(title)s is listed for players to join.", title=title)
        lines = [
            gettext(
                "It starts when every open seat is taken and confirmed. From its page you "
                "see who joined, and you can start it at once with bots in the seats still "
                "open."
            ),
            gettext("Keep this link to yourself: it is your page of the game."),
        ]
        link = [(gettext("Your game's page"), links.open_manage_url(config, facts["token"]))]
    elif notice.kind == "open_hold":
        until = zones.when(facts["lapses_at"], "UTC", None, i18n.spoken())
        subject = gettext("%(title)s: please confirm your seat", title=title)
        headline = gettext("Please confirm your seat in %(title)s.", title=title)
        lines = [
            gettext(
                "Someone (we hope you) asked for a seat in this game with this address. "
                "Open the link and confirm to take the seat; nothing happens until you do."
            ),
            gettext(
                "The seat is held for you until %(when)s; after that the link lapses and "
                "the seat is open to others again.",
                when=until,
            ),
            gettext("If you did not ask for it, ignore this mail: you will hear nothing more."),
        ]
        link = [(gettext("Confirm your seat"), links.open_confirm_url(config, facts["token"]))]
    elif notice.kind == "open_cancelled":
        subject = gettext("%(title)s: called off", title=title)
        headline = gettext("%(title)s was called off.", title=title)
        lines = [
            gettext(
                "Its creator called the game off before it started, so your seat in it is "
                "gone. Nothing more will come about it."
            ),
        ]
        link = [(gettext("Other games looking for players"), f"{links.base_url(config)}/open")]
    else:
        left = int(facts["left"])
        subject = gettext("%(title)s: %(name)s took a seat", title=title, name=facts["joined"])
        headline = gettext("%(name)s took a seat in %(title)s.", name=facts["joined"], title=title)
        lines = [
            gettext(
                "Every open seat is taken: the game starts now, and your link comes in the "
                "next mail."
            )
            if left == 0
            else ngettext(
                "%(num)d open seat still to be taken.",
                "%(num)d open seats still to be taken.",
                left,
            )
        ]
        link = [(gettext("The game's page"), links.open_url(config, notice.game_id))]
    return {
        "subject": subject,
        "title": title,
        "name": notice.name,
        "headline": headline,
        "lines": lines,
        "links": link,
    }
