"""The weight of pages: compression, the favicon and long-lived static files.

* Responses are compressed by Flask-Compress (zstd, Brotli or gzip, as the browser
  accepts) when they are HTML, JSON, CSS, JavaScript or SVG and over 500 bytes.
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
    Compress(app)
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
