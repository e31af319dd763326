"""The lobby: open and finished games, and the form that creates a game."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import format_decimal, get_translations
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address

from engines import REGISTRY, listed_engines
from pbem import i18n, zones
from pbem.errors import BadInput, Rejected, TooMany
from pbem.eventlog import chance, contributions
from pbem.eventlog.roster import BOT_LEVELS
from pbem.games import open_games
from pbem.games.listing import LISTING_STATUSES, GamePage
from pbem.games.policy import AT_DEADLINE, DEFAULT_POLICY
from pbem.games.service import SeatSpec
from pbem.i18n import N_, T
from pbem.validate import clean_email, clean_name, clean_title
from pbem.web.present import runtime

bp = Blueprint("lobby", __name__)

MAX_SEATS = 6
BOT_WORDS = {"bot": "normal", **{f"bot:{level}": level for level in BOT_LEVELS}}
AT_DEADLINE_TEXT = {
    "wait": N_("wait for the player"),
    "bot_turn": N_("a bot plays that turn"),
    "bot_seat": N_("a bot takes the seat (the player may reclaim it)"),
    "replace": N_("offer the seat to a replacement"),
}
# What happens at a game's deadline, after how long (``days``: "2 days"), as a clause of
# a deadline policy (:func:`policy_words`).
AFTER_DEADLINE = {
    "wait": N_("after %(days)s the game waits (reminders go on)"),
    "bot_turn": N_("after %(days)s a bot plays that turn"),
    "bot_seat": N_("after %(days)s a bot takes over the seat (its player may reclaim it)"),
    "replace": N_("after %(days)s the seat is offered to a new player"),
}


def _count(value: Any) -> tuple[int, str]:
    """A number of hours or days: the count whose plural form it takes (a fraction takes
    the next whole number's) and the number as this page's language writes it."""
    number = float(value or 0)
    shown = int(number) if number == int(number) else number
    return int(math.ceil(number)), format_decimal(shown)


def hours(value: Any) -> str:
    """ "1 hour", "1.5 hours", "1,5 Stunden": in this page's language."""
    count, shown = _count(value)
    return get_translations().ngettext("%(num)s hour", "%(num)s hours", count) % {"num": shown}


def days(value: Any) -> str:
    """ "1 day", "0.5 days", "2 Tage": in this page's language."""
    count, shown = _count(value)
    return get_translations().ngettext("%(num)s day", "%(num)s days", count) % {"num": shown}


def deadline_clause(policy: Mapping[str, Any]) -> str:
    """What a deadline policy does at the deadline, with when ("after 2 days a bot plays
    that turn"), or "no deadline"; in this page's language."""
    after = float(policy.get("deadline_after_days", 0) or 0)
    if after <= 0:
        return _("no deadline")
    key = policy.get("at_deadline", "wait")
    return _(AFTER_DEADLINE.get(key, AFTER_DEADLINE["wait"]), days=days(after))


def policy_words(policy: Mapping[str, Any]) -> str:
    """A deadline policy in one phrase, without a capital or a final stop ("the first
    reminder 12 hours after a turn begins; no deadline"), in this page's language."""
    after = float(policy.get("reminder_after_hours", 0) or 0)
    every = float(policy.get("reminder_every_hours", 0) or 0)
    if after > 0 and every > 0:
        reminders = _(
            "the first reminder %(after)s after a turn begins, then every %(every)s",
            after=hours(after),
            every=hours(every),
        )
    elif after > 0:
        reminders = _("the first reminder %(after)s after a turn begins", after=hours(after))
    else:
        reminders = _("no reminders")
    return _("%(reminders)s; %(deadline)s", reminders=reminders, deadline=deadline_clause(policy))


def capital(text: str) -> str:
    """``text`` with a capital first letter (the rest as it is: German nouns stay)."""
    return text[:1].upper() + text[1:]


@bp.app_context_processor
def page_words() -> dict[str, Any]:
    """Numbers and deadline policies as the pages' language writes them."""
    return {
        "number": lambda value: format_decimal(value),
        "decimal": lambda value: format_decimal(value, format="#,##0.0"),
        "policy_words": policy_words,
        "capital": capital,
    }


def product_engines() -> list:
    """The games offered in the lobby: every registered title its engine does not hide
    (``listed = False``); all of them when every one is hidden."""
    return listed_engines() or list(REGISTRY.values())


LOBBY_PAGE = 50  # games per list and page


@bp.get("/")
def index():
    pages, listing_error = listings()
    return lobby_page(pages=(pages, listing_error)), 400 if listing_error else 200


def listings() -> tuple[list[GamePage], str]:
    """The lobby's lists, paged in the database: running and finished games, or one
    status when ``?status=`` asks for it, filtered by ``?game=`` (a title's slug), from
    ``?after=`` (the cursor of a "next page" link). A bad value is named, not a 500."""
    service = runtime().service
    status = request.args.get("status") or None
    engine = request.args.get("game") or None
    after = request.args.get("after") or None
    try:
        if status or after:
            return [service.list_games(status or "active", engine, after, LOBBY_PAGE)], ""
        return [service.list_games(name, engine, limit=LOBBY_PAGE) for name in LISTING_STATUSES], ""
    except BadInput as error:
        return [
            service.list_games(name, limit=LOBBY_PAGE) for name in LISTING_STATUSES
        ], error.message


def lobby_page(
    form: Mapping[str, str] | None = None,
    error: str = "",
    pages: tuple[list[GamePage], str] | None = None,
) -> str:
    """The lobby; after a refused form, with what was typed and the reason."""
    pages, listing_error = pages or listings()
    return render_template(
        "lobby.html",
        pages=pages,
        listing_error=listing_error,
        listing_game=request.args.get("game", "") if not listing_error else "",
        listing_status=request.args.get("status", "") if not listing_error else "",
        engines=[engine for engine in product_engines()],
        game_names={slug: engine.title for slug, engine in REGISTRY.items()},
        seat_rows=range(MAX_SEATS),
        policy=DEFAULT_POLICY,
        at_deadline=[(key, _(AT_DEADLINE_TEXT[key])) for key in AT_DEADLINE],
        form=form or {},
        error=error,
        zones=zones.zone_names(),
    )


def zone_from(form) -> str:
    """The creator's time zone (UTC when the form has none)."""
    try:
        return zones.clean_zone(form.get("timezone", "UTC") or "UTC")
    except BadInput as error:
        raise BadInput(T("Your time zone: %(problem)s", problem=error.message)) from None


OPEN_WORD = "open"


def seats_from(form) -> list[SeatSpec | None]:
    """The seats the form names: the first is the creator's, in the creator's zone; an
    invitee's zone is their row's, or the creator's when left empty; each person's
    language is their row's (none chosen when the form has none). A row whose address
    is the word ``open`` is an open seat (None), for anyone to join on ``/open``."""
    seats = []
    mine = zone_from(form)
    for index in range(MAX_SEATS):
        try:
            name = clean_name(form.get(f"seat_name_{index}", ""), required=False)
            email = form.get(f"seat_email_{index}", "").strip()
            if not name and not email:
                continue
            if email.lower() == OPEN_WORD and index:
                seats.append(None)
                continue
            level = BOT_WORDS.get(email.lower()) or BOT_WORDS.get(name.lower())
            if level:
                chosen = form.get(f"seat_level_{index}", "").strip().lower()
                if chosen:
                    if chosen not in BOT_LEVELS:
                        raise BadInput(
                            _(
                                "A bot plays at one of these levels: %(levels)s.",
                                levels=", ".join(BOT_LEVELS),
                            )
                        )
                    level = chosen
                named = name if name.lower() not in BOT_WORDS else f"Bot {index + 1}"
                seats.append(SeatSpec(named, is_bot=True, bot_level=level))
                continue
            if not email:
                raise BadInput(_("It needs an email address (or the word bot, or bot:easy)."))
            email = clean_email(email)
            typed = form.get(f"seat_timezone_{index}", "").strip() if index else ""
            zone = zones.clean_zone(typed) if typed else mine
            spoken = form.get(f"seat_language_{index}", "").strip()
            language = i18n.clean_language(spoken) if spoken else None
        except BadInput as error:
            raise BadInput(
                T("Seat %(number)d: %(problem)s", number=index + 1, problem=error.message)
            ) from None
        name = name or clean_name(email.split("@")[0][:60])
        seats.append(SeatSpec(name, email, timezone=zone, language=language))
    return seats


@bp.post("/games")
def create():
    try:
        return create_game()
    except (BadInput, Rejected, TooMany) as error:
        return lobby_page(request.form, error.message), error.status


def create_game():
    service = runtime().service
    slug = request.form.get("game", "")
    engine = REGISTRY.get(slug)
    if engine is None:
        raise BadInput(_("Choose one of the games offered."))
    options = {
        option.name: request.form.get(f"option_{slug}_{option.name}", "")
        for option in engine.options
    }
    for option in engine.options:
        if isinstance(option.default, bool):
            options[option.name] = f"option_{slug}_{option.name}" in request.form
    policy = {key: request.form.get(key, DEFAULT_POLICY[key]) for key in DEFAULT_POLICY}
    seats = seats_from(request.form)
    title = clean_title(request.form.get("title", ""))
    is_open = any(seat is None for seat in seats)
    if is_open and request.form.get("private") == "on":
        raise BadInput(
            _("A game with open seats is listed for anyone to join, so it cannot be private.")
        )
    if not is_open:
        if not any(not seat.is_bot for seat in seats):
            raise BadInput(_("At least one seat must be a person with an email address."))
        service.check_game(slug, seats, options, policy=policy, creator_seat=0)
    pending = request.form.get("pending")
    if pending is None and request.form.get("let_server_draw") != "on":
        # The first step: the server draws the seed and shows its commitment; the
        # creator's contribution comes in the second.
        pending, commitment = service.begin_game()
        return render_template(
            "create_contribute.html",
            commitment=commitment,
            pending=pending,
            fields=[(key, value) for key, value in request.form.items(multi=True) if keep(key)],
            title=title or REGISTRY[slug].title,
        )
    if pending is not None:
        service.pending_game(pending)  # refused when forged, made already or lapsed
    creator = creator_contribution(request.form)
    if is_open:
        return create_open_game(slug, options, policy, seats, pending, creator)
    created = service.create_game(
        slug,
        seats,
        options,
        title=title,
        policy=policy,
        creator_seat=0,
        actor="lobby",
        private=request.form.get("private") == "on",
        pending=pending,
        contributions=[creator],
    )
    service.bots_now(created.game_id)  # a slow bot moves after this request, not in it
    first_human = next(token for token in created.tokens if token)
    return redirect(url_for("play.page", token=first_human, created=1), code=303)


def keep(key: str) -> bool:
    """The lobby form's fields the second step carries on (not its own)."""
    return key not in ("csrf_token", "pending", "contribution", "let_server_draw")


def creator_contribution(form) -> dict:
    """The creator's contribution to the dice from the second step: what the field holds
    (filled by the page's script, or typed), or drawn by the server when she lets it
    (or leaves the field empty), marked so."""
    value = form.get("contribution", "")
    if form.get("let_server_draw") == "on" or not value.strip():
        return contributions.record(0, "creator", "server", chance.new_contribution())
    try:
        return contributions.record(0, "creator", "browser", chance.clean_contribution(value))
    except ValueError as error:
        raise BadInput(_("Your contribution: %(reason)s", reason=error)) from None


def create_open_game(
    slug: str,
    options: dict,
    policy: dict,
    seats: list[SeatSpec | None],
    pending: str | None,
    creator: dict,
):
    """A game with open seats: listed on ``/open`` until they are taken; the creator
    goes to her page of it (its link comes by mail too)."""
    created = open_games.create_open(
        runtime(),
        slug,
        seats,
        options,
        title=clean_title(request.form.get("title", "")),
        policy=policy,
        client=get_remote_address(),
        pending=pending,
        contribution=creator,
    )
    return redirect(url_for("open_pages.manage", token=created.token), code=303)
