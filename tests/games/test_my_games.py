"""My games: the signed per-address link in every mail, the page it opens, forged and
revoked links, and replacing the link."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from pbem.games.service import SeatSpec
from pbem.logs import mask_tokens
from pbem.mail import games_link
from pbem.mail.models import Mail, MailAddress
from pbem.scheduler import dispatch
from tests.mail.conftest import new_game, part

LINK = re.compile(r"http://pbem\.test(/my-games/[A-Za-z0-9_-]+)")


def footer_link(mailbox, address: str, kind: str | None = None) -> str:
    message = mailbox.to(address, kind)[-1]
    return LINK.findall(part(message, "plain"))[-1]


def csrf(page: bytes) -> str:
    return re.search(rb'name="csrf_token" value="([^"]+)"', page).group(1).decode()


def test_every_mail_links_to_all_games_of_its_address(runtime, app, mailbox, clock):
    first = new_game(runtime, seats=3, policy={"deadline_after_days": 2})
    second = runtime.service.create_game(
        "pig",
        [
            SeatSpec("Bo", "bo@example.org"),
            SeatSpec("Anna B", "ANNA@example.org", timezone="Asia/Tokyo"),
        ],
        {"target": 30},
        title="Second table",
    )
    dispatch(runtime)
    path = footer_link(mailbox, "anna@example.org", "invited")
    assert {footer_link(mailbox, "ANNA@example.org", "invited"), path} == {path}
    assert footer_link(mailbox, "ben@example.org", "invited") != path
    client = app.test_client()
    page = client.get(path)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Your games" in text and "anna@example.org" in text
    assert text.count('<li class="my-game') == 2 and "Second table" in text
    assert "you are Anna B<" in text and "you are Anna<" in text
    # Whose turn, and Anna's own deadline in her zone (Europe/Berlin in the first game).
    first_due = runtime.service.game(first.game_id).to_move
    if 0 in first_due:
        assert "Your turn." in text and "CET" in text and "Your deadline:" in text
    else:
        assert "Waiting for" in text
    # The page holds no seat link; a seat opens through a checked redirect.
    for token in (*first.tokens, *second.tokens):
        assert not token or token not in text
    opened = client.get(f"{path}/seat/{first.game_id}/0")
    assert opened.status_code == 303
    assert opened.headers["Location"].endswith(f"/play/{first.tokens[0]}")
    assert (
        client.get(f"{path}/seat/{second.game_id}/1").headers["Location"].endswith(second.tokens[1])
    )
    # Not a seat of hers: the same 404 whatever it is.
    for other in (f"{first.game_id}/1", f"{second.game_id}/0", "nosuchgame/0", f"{'x' * 40}/0"):
        assert client.get(f"{path}/seat/{other}").status_code == 404
    # The access log shows no link.
    assert path.rsplit("/", 1)[1] not in mask_tokens(f"GET {path} HTTP/1.1")


def test_forged_damaged_and_foreign_links_get_the_same_404(runtime, app, mailbox):
    new_game(runtime, seats=3)
    dispatch(runtime)
    path = footer_link(mailbox, "anna@example.org")
    token = path.rsplit("/", 1)[1]
    client = app.test_client()
    flipped = token[:-5] + ("A" if token[-5] != "A" else "B") + token[-4:]
    foreign = games_link.link_token("another server's key", "anna@example.org", 0)
    later = games_link.link_token(runtime.secret_key, "anna@example.org", 1)
    answers = [
        client.get(f"/my-games/{bad}")
        for bad in (flipped, foreign, later, "x" * 60, "short", token + "AAAA")
    ]
    assert client.get("/my-games/" + "%00" * 30).status_code in (400, 404)
    assert {answer.status_code for answer in answers} == {404}
    # Alike but for the page's own address, which the theme switch returns to.
    bodies = {
        re.sub(r'name="next" value="[^"]*"', "", answer.get_data(as_text=True))
        for answer in answers[:4]
    }
    assert len(bodies) == 1 and "does not work" in bodies.pop()
    assert client.get(f"/my-games/{flipped}/seat/x/0").status_code == 404
    assert client.post(f"/my-games/{flipped}/revoke").status_code in (400, 403, 404)
    # Someone else's address in the link cannot be made without the server's key.
    assert games_link.read_token(runtime.secret_key, foreign) is None


def test_revoking_the_link_mails_a_new_one_and_the_old_one_stops(runtime, app, mailbox, clock):
    new_game(runtime, seats=3)
    dispatch(runtime)
    old = footer_link(mailbox, "anna@example.org")
    client = app.test_client()
    page = client.get(old)
    # Without the form's token nothing changes.
    assert client.post(f"{old}/revoke").status_code in (400, 403)
    assert client.get(old).status_code == 200
    answer = client.post(f"{old}/revoke", data={"csrf_token": csrf(page.data)})
    assert answer.status_code == 200 and b"A new link is on its way" in answer.data
    assert client.get(old).status_code == 404
    dispatch(runtime)
    (mail,) = mailbox.to("anna@example.org", "Your games: a new link")
    new = LINK.findall(part(mail, "plain"))[0]
    assert new != old and client.get(new).status_code == 200
    with Session(runtime.db) as session:
        assert session.get(MailAddress, "anna@example.org").games_link_generation == 1
        stored = session.exec(select(Mail).where(Mail.kind == "games_link")).one()
        assert new.rsplit("/", 1)[1] not in stored.body_text  # sealed at rest
    # Again at once: refused, nothing changes; ten minutes on it is allowed.
    fresh = csrf(client.get(new).data)
    assert client.post(f"{new}/revoke", data={"csrf_token": fresh}).status_code == 429
    assert client.get(new).status_code == 200
    clock.advance(minutes=11)
    assert client.post(f"{new}/revoke", data={"csrf_token": fresh}).status_code == 200
    assert client.get(new).status_code == 404
    # Later mails carry the newest link.
    with Session(runtime.db) as session:
        assert session.get(MailAddress, "anna@example.org").games_link_generation == 2
    newest = games_link.link_token(runtime.secret_key, "anna@example.org", 2)
    assert client.get(f"/my-games/{newest}").status_code == 200
