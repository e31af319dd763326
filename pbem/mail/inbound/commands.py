"""Commands mailed to the general address (``mail.reply_address`` itself, without a tag),
as the email judges of old answer them:

- ``HELP``: what the commands are, and where the games are on the web;
- ``LIST``: the sender's running games, each with its seat's link (to that address only:
  the answer goes to the ``From`` address whose seats it lists);
- ``OPEN``: the games looking for players (:mod:`pbem.games.open_games`);
- ``JOIN <game id> [name]``: asks for a seat in an open game for the sender's address,
  as the page does: the link to confirm is the answer (the hold's own mail).

The command is the first word of the message's first paragraph (or of its subject when
the body has none), in any case; anything else is answered with ``HELP``. Mail reaches
this module only after the checks every reply passes (:func:`pbem.mail.inbound.message.classify`:
no auto-reply, delivery report, loop, null sender, mailing list, oversized or malformed
mail). Mail whose ``Authentication-Results`` say SPF, DKIM or DMARC failed is recorded
and not answered (a forged ``From`` cannot make us write to someone). Every command is
answered at most once a day per person (the canonical address) and command, counted in
``inbound_answers`` as ``command:<WORD>``, never to a robot's address; the same message
is never taken twice (its Message-ID is recorded).
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from pbem import i18n, links
from pbem.errors import PbemError
from pbem.games import open_games
from pbem.games.context import Runtime
from pbem.i18n import N_, gettext, ngettext
from pbem.mail import outbox, seat_mails
from pbem.mail.inbound import message as msg
from pbem.mail.inbound import tags
from pbem.mail.inbound.answers import HELD, may_answer
from pbem.mail.models import InboundMessage
from pbem.models import Game, Seat
from pbem.zones import utc

COMMANDS = ("HELP", "LIST", "OPEN", "JOIN")
HELP_SUBJECT = N_("What you can ask for by mail")
LISTED = 20  # games an answer lists at most
FAILED = re.compile(r"\b(spf|dkim|dmarc)\s*=\s*(fail|softfail|permerror)\b", re.IGNORECASE)


def is_general(runtime: Runtime, address: str) -> bool:
    """Whether ``address`` is the general address: the reply address without a tag."""
    return tags.is_ours(runtime.config, address) and "+" not in address.rpartition("@")[0]


def unauthenticated(message: EmailMessage) -> str:
    """Why the receiving mail server's ``Authentication-Results`` refuse the sender
    ("" when none says a check failed). A header the sender wrote can only make us
    refuse its own mail, so every such header counts."""
    for value in message.get_all("Authentication-Results") or []:
        found = FAILED.search(str(value))
        if found:
            return f"{found[1].lower()}={found[2].lower()}"
    return ""


def command_of(message: EmailMessage) -> tuple[str, list[str]]:
    """The command word (upper case; ``HELP`` for anything unknown) and its arguments."""
    lines = msg.reply_lines(message)
    first = (
        lines[0]
        if lines
        else re.sub(r"^(re|fwd?|aw)\s*:\s*", "", msg.header(message, "Subject"), flags=re.I)
    )
    words = first.split()
    word = words[0].strip(".:,;!").upper() if words else ""
    if word not in COMMANDS:
        return "HELP", []
    return word, words[1:]


def take(runtime: Runtime, message: EmailMessage, key: str, sender: str) -> tuple[str, str]:
    """Answers the command in ``message`` (see the module's docstring): the outcome and
    detail to record."""
    word, arguments = command_of(message)
    why = unauthenticated(message)
    if why:
        return _record(runtime, key, sender, "unauthenticated", f"{word}: {why}; not answered")
    if not sender or msg.is_robot(sender):
        return _record(runtime, key, sender, "command", f"{word}: no address to answer")
    if word == "JOIN":
        return _join(runtime, message, key, sender, arguments)
    with runtime.service.session() as session:
        if _taken_before(session, key):
            return "duplicate", "this message was taken before"
        if not may_answer(session, runtime, sender, f"command:{word}"):
            _add_record(runtime, session, key, sender, "command", f"{word}{HELD}")
            session.commit()
            return "command", f"{word}{HELD}"
        with i18n.speaking(outbox.address_language(session, sender)):
            headline, lines, link_rows = ANSWERS[word](runtime, session, sender)
            _answer(runtime, session, key, sender, word, headline, lines, link_rows)
        _add_record(runtime, session, key, sender, "command", word)
        try:
            session.commit()
        except IntegrityError:
            return "duplicate", "this message was taken before"
    return "command", word


def _help(runtime: Runtime, session: Any, sender: str) -> tuple[str, list[str], list]:
    local = tags.reply_address_config(runtime.config)
    here = f"{local[0]}@{local[1]}" if local else gettext("this address")
    return (
        gettext("Write one of these words as the first line of a mail to %(here)s:", here=here),
        [
            gettext("HELP: this list."),
            gettext("LIST: your running games, each with your link to it (to your address only)."),
            gettext("OPEN: the games looking for players."),
            gettext(
                "JOIN and a game's id (and your name, if you like), e.g. %(example)s: asks "
                "for a seat in that open game; we mail you a link to confirm it.",
                example="JOIN k3x9m2p7qa Ann",
            ),
            gettext(
                "(Each command is answered once a day at most. To play a move, reply to "
                "your game's own mail instead.)"
            ),
        ],
        [
            (gettext("Games looking for players"), f"{links.base_url(runtime.config)}/open"),
            (gettext("Start a game"), f"{links.base_url(runtime.config)}/"),
        ],
    )


def _list(runtime: Runtime, session: Any, sender: str) -> tuple[str, list[str], list]:
    found = session.exec(
        select(Seat, Game)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(func.lower(Seat.email) == sender, Game.status == "active")
        .order_by(col(Game.updated_at).desc())
        .limit(LISTED)
    ).all()
    rows = []
    for seat, game in found:
        token = seat_mails.seat_token(session, runtime, seat)
        due = seat.seat in (game.to_move or []) and not seat.is_bot
        label = gettext("%(title)s: your turn", title=game.title) if due else game.title
        rows.append((label, links.play_url(runtime.config, token) if token else ""))
    if not rows:
        return (
            gettext("You have no running game on this server with this address."),
            [
                gettext(
                    "Games looking for players are listed on the web (below), or answer %(word)s.",
                    word="OPEN",
                )
            ],
            [(gettext("Games looking for players"), f"{links.base_url(runtime.config)}/open")],
        )
    lines = [gettext("Each link opens your own seat: keep them to yourself.")]
    missing = [label for label, link in rows if not link]
    if missing:
        lines.append(
            gettext(
                "For these the server keeps no link it may mail (ask for a new one from the "
                "game's page): %(titles)s.",
                titles=", ".join(missing),
            )
        )
    return (
        gettext("Your running games (%(count)s).", count=len(rows)),
        lines,
        [(label, link) for label, link in rows if link],
    )


def _open(runtime: Runtime, session: Any, sender: str) -> tuple[str, list[str], list]:
    games = open_games.list_open(runtime, limit_to=LISTED)
    if not games:
        return (
            gettext("No game is looking for players right now."),
            [gettext("You can start one with open seats on the web.")],
            [(gettext("Start a game"), f"{links.base_url(runtime.config)}/")],
        )
    lines = [
        ngettext(
            "%(title)s (%(game)s), id %(id)s: %(left)s of %(num)d seat left; %(policy)s.",
            "%(title)s (%(game)s), id %(id)s: %(left)s of %(num)d seats left; %(policy)s.",
            len(game.seats),
            title=game.title,
            game=game.engine_title,
            id=game.id,
            left=game.seats_left,
            policy=game.policy,
        )
        for game in games
    ]
    lines.append(
        gettext(
            "To ask for a seat, answer %(word)s and the game's id, or open its page.", word="JOIN"
        )
    )
    return (
        gettext("Games looking for players (%(count)s).", count=len(games)),
        lines,
        [(game.title, links.open_url(runtime.config, game.id)) for game in games],
    )


ANSWERS = {"HELP": _help, "LIST": _list, "OPEN": _open}


def _join(
    runtime: Runtime, message: EmailMessage, key: str, sender: str, arguments: list[str]
) -> tuple[str, str]:
    game_id = arguments[0].strip(".,;:").lower() if arguments else ""
    name = " ".join(arguments[1:]).strip() or parseaddr(msg.header(message, "From"))[0].strip()
    name = name or sender.split("@", 1)[0][:60]
    with runtime.service.session() as session:
        if _taken_before(session, key):
            return "duplicate", "this message was taken before"
        if not may_answer(session, runtime, sender, "command:JOIN"):
            _add_record(runtime, session, key, sender, "command", f"JOIN{HELD}")
            session.commit()
            return "command", f"JOIN{HELD}"
        _add_record(runtime, session, key, sender, "command", f"JOIN {game_id}"[:500])
        try:
            session.commit()
        except IntegrityError:
            return "duplicate", "this message was taken before"
    try:
        joined = open_games.join(runtime, game_id, name, sender)
    except PbemError as error:
        with runtime.service.session() as session:
            with i18n.speaking(outbox.address_language(session, sender)):
                _answer(
                    runtime,
                    session,
                    key,
                    sender,
                    "JOIN",
                    gettext("Your %(word)s was not applied.", word="JOIN"),
                    [
                        error.message,
                        gettext("Answer %(word)s for the games looking for players.", word="OPEN"),
                    ],
                    [
                        (
                            gettext("Games looking for players"),
                            f"{links.base_url(runtime.config)}/open",
                        )
                    ],
                )
            row = session.get(InboundMessage, key)
            row.detail = f"JOIN {game_id}: {error.message}"[:500]
            session.add(row)
            session.commit()
        return "command", f"JOIN {game_id}: {error.message}"
    # The hold's own mail (the link to confirm) is the answer; nothing more.
    return "command", f"JOIN {game_id}: {joined.message}"


def _answer(
    runtime: Runtime,
    session: Any,
    key: str,
    sender: str,
    word: str,
    headline: str,
    lines: list[str],
    link_rows: list,
) -> None:
    outbox.enqueue(
        session,
        runtime,
        "open",
        key=f"command:{word}:{key[:32]}",
        recipient=sender,
        context=answer_context(
            headline, lines, link_rows, subject=gettext(HELP_SUBJECT) if word == "HELP" else ""
        ),
    )


def answer_context(
    headline: str, lines: list[str], link_rows: list, subject: str = ""
) -> dict[str, Any]:
    """What the ``open`` mail answering a command says (no greeting by name: the sender
    may be anyone), in the spoken language (the caller's :func:`pbem.i18n.speaking`)."""
    subject = subject or headline.rstrip(".:")
    return {
        "subject": subject,
        "title": subject,
        "name": "",
        "headline": headline,
        "lines": lines,
        "links": link_rows,
        "language": i18n.spoken(),
    }


def help_answer(runtime: Runtime) -> dict[str, Any]:
    """The HELP answer's context."""
    return answer_context(*_help(runtime, None, ""), subject=gettext(HELP_SUBJECT))


def _taken_before(session: Any, key: str) -> bool:
    return session.get(InboundMessage, key) is not None


def _add_record(
    runtime: Runtime, session: Any, key: str, sender: str, outcome: str, detail: str
) -> None:
    row = InboundMessage(message_key=key, received_at=utc(runtime.clock()))
    row.sender, row.outcome, row.detail = sender[:320], outcome[:32], detail[:500]
    session.add(row)


def _record(runtime: Runtime, key: str, sender: str, outcome: str, detail: str) -> tuple[str, str]:
    with runtime.service.session() as session:
        if _taken_before(session, key):
            return "duplicate", "this message was taken before"
        _add_record(runtime, session, key, sender, outcome, detail)
        try:
            session.commit()
        except IntegrityError:
            return "duplicate", "this message was taken before"
    return outcome, detail
