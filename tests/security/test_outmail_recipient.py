"""An outbox row whose recipient is not exactly one valid address is never sent: it is
failed as ``unbuildable`` (before, ``not an address`` went out as ``RCPT TO:<not>``)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from pbem.mail import outbox
from pbem.mail.dispatch import dispatch
from pbem.mail.models import Mail


@pytest.mark.parametrize(
    "recipient",
    ["not an address", "ann@example.org, ben@example.org", "<ann@example.org>", "ann"],
)
def test_a_recipient_that_is_not_one_address_is_failed(runtime, mailbox, recipient):
    with Session(runtime.db) as session:
        row = outbox.new_mail(
            runtime, "answer_stranger", "odd", recipient, "Hello", "Hi", "<p>Hi</p>", "", None, None
        )
        session.add(row)
        session.commit()
        mail_id = row.id
    report = dispatch(runtime)
    assert (report.sent, report.failed) == (0, 1)
    assert mailbox.messages == [] and mailbox.envelopes == []
    with Session(runtime.db) as session:
        row = session.get(Mail, mail_id)
    assert row.status == "failed"
    assert row.last_error.startswith("unbuildable: the recipient")
    assert "is not one mail address" in row.last_error


def test_one_valid_address_still_goes(runtime, mailbox):
    with Session(runtime.db) as session:
        session.add(
            outbox.new_mail(
                runtime,
                "answer_stranger",
                "fine",
                "Ann@Example.org",
                "Hi",
                "Hi",
                "<p>Hi</p>",
                "",
                None,
                None,
            )
        )
        session.commit()
    assert dispatch(runtime).sent == 1
    assert mailbox.envelopes[0][1] == ["Ann@Example.org"]
