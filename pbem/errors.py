"""The errors the services raise; each carries a message fit to show a person."""

from __future__ import annotations


class PbemError(Exception):
    """Base of the service errors; ``message`` is shown to the person who asked (a
    :class:`engines.text.Text`, marked with :data:`pbem.i18n.T`, is shown in that person's
    language: pages print it as it is, mails through :func:`pbem.i18n.localize`)."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def words(error: BaseException) -> str:
    """What ``error`` says, kept as it was given: a :class:`engines.text.Text` (words a
    page or mail shows in its reader's language) stays one, where ``str(error)`` would
    give only its English."""
    first = error.args[0] if len(error.args) == 1 else None
    return first if isinstance(first, str) else str(error)


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


class NotAllowed(Rejected):
    """A request the seat rules refuse to this person (see :mod:`pbem.games.seat_rules`)."""

    status = 403


class NotTaken(PbemError):
    """A seat's invitation link used to play before the seat was taken."""

    status = 403


class Gone(PbemError):
    """A link that opened a seat once; its player was replaced or left."""

    status = 410


class TooMany(PbemError):
    """Too many requests of a kind (games created, invitations to one address, a seat's
    requests in a day)."""

    status = 429
