"""Attacks on a public server, one test each: the mail fixtures (a controllable clock, a
real SMTP server on loopback, a runtime wired to both) serve here too."""

from tests.mail.conftest import *  # noqa: F403 - the mail fixtures, shared
from tests.mail.conftest import free_port, make_runtime, new_game, part, take_turn  # noqa: F401
