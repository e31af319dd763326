"""Access logs without secrets: seat links and signed settings links masked.

``pbem serve --production`` starts gunicorn with ``--logger-class
pbem.web.accesslog.MaskingLogger``. Every value the access log can print (request line,
path, query, referrer, request and response headers such as ``Location``) passes
through :func:`mask_tokens` first, so a log that is shared, shipped or kept opens no seat.
Every other log line (werkzeug's request log under ``pbem serve`` among them) is masked
the same way by the handler :func:`pbem.logs.configure` installs.
"""

from __future__ import annotations

import re
from typing import Any

from gunicorn.glogging import Logger

MASK = "<masked>"

# A seat's link and its rescue page: the path segment after the prefix is the secret.
_PREFIXED = re.compile(r"(/(?:api/)?(?:play|rescue)/)[^/?#\s\"]+")
# The mail settings link: /mail/settings/<game>/<seat>/<signature>.
_SETTINGS = re.compile(r"(/mail/settings/[^/?#\s\"]+/[^/?#\s\"]+/)[^/?#\s\"]+")
# Anything else that looks like a token (links are 43 url-safe characters, signatures 24).
_TOKEN_LIKE = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])")


def mask_tokens(text: str) -> str:
    """``text`` with every token-bearing part of a path, query or URL masked."""
    text = _PREFIXED.sub(lambda match: match.group(1) + MASK, text)
    text = _SETTINGS.sub(lambda match: match.group(1) + MASK, text)
    return _TOKEN_LIKE.sub(MASK, text)


class MaskingLogger(Logger):
    """gunicorn's logger, with every access-log atom masked."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        return {
            key: mask_tokens(value) if isinstance(value, str) else value
            for key, value in atoms.items()
        }
