"""Access logs without secrets: seat links and signed settings links masked.

``pbem serve --production`` starts gunicorn with ``--logger-class
pbem.web.accesslog.MaskingLogger``. Every value the access log can print (request line,
path, query, referrer, request and response headers such as ``Location``) passes
through :func:`pbem.logs.mask_tokens` first, so a log that is shared, shipped or kept
opens no seat.
``pbem serve`` (one gunicorn worker) writes the same access log. Every other log line is masked
the same way by the handler :func:`pbem.logs.configure` installs.
"""

from __future__ import annotations

from typing import Any

from gunicorn.glogging import Logger

from pbem.logs import mask_tokens


class MaskingLogger(Logger):
    """gunicorn's logger, with every access-log atom masked."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        return {
            key: mask_tokens(value) if isinstance(value, str) else value
            for key, value in atoms.items()
        }
