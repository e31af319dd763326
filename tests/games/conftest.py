"""The mail fixtures (a real SMTP server, a clock, a runtime wired to both), shared."""

from tests.mail.conftest import app, clock, mailbox, runtime, smtp  # noqa: F401
