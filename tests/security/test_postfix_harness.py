"""The Postfix harness itself: without Postfix it skips locally, but fails under CI."""

from __future__ import annotations

import pytest

from tests.security import postfix_harness as harness


@pytest.fixture
def no_postfix(monkeypatch):
    """A machine without Postfix, where the tests do not run as root (so nothing is
    installed)."""
    monkeypatch.setattr(harness, "_binary", lambda name: None)
    monkeypatch.setattr(harness.os, "geteuid", lambda: 1000)


def test_missing_postfix_fails_under_ci(no_postfix, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required under CI=true"):
        harness.require_postfix()


def test_missing_postfix_skips_locally(no_postfix, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs root"):
        harness.require_postfix()


def test_null_senders_are_recognised():
    """The addresses an answer must never go to."""
    found = harness.null_senders(
        ["", "<>", "MAILER-DAEMON", "mailer-daemon@mx.test", "postmaster@x.test", "ann@x.test"]
    )
    assert found == ["", "<>", "MAILER-DAEMON", "mailer-daemon@mx.test", "postmaster@x.test"]
