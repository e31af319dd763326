"""``/.well-known/pbem-keys.json``: every public key the server has signed receipts with
(:mod:`pbem.receipts`), the current one and the retired ones, with when each was made
and retired. No secret is in it; anyone may fetch and keep it to check receipts offline.
"""

from __future__ import annotations

import logging

from flask import Blueprint, jsonify

from pbem import links, receipts
from pbem.web.hardening import error_answer
from pbem.web.present import runtime

bp = Blueprint("wellknown", __name__)
log = logging.getLogger(__name__)

MAX_AGE = 3600


@bp.get("/.well-known/pbem-keys.json")
def keys():
    run = runtime()
    try:
        receipts.ensure_key(run.config, run.clock())  # a server always has one to publish
        document = receipts.keys_document(run.config, links.base_url(run.config))
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.error("the receipt keys cannot be read: %s", error)
        return error_answer(503, "The server's receipt keys cannot be read just now.")
    response = jsonify(document)
    response.headers["Cache-Control"] = f"public, max-age={MAX_AGE}"
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response
