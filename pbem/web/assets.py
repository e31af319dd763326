"""The weight of pages: compression, the favicon and long-lived static files.

* Responses are compressed by Flask-Compress (zstd, Brotli, gzip or deflate, the one the
  client ranks highest by its ``Accept-Encoding`` q-values; on a tie in that order) when
  they are HTML, JSON, CSS, JavaScript or SVG and over 500 bytes, streamed ones (static
  files, exports) included, with ``Vary: Accept-Encoding``. An encoding given ``q=0`` is
  refused (:class:`AcceptedEncodings`); a client that accepts none gets the plain bytes.
* ``url_for('static', ...)`` adds ``?v=`` and the first 12 hex digits of the file's
  sha256, so a changed file has a new address; a static file asked for with the ``v``
  of its current content is ``Cache-Control: public, max-age=31536000, immutable``,
  any other ask ``no-cache`` (revalidated by its ETag).
* ``/favicon.ico`` answers the icon every browser asks for; pages link the SVG one.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from flask import Flask, request, send_from_directory
from flask_compress import Compress

YEAR = 31536000
ALGORITHMS = ["zstd", "br", "gzip", "deflate"]
COMPRESSED = [
    "text/html",
    "text/css",
    "text/plain",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
]

_VERSIONS: dict[str, tuple[float, str]] = {}


class AcceptedEncodings:
    """WSGI middleware: rewrites ``Accept-Encoding`` to the codings the client accepts,
    each as ``name;q=value``. Flask-Compress would choose a coding given ``q=0`` ("not
    acceptable") when it is the only one named, and skips one written ``gzip; q=0.5``."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        given = environ.get("HTTP_ACCEPT_ENCODING")
        if given is not None:
            environ["HTTP_ACCEPT_ENCODING"] = accepted_encodings(given)
        return self.wsgi_app(environ, start_response)


def accepted_encodings(header: str) -> str:
    """``header`` without the codings it refuses (``q=0``), each written ``name;q=value``."""
    kept = []
    for part in header.split(","):
        name, *params = (piece.strip() for piece in part.split(";"))
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        if name and 0 < quality <= 1:
            kept.append(f"{name.lower()};q={quality:g}")
    return ", ".join(kept)


def version_of(folder: str, filename: str) -> str:
    """The first 12 hex digits of the file's sha256 ("" for no such file), remembered
    while its modification time stays the same."""
    path = Path(folder) / filename
    try:
        stamp = os.stat(path).st_mtime
    except OSError:
        return ""
    known = _VERSIONS.get(str(path))
    if known is not None and known[0] == stamp:
        return known[1]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    _VERSIONS[str(path)] = (stamp, digest)
    return digest


def init_app(app: Flask) -> None:
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED)
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    app.config.setdefault("COMPRESS_ALGORITHM", ALGORITHMS)
    app.config.setdefault("COMPRESS_ALGORITHM_STREAMING", ALGORITHMS)  # its default: no gzip
    Compress(app)
    app.wsgi_app = AcceptedEncodings(app.wsgi_app)  # type: ignore[method-assign]
    folder = app.static_folder or ""

    @app.url_defaults
    def static_version(endpoint: str, values: dict) -> None:
        if endpoint == "static" and "v" not in values and "filename" in values:
            version = version_of(folder, values["filename"])
            if version:
                values["v"] = version

    @app.after_request
    def static_caching(response):
        if request.endpoint != "static" or response.status_code >= 400:
            return response
        filename = (request.view_args or {}).get("filename", "")
        given = request.args.get("v")
        if given and given == version_of(folder, filename):
            response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        else:
            response.headers["Cache-Control"] = "no-cache"
        return response

    @app.get("/favicon.ico")
    def favicon():
        response = send_from_directory(folder, "favicon.ico", mimetype="image/vnd.microsoft.icon")
        response.headers["Cache-Control"] = "public, max-age=86400"
        return response
