"""The web: lobby, turn pages by magic link, spectator and history pages, audit, JSON API.

``create_app`` follows the Flask tutorial's shape: a factory, blueprints per area, and
the process's :class:`~pbem.runtime.Runtime` kept in ``app.extensions["pbem"]``.
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from pbem.locations import data_dir
from pbem.runtime import Runtime, build_runtime

TEMPLATES = data_dir("templates")


def create_app(test_config: dict[str, Any] | None = None, runtime: Runtime | None = None) -> Flask:
    """The WSGI application; ``test_config`` holds config overrides and Flask keys."""
    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder="static")
    flask_keys = {key: value for key, value in (test_config or {}).items() if key.isupper()}
    overrides = {key: value for key, value in (test_config or {}).items() if not key.isupper()}
    if runtime is None:
        runtime = build_runtime(overrides)
    app.extensions["pbem"] = runtime
    app.config.update(
        SECRET_KEY=runtime.secret_key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        MAX_CONTENT_LENGTH=256 * 1024,
    )
    app.config.update(flask_keys)

    from pbem import logs
    from pbem.web import (
        api,
        assets,
        board_picture,
        csrf,
        games,
        hardening,
        i18n,
        limits,
        lobby,
        mail_pages,
        mygames,
        notices_pages,
        open_pages,
        ops,
        play,
        players,
        present,
        rescue_pages,
        rules,
        theme,
        titles,
        wellknown,
    )

    # Before anything reads app.jinja_env: an engine's words print in the page's language.
    app.jinja_options = {**app.jinja_options, "finalize": i18n.finalize}
    titles.init_app(app)  # before anything reads app.jinja_env: it sets the loader
    i18n.init_app(app)
    logs.configure(runtime.config)
    logs.init_app(app)
    hardening.init_app(app)
    assets.init_app(app)
    csrf.init_app(app)
    present.init_app(app)
    theme.init_app(app)
    for module in (
        lobby,
        play,
        games,
        api,
        mail_pages,
        rescue_pages,
        ops,
        rules,
        mygames,
        open_pages,
        notices_pages,
        players,
        wellknown,
    ):
        app.register_blueprint(module.bp)
    limits.init_app(app, runtime.config)
    board_picture.install(runtime, app)  # the board in turn mails this process sends

    return app
