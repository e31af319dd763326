"""The OpenAPI 3.1 description of the JSON API, served at ``/api/openapi.json``.

Every error under ``/api/``, whether the service refuses something or Flask itself
answers (404, 405, 413, 429, 500, 503), has one shape::

    {"error": {"status": 409, "message": "The game moved on since this page was shown.",
               "fresh_seq": 7}}

``status`` repeats the HTTP status, ``message`` is a sentence fit to show a person, and
a stale move's 409 adds ``fresh_seq``, the game's current seq.
"""

from __future__ import annotations

_ERROR = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "status": {"type": "integer", "minimum": 400, "maximum": 599},
                "message": {"type": "string", "minLength": 1},
                "fresh_seq": {"type": "integer", "description": "With 409: the current seq"},
            },
            "required": ["status", "message"],
        }
    },
    "required": ["error"],
}
_SEQ = {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}
_GAME = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "game": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "string", "enum": ["active", "finished"]},
        "seq": {"type": "integer"},
        "head_hash": {"type": "string"},
        "to_move": {"type": "array", "items": {"type": "integer"}},
        "phase": {"type": "string"},
        "view": {"type": "object"},
    },
    "required": ["id", "game", "status", "seq", "head_hash", "view"],
}
_RECEIPT = {
    "type": ["object", "null"],
    "description": (
        "The server's signed receipt of the game at this seq: the canonical JSON of "
        "game, head, key, seq, server and time, signed with Ed25519. Keep `text`; check "
        "it later with `pbem verify EXPORT --receipt TEXT --key pbem-keys.json`. Null "
        "only when the server's signing key is unusable."
    ),
    "properties": {
        "text": {"type": "string", "pattern": "^pbem-receipt:1:"},
        "server": {"type": "string"},
        "game": {"type": "string"},
        "seq": _SEQ,
        "head": {"type": "string"},
        "time": {"type": "string", "format": "date-time"},
        "key": {"type": "string", "description": "The signing key's id (/.well-known)"},
        "signature": {"type": "string", "description": "base64url, 64 bytes"},
    },
    "required": ["text", "server", "game", "seq", "head", "time", "key", "signature"],
}
_KEYS = {
    "type": "object",
    "properties": {
        "format": {"const": "pbem-keys/1"},
        "server": {"type": "string"},
        "keys": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "algorithm": {"const": "Ed25519"},
                    "public_key": {"type": "string", "description": "raw key, base64url"},
                    "public_key_pem": {"type": "string"},
                    "created": {"type": ["string", "null"], "format": "date-time"},
                    "retired": {"type": ["string", "null"], "format": "date-time"},
                },
                "required": ["id", "algorithm", "public_key", "created", "retired"],
            },
        },
    },
    "required": ["format", "server", "keys"],
}
_TOKEN = {
    "name": "token",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "The secret token of a seat's link.",
}


def _errors(*codes: int) -> dict:
    text = {
        400: "Malformed or out-of-range request",
        403: "An invitation link not yet accepted: accept the seat first",
        404: "No such game or link",
        405: "Method not allowed",
        409: "The game moved on (fresh_seq)",
        410: "A lapsed invitation, or the link of a player who was replaced or left",
        413: "Request body too large",
        422: "Refused by the rules",
        429: "Too many requests",
        500: "Server error (nothing was changed)",
        503: "The database is unavailable (nothing was changed)",
    }
    return {
        str(code): {
            "description": text[code],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for code in codes
    }


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "pbem", "version": "1", "description": "Play slow board games by email."},
    "paths": {
        "/api/games/{game_id}": {
            "get": {
                "summary": "A game as a spectator sees it",
                "parameters": [
                    {
                        "name": "game_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {
                    "200": _json({"$ref": "#/components/schemas/Game"}, "The spectator view"),
                    **_errors(400, 404, 405, 429, 500, 503),
                },
            }
        },
        "/api/play/{token}": {
            "get": {
                "summary": "A seat's view, its legal moves and the current seq",
                "parameters": [_TOKEN],
                "responses": {
                    "200": _json(
                        {
                            "allOf": [
                                {"$ref": "#/components/schemas/Game"},
                                {
                                    "type": "object",
                                    "properties": {
                                        "seat": {"type": "integer"},
                                        "legal_moves": {
                                            "type": "array",
                                            "items": {
                                                "type": "object",
                                                "properties": {
                                                    "move": {"type": "object"},
                                                    "label": {"type": "string"},
                                                },
                                            },
                                        },
                                    },
                                },
                            ]
                        },
                        "The seat's view",
                    ),
                    **_errors(400, 403, 404, 405, 410, 429, 500, 503),
                },
            }
        },
        "/api/play/{token}/moves": {
            "post": {
                "summary": "Make a move, prepared at expected_seq",
                "parameters": [_TOKEN],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "move": {
                                        "type": "object",
                                        "properties": {"type": {"type": "string"}},
                                        "required": ["type"],
                                    },
                                    "expected_seq": _SEQ,
                                },
                                "required": ["move", "expected_seq"],
                            }
                        }
                    },
                },
                "responses": {
                    "200": _json(
                        {
                            "type": "object",
                            "properties": {
                                "seq": _SEQ,
                                "head_hash": {"type": "string"},
                                "duplicate": {"type": "boolean"},
                                "receipt": {"$ref": "#/components/schemas/Receipt"},
                            },
                        },
                        "The move was made (or had already been made)",
                    ),
                    **_errors(400, 403, 404, 405, 409, 410, 413, 422, 429, 500, 503),
                },
            }
        },
        "/.well-known/pbem-keys.json": {
            "get": {
                "summary": "The public keys receipts are signed with, current and retired",
                "responses": {
                    "200": _json({"$ref": "#/components/schemas/Keys"}, "Every public key"),
                    **_errors(405, 429, 500),
                },
            }
        },
    },
    "components": {"schemas": {"Error": _ERROR, "Game": _GAME, "Receipt": _RECEIPT, "Keys": _KEYS}},
}
