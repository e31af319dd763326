"""The position in a turn mail: the board as a picture in the HTML part, and in words
in both parts.

The templates of the mails that show it (``your_turn``, ``reminder``, ``game_over``, and
``invitation`` when the seat moves first)
leave a slot where the board goes, naming the event it is drawn after:
``<!--pbem-board:SEQ LINK -->`` in the HTML part (LINK, the seat's link to the game's
page, is optional: a picture of part of the board links the whole there) and ``[pbem-board:SEQ]`` in the plain one.
The dispatcher fills them as it sends the mail (:func:`fill`), so no picture is drawn in
a move's transaction, and a mail waiting in the outbox costs nothing until it goes.

Mail cannot draw a board (the boards are the pages' templates, a layer above): it asks
the drawer the process installed in ``runtime.extras[HOOK]``
(:mod:`pbem.web.board_picture`), a callable ``(game_id, seat, seq) -> Picture``. With
no drawer, or when drawing fails (logged), the slots are emptied and the mail goes
without the position: a picture is never a reason for a mail not to go.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from html import escape, unescape
from typing import TYPE_CHECKING

from pbem import i18n

if TYPE_CHECKING:
    from pbem.games.context import Runtime
    from pbem.mail.models import Mail

log = logging.getLogger(__name__)

HOOK = "board_picture"
# An invitation shows it only when the seat moves first (its turn's only mail).
KINDS = frozenset({"your_turn", "reminder", "game_over", "invitation"})
SHOWN_WIDTH = 360  # CSS px: the picture's width in a mail (a 390 px phone less margins)
PHONE_WIDTH = 390  # CSS px: a phone's screen, the widest the picture is shown on one
MAX_BYTES = 120_000  # a larger PNG is left out (in base64 it grows by a third)
MAX_MAIL_BYTES = 200 * 1024  # a mail with its picture above this goes without it
ALT_CHARS = 900

HTML_SLOT = re.compile(r"<!--pbem-board:(\d+)(?: (\S+))? ?-->")
TEXT_SLOT = re.compile(r"\[pbem-board:(\d+)\]\n?")
# The language a mail is written in, as its HTML part names it (templates/email/_layout.html).
LANGUAGE = re.compile(r"<html lang=\"([a-z]{2})\"")


@dataclass(frozen=True)
class Picture:
    """A board as a mail shows it: ``words`` (the position, a line each) and, when it
    could be drawn, ``png`` with its size in pixels."""

    words: list[str] = field(default_factory=list)
    png: bytes | None = None
    width: int = 0
    height: int = 0
    # When the picture is a part of the board (a phone could not read the whole): what
    # part, in words ("around your pieces: Stockholm, Gotland"); empty for the whole.
    part: str = ""
    # The smallest text of the picture, in CSS px, shown PHONE_WIDTH px wide.
    smallest_px: float = 0.0


@dataclass(frozen=True)
class Image:
    """An image to attach to the HTML part, as ``cid:`` names it."""

    data: bytes
    cid: str


def html_slot(seq: int, link: str = "") -> str:
    return f"<!--pbem-board:{int(seq)}{' ' + escape(link) if link else ''} -->"


def text_slot(seq: int) -> str:
    return f"[pbem-board:{int(seq)}]"


def fill(
    runtime: Runtime, mail: Mail, text: str, html: str, *, png: bool = True
) -> tuple[str, str, Image | None]:
    """``text`` and ``html`` with their board slots filled (the board after the event
    the slot names, as the mail's seat sees it; a spectator's for a mail to no seat),
    and the image the HTML part names, if any (none when not ``png``: the words only)."""
    in_html = HTML_SLOT.search(html)
    found = in_html or TEXT_SLOT.search(text)
    link = unescape(in_html[2]) if in_html and in_html[2] else ""
    if found is None:
        return text, html, None
    # The board is told in the mail's language (its HTML part names it).
    language = LANGUAGE.search(html)
    with i18n.speaking(language[1] if language else None):
        return _filled(runtime, mail, text, html, found, link, png)


def _filled(
    runtime: Runtime,
    mail: Mail,
    text: str,
    html: str,
    found: re.Match,
    link: str,
    png: bool,
) -> tuple[str, str, Image | None]:
    picture = None
    draw = runtime.extras.get(HOOK)
    if draw is not None and mail.kind in KINDS and mail.game_id:
        try:
            picture = draw(mail.game_id, mail.seat, int(found[1]))
        except Exception:  # noqa: BLE001 - the mail goes without the board
            log.exception("no board for mail %s (game %s)", mail.id, mail.game_id)
    if picture is None:
        return TEXT_SLOT.sub("", text), HTML_SLOT.sub("", html), None
    image = None
    drawn = picture.png if png else None
    if drawn and len(drawn) > MAX_BYTES:
        log.warning("the board of mail %s is %d bytes: left out", mail.id, len(drawn))
    elif drawn:
        image = Image(drawn, f"board.{hashlib.sha256(drawn).hexdigest()[:16]}@pbem")
    said = text_words(picture.words)
    shown = html_block(picture, image, link)
    return TEXT_SLOT.sub(lambda _: said, text), HTML_SLOT.sub(lambda _: shown, html), image


def part_text(part: str, link: str = "") -> str:
    """What a picture of part of the board shows, and where the whole is (HTML, with
    ``link`` a link to it)."""
    words = i18n.gettext("the game's page")
    page = (
        f'<a href="{escape(link)}">{escape(words, quote=False)}</a>'
        if link
        else escape(words, quote=False)
    )
    return i18n.gettext(
        "The picture shows the part of the board %(part)s; the whole board is on %(page)s.",
        part=escape(part),
        page=page,
    )


def alt_text(words: list[str], part: str = "") -> str:
    """The picture's text alternative: what part of the board it shows (when a part),
    then the position in words, shortened to a few sentences (the full list follows the
    picture for whoever wants it)."""
    said = i18n.gettext(
        "The board: %(words)s.", words="; ".join(word.rstrip(".") for word in words)
    )
    if part:
        shows = i18n.gettext(
            "The picture shows the part of the board %(part)s; the whole board is on the "
            "game's page (the link under the picture).",
            part=part,
        )
        said = f"{shows} {said}"
    if len(said) > ALT_CHARS:
        said = said[: ALT_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return said


def text_words(words: list[str]) -> str:
    """The position in the plain part: a heading and a line for each fact."""
    if not words:
        return ""
    return i18n.gettext("The board now:") + "\n" + "".join(f"  {word}\n" for word in words) + "\n"


def html_block(picture: Picture, image: Image | None, link: str = "") -> str:
    """The picture (when drawn) sized for a phone, and the position in words."""
    parts = []
    if image is not None:
        height = round(picture.height * SHOWN_WIDTH / picture.width) if picture.width else 0
        parts.append(
            f'<p style="margin:1em 0 0.3em"><img src="cid:{escape(image.cid)}" '
            f'alt="{escape(alt_text(picture.words, picture.part))}" width="{SHOWN_WIDTH}" '
            f'height="{height}" '
            'style="display:block;width:100%;max-width:'
            f'{SHOWN_WIDTH * 2}px;height:auto;border:1px solid #c9c3b4;border-radius:6px"></p>'
        )
        if picture.part:
            parts.append(
                f'<p style="margin:0 0 0.6em;font-size:0.9em">{part_text(picture.part, link)}</p>'
            )
    if picture.words:
        items = "".join(f"<li>{escape(word)}</li>" for word in picture.words)
        heading = escape(i18n.gettext("Where the game stands:"), quote=False)
        parts.append(
            f'<p style="margin:0.6em 0 0.2em">{heading}</p>'
            f'<ul style="margin:0 0 1em;padding-left:1.2em">{items}</ul>'
        )
    return "\n".join(parts)
