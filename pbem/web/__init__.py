"""The web: lobby, turn pages by magic link, spectator and history pages, audit, JSON API.

``create_app`` follows the Flask tutorial's shape: a factory, blueprints per area, and
the process's :class:`~pbem.runtime.Runtime` kept in ``app.extensions["pbem"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, jsonify, render_template, request

from pbem.errors import PbemError
from pbem.runtime import Runtime, build_runtime

TEMPLATES = Path(__file__).resolve().parent.parent.parent / "templates"


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

    from pbem import ops
    from pbem.mail import rescue_views
    from pbem.mail import views as mail_views
    from pbem.web import api, csrf, games, limits, lobby, play, present

    csrf.init_app(app)
    present.init_app(app)
    for module in (lobby, play, games, api, mail_views, rescue_views, ops):
        app.register_blueprint(module.bp)
    limits.init_app(app, runtime.config)

    @app.errorhandler(PbemError)
    def pbem_error(error: PbemError):
        if request.path.startswith("/api/"):
            body: dict[str, Any] = {"error": error.message}
            if hasattr(error, "fresh_seq"):
                body["fresh_seq"] = error.fresh_seq
            return jsonify(body), error.status
        return render_template("error.html", message=error.message), error.status

    @app.errorhandler(400)
    @app.errorhandler(404)
    @app.errorhandler(405)
    @app.errorhandler(413)
    def http_error(error):
        message = {
            400: "That request was not understood.",
            404: "There is nothing here.",
            405: "This address does not take that kind of request.",
            413: "That request is too large.",
        }[error.code]
        if request.path.startswith("/api/"):
            return jsonify({"error": message}), error.code
        return render_template("error.html", message=message), error.code

    return app


def runtime_of(app: Flask) -> Runtime:
    return app.extensions["pbem"]
