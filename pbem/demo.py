"""The first run's demo: one game of each title, bots in every seat but the first.

``ensure_demo`` is idempotent across restarts: a running demo game is reused, and since
the database keeps only hashes of link tokens, its human seat's link is recovered from
the outbox's sealed copy, or else replaced by a fresh one (the old one stops working).
Nothing secret is stored outside the database.
"""

from __future__ import annotations

from sqlmodel import Session

from engines import listed_engines
from pbem.games.service import SeatSpec
from pbem.mail import seat_mails
from pbem.models import Seat
from pbem.runtime import Runtime

DEMO_PREFIX = "Demo: "
# The demo seat's holder: a name, since the lobby and the spectator pages name the
# player to act to everyone ("You" there would speak of someone else).
DEMO_PLAYER = "Alex"


def demo_seats(engine) -> int:
    return max(engine.min_seats, min(3, engine.max_seats))


def link(runtime: Runtime, token: str) -> str:
    return f"{runtime.config['server']['base_url'].rstrip('/')}/play/{token}"


def human_token(runtime: Runtime, game_id: str) -> str:
    """The demo seat's link token: recovered from the outbox's sealed copy, else a new one."""
    with Session(runtime.db) as session:
        seat = session.get(Seat, (game_id, 0))
        token = seat_mails.seat_token(session, runtime, seat) if seat is not None else None
    return token or runtime.service.rotate_token(game_id, 0)


def ensure_demo(runtime: Runtime) -> list[tuple[str, str]]:
    """Sets up (or finds) a demo game of each product engine; (title, link to seat 1)."""
    service = runtime.service
    running = {
        game.engine: game
        for game in service.games("active")
        if game.title.startswith(DEMO_PREFIX) and game.creator_seat == 0
    }
    links = []
    for engine in listed_engines():
        slug = engine.slug
        game = running.get(slug)
        if game is None:
            seats = [SeatSpec(DEMO_PLAYER)] + [
                SeatSpec(f"Bot {index}", is_bot=True) for index in range(1, demo_seats(engine))
            ]
            created = service.create_game(
                slug, seats, title=f"{DEMO_PREFIX}{engine.title}", actor="demo"
            )
            game_id, token = created.game_id, created.tokens[0]
        else:
            game_id, token = game.id, human_token(runtime, game.id)
        service.play_bots(game_id)
        links.append((engine.title, link(runtime, token)))
    return links
