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


def open_url(config: dict, game_id: str) -> str:
    """An open game's page (``/open/<id>``), where anyone may ask for a seat."""
    return f"{base_url(config)}/open/{game_id}"


def open_confirm_url(config: dict, token: str) -> str:
    """The link that confirms a stranger's hold on an open seat."""
    return f"{base_url(config)}/open/confirm/{token}"


def open_manage_url(config: dict, token: str) -> str:
    """The creator's page of her open game."""
    return f"{base_url(config)}/open/manage/{token}"
