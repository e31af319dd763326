"""The OpenAPI 3.1 description of the JSON API, served at ``/api/openapi.json``."""

from __future__ import annotations

_ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string"}, "fresh_seq": {"type": "integer"}},
    "required": ["error"],
}
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
_TOKEN = {
    "name": "token",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "The secret token of a seat's link.",
}


def _errors(*codes: int) -> dict:
    text = {
        400: "Malformed request",
        404: "No such game or link",
        409: "The game moved on (fresh_seq)",
        422: "Refused by the rules",
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
                    **_errors(404),
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
                    **_errors(404),
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
                                    "expected_seq": {"type": "integer"},
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
                                "seq": {"type": "integer"},
                                "head_hash": {"type": "string"},
                                "duplicate": {"type": "boolean"},
                            },
                        },
                        "The move was made (or had already been made)",
                    ),
                    **_errors(400, 404, 409, 422),
                },
            }
        },
    },
    "components": {"schemas": {"Error": _ERROR, "Game": _GAME}},
}
