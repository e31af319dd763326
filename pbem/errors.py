"""The errors the services raise; each carries a message fit to show a person."""

from __future__ import annotations


class PbemError(Exception):
    """Base of the service errors; ``message`` is shown to the person who asked."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotFound(PbemError):
    """No such game, seat or link (a forged or revoked token looks exactly the same)."""

    status = 404


class Conflict(PbemError):
    """The game moved on since the move was prepared; ``fresh_seq`` is the new head."""

    status = 409

    def __init__(self, message: str, fresh_seq: int):
        super().__init__(message)
        self.fresh_seq = fresh_seq


class Rejected(PbemError):
    """A request the rules or the game's state refuse (an illegal move, a game over)."""

    status = 422


class BadInput(PbemError):
    """Input that is not well formed (malformed JSON, a broken import file)."""

    status = 400


class TooMany(PbemError):
    """Too many requests of a kind (games created, invitations to one address)."""

    status = 429
