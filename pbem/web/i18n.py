"""The language of a page (:func:`page_language`), and the chooser in every page's footer.

A page for a seat (its turn page, its settings) is in the seat's language when the seat
has one (:func:`for_seat`, called where the seat is resolved, keeps it on ``flask.g``);
else in the language this browser chose with the footer's chooser (a ``lang`` cookie);
else in the best match of the browser's ``Accept-Language`` among the languages this
server speaks; else in English.

The chooser is a GET form to ``/language`` like the colour switch
(:mod:`pbem.web.theme`): it keeps the choice for a year and sends the browser back to
the page it came from, a path on this site only.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, g, has_request_context, request
from flask_babel import Babel, get_locale, gettext

from pbem.i18n import (
    CATALOGUES,
    DEFAULT,
    LANGUAGES,
    N_,
    clean_language,
    known,
    localize,
    localize_kept,
    localize_template_parameters,
    set_request_language,
    title_folders,
)
from pbem.web.theme import here, remembered

bp = Blueprint("language", __name__)

COOKIE = "lang"
# What the pages' scripts write (static/*.js, through pageWord in enhance.js), handed to
# them in the page's language in base.html's <html data-words> (no inline script).
SCRIPT_WORDS = {
    "copied": N_("Copied"),
    "copy_by_hand": N_("Select the text to copy it"),
    "your_turn_now": N_("It is your turn now."),
    "game_over": N_("The game is over."),
    "moved_on": N_("The game has moved on."),
    "show_new": N_("Show the new state"),
    "confirm": N_("Confirm"),
    "confirm_move": N_("Confirm: %(move)s"),
    "cancel": N_("Cancel"),
    "dice_added": N_(
        "Your browser added its contribution to the dice; every draw from now on mixes it in."
    ),
    "push_unsupported": N_("This browser cannot show notices from web sites."),
    "push_on": N_("Notices are on in this browser for this seat."),
    "push_off": N_("Notices are off in this browser for this seat."),
    "push_asking": N_("Asking the browser…"),
    "push_on_failed": N_("Notices could not be switched on: %(reason)s"),
    "push_off_failed": N_("Notices could not be switched off: %(reason)s"),
    # The map's zoom tools (static/map.js).
    "zoom_map": N_("Zoom the map"),
    "zoom_in": N_("Zoom in"),
    "zoom_out": N_("Zoom out"),
    "zoom_fit": N_("Fit"),
    "zoom_fit_whole": N_("Fit the whole map"),
    "zoom_level_fit": N_("fit"),
    "zoom_whole_title": N_("The whole map in its frame"),
    "zoom_readable_title": N_("Every name on the map reads at 100%."),
    "zoom_said_whole": N_("Map zoom: the whole map"),
    "zoom_said": N_("Map zoom %(level)s"),
    "zoom_said_readable": N_("Map zoom %(level)s, every name readable"),
}


# The bots' levels (pbem.eventlog.roster.BOT_LEVELS) as the pages name them.
BOT_LEVEL_WORDS = {"easy": N_("easy"), "normal": N_("normal"), "hard": N_("hard")}


def bot_level_word(level: str) -> str:
    """A bot's level in this page's language (a level without words as it is)."""
    words = BOT_LEVEL_WORDS.get(level)
    return gettext(words) if words else level


def for_seat(seat):
    """Remembers, for this request's page, the language of the seat it is for; returns
    ``seat``."""
    g.seat_language = known(getattr(seat, "language", None))
    return seat


def page_language() -> str:
    """This request's language: the seat's, the chooser's, the browser's, or English
    (Flask-Babel's locale selector: asked once per request, when a page first needs it)."""
    seat_language = g.get("seat_language")
    if seat_language:
        return seat_language
    chosen = known(request.cookies.get(COOKIE))
    if chosen:
        return chosen
    return request.accept_languages.best_match(list(LANGUAGES), default=DEFAULT)


def script_words() -> dict[str, str]:
    """:data:`SCRIPT_WORDS` in this page's language (English pages need none)."""
    if current() == DEFAULT:
        return {}
    return {key: gettext(words) for key, words in SCRIPT_WORDS.items()}


def current() -> str:
    """The language this page is being written in."""
    return str(get_locale() or DEFAULT)


@bp.get("/language")
def choose():
    return remembered(COOKIE, clean_language(request.args.get("lang", "")))


def vary_on_language(response: Response) -> Response:
    """A page is written in the language its request asks for: a cache keeps one each."""
    if response.mimetype == "text/html":
        response.vary.add("Accept-Language")
    return response


def request_language() -> str | None:
    """The page's language while a request is answered (for :func:`pbem.i18n.localize`)."""
    return current() if has_request_context() else None


def finalize(value):
    """What a template prints: an engine's words in the page's language, the rest as is."""
    return localize(value)


def init_app(app: Flask) -> None:
    # The server's catalogue first, then each title's (the words of its own templates).
    folders = [str(CATALOGUES), *title_folders()]
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", ";".join(folders))
    set_request_language(request_language)
    Babel(app, locale_selector=page_language)
    localize_template_parameters(app.jinja_env)
    app.register_blueprint(bp)
    app.after_request(vary_on_language)
    app.jinja_env.filters["bot_level_word"] = bot_level_word
    # An engine's words as a string in the page's language, for a template that works on
    # the string itself (slices it, changes its case) before printing it.
    app.jinja_env.filters["localized"] = localize
    # Words an engine wrote that a game's row keeps as English (its phase), in the page's.
    app.jinja_env.filters["kept"] = localize_kept
    app.jinja_env.globals.update(
        page_language=current,
        languages=LANGUAGES,
        seat_language=lambda: g.get("seat_language"),
        language_here=here,
        script_words=script_words,
    )
