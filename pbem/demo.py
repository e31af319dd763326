"""The first run's demo: one game of each title, bots in every seat but the first.

``ensure_demo`` is idempotent across restarts: a running demo game is reused, and since
the database keeps only hashes of link tokens, its human seat gets a fresh link (the
old one stops working). Nothing secret is stored outside the database.
"""

from __future__ import annotations

from engines import REGISTRY
from pbem.runtime import Runtime
from pbem.service import SeatSpec

DEMO_PREFIX = "Demo: "


def demo_seats(engine) -> int:
    return max(engine.min_seats, min(3, engine.max_seats))


def link(runtime: Runtime, token: str) -> str:
    return f"{runtime.config['server']['base_url'].rstrip('/')}/play/{token}"


def ensure_demo(runtime: Runtime) -> list[tuple[str, str]]:
    """Sets up (or finds) a demo game of each product engine; (title, link to seat 1)."""
    service = runtime.service
    running = {
        game.engine: game
        for game in service.games("active")
        if game.title.startswith(DEMO_PREFIX) and game.creator_seat == 0
    }
    links = []
    for slug, engine in sorted(REGISTRY.items()):
        if slug == "pig":
            continue
        game = running.get(slug)
        if game is None:
            seats = [SeatSpec("You")] + [
                SeatSpec(f"Bot {index}", is_bot=True) for index in range(1, demo_seats(engine))
            ]
            created = service.create_game(
                slug, seats, title=f"{DEMO_PREFIX}{engine.title}", actor="demo"
            )
            game_id, token = created.game_id, created.tokens[0]
        else:
            game_id, token = game.id, service.rotate_token(game.id, 0)
        service.play_bots(game_id)
        links.append((engine.title, link(runtime, token)))
    return links
