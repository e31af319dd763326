"""The addresses of this server's pages that mails and pages hand out: its base, a
game's public page and a seat's play link (``server.base_url`` in the configuration)."""

from __future__ import annotations


def base_url(config: dict) -> str:
    return config["server"]["base_url"].rstrip("/")


def game_url(config: dict, game_id: str) -> str:
    """The game's public page."""
    return f"{base_url(config)}/games/{game_id}"


def play_url(config: dict, token: str) -> str:
    return f"{base_url(config)}/play/{token}"
