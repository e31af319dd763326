"""Every mail kind rendered for every kind of recipient, compared byte for byte with the
files in ``tests/mail/golden/``: ``<kind>__<recipient>.txt`` holds the subject, the
headers a mail client acts on and the text part; ``.html`` the HTML part.

Recipients: ``player`` (the seat's own player), ``other`` (another player of the game),
``former`` (someone who held a seat and left or was replaced), ``newcomer`` (a player
who took a seat over). The contexts are built as the server builds them
(:func:`pbem.mail.seat_mails.seat_context` and the same arguments the scheduler and the
rescue actions pass), with a fixed clock; the message goes through the dispatcher's
:func:`~pbem.mail.dispatch.build_message`.

``PBEM_UPDATE_GOLDEN=1`` rewrites the files (then read every changed one).
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel import Session

from pbem import receipts, zones
from pbem.games.admin_lines import BY_WHOM, HEADLINES, describe_admin
from pbem.games.notices import Notice
from pbem.games.service import SeatSpec
from pbem.games.tables import FormerPlayer
from pbem.mail import (
    deferred,
    game_over,
    games_link,
    open_mails,
    outbox,
    pictures,
    render,
    seat_mails,
)
from pbem.mail.dispatch import build_message
from pbem.mail.inbound import commands, moves
from pbem.mail.models import Mail
from pbem.models import Game, Seat
from pbem.scheduler import CONSEQUENCES
from pbem.web import board_picture
from tests.i18n.english import english_left
from tests.mail.conftest import Clock, make_runtime

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PBEM_UPDATE_GOLDEN") == "1"

NOW = datetime(2026, 12, 4, 11, 50, tzinfo=UTC)
DEADLINE = datetime(2026, 12, 6, 15, 0, tzinfo=UTC)
TURN_SINCE = datetime(2026, 12, 3, 15, 0, tzinfo=UTC)
GAME_ID = "g7k2m9p4qx"
BASE = "https://pbem.example"
SENDER = "pbem <games@pbem.example>"
COMMITMENT = "5f1c9a2b7e4d8c3f6a0b1e2d3c4b5a69788766554433221100ffeeddccbbaa99"
SEED = "8d2f4c6a1b3e5d7f9a0c2e4b6d8f1a3c"
HEAD_HASH = "a3f9c2e1b4d5f6a7c8e9d0b1a2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1"
POLICY = {
    "reminder_after_hours": 24,
    "reminder_every_hours": 12,
    "deadline_after_days": 3,
    "at_deadline": "bot_seat",
}
TOKEN = "Tk4nQm2xWc9rZp7LhV3sYb6dFg8jKa5e"
FOLLOW_SIGN = "Qm2xWc9rZp7LhV3sYb6dFg8j"
HEADERS = (
    "Subject",
    "To",
    "Auto-Submitted",
    "List-Id",
    "List-Unsubscribe",
    "List-Unsubscribe-Post",
)
PLAYERS = {
    "Anna": ("anna@example.org", "Europe/Berlin"),
    "Ben": ("ben@example.org", "America/New_York"),
    "Cleo": ("cleo@example.org", "UTC"),
    "Dan": ("", "UTC"),
    "Zoe": ("zoe@example.org", "Asia/Tokyo"),
}
LINES = [
    "Ben sails from Carthago to Syracusae with 2 fleets.",
    "Dan builds a temple in Alexandria.",
    "Cleo trades 2 grain for 1 wine with Ben.",
]


def golden_runtime(sqlite_db, tmp_path):
    """The golden mails' server and game, without a board drawer."""
    runtime = make_runtime(
        sqlite_db,
        tmp_path,
        Clock(NOW),
        server={"base_url": BASE, "demo": False},
        mail={"sender": SENDER},
    )
    with Session(runtime.db) as session:
        session.add(game_row(policy=POLICY))
        session.commit()
    # A fixed receipt key: Ed25519 signs alike every time, so the receipts are golden too.
    receipts.rotate(runtime.config, NOW, private=Ed25519PrivateKey.from_private_bytes(bytes(32)))
    return runtime


@pytest.fixture
def runtime(sqlite_db, tmp_path):
    runtime = golden_runtime(sqlite_db, tmp_path)
    runtime.extras[pictures.HOOK] = GoldenBoard(runtime)
    return runtime


class GoldenBoard(board_picture.Pictures):
    """The drawer the server installs, drawing for the golden game (a row without events)
    the board of a real Mare Nostrum game of the same players from a fixed seed: the
    turn mails carry a real picture and its words."""

    def __init__(self, runtime) -> None:
        super().__init__(runtime)
        seats = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Anna", "Zoe", "Cleo")]
        created = runtime.service.create_game(
            "mare_nostrum", [*seats, SeatSpec("Dan", is_bot=True)], {}, seed=b"golden-board"
        )
        self.real = created.game_id

    def __call__(self, game_id, seat, seq):
        return super().__call__(self.real, seat, self.runtime.service.head(self.real).seq)


def game_row(**changes) -> Game:
    fields = {
        "id": GAME_ID,
        "engine": "mare_nostrum",
        "engine_version": 1,
        "title": "Friday at Anna's",
        "seat_count": 4,
        "commitment": COMMITMENT,
        "head_seq": 57,
        "head_hash": HEAD_HASH,
        "phase": "Spring of year 3",
        "policy": POLICY,
        "created_at": NOW - timedelta(days=20),
        "updated_at": NOW,
    }
    fields.update(changes)
    return Game(**fields)


def seat_row(number: int, name: str) -> Seat:
    address, zone = PLAYERS[name]
    return Seat(
        game_id=GAME_ID,
        seat=number,
        name=name,
        email=address,
        token_hash="0" * 64,
        timezone=zone,
        is_bot=not address,
        created_at=NOW - timedelta(days=20),
    )


def seat_mail(runtime, number: int, name: str, deadline=None, game=None, **extra) -> dict:
    """The context :func:`seat_mails.mail_seat` gives a seat's mail."""
    game = game or game_row()
    settings = f"{BASE}/mail/settings/{GAME_ID}/{number}/sIgNaTuRe0123456789abcd"
    context = seat_mails.seat_context(
        runtime, game, seat_row(number, name), TOKEN, settings, deadline
    )
    context.update(extra)
    return {"context": context, "recipient": PLAYERS[name][0], "settings": settings}


def plain(name: str, number: int, **context) -> dict:
    """A context built by hand, as :mod:`pbem.games.rescue` builds its notices."""
    return {
        "context": {"title": "Friday at Anna's", "game_id": GAME_ID, "name": name, **context},
        "recipient": PLAYERS[name][0],
        "settings": "",
    }


def deadline_mail(runtime, number: int, name: str, late: str, policy: str) -> dict:
    """The context of :func:`pbem.scheduler._deadline_mails`."""
    mine = name == late
    return seat_mail(
        runtime,
        number,
        name,
        game=game_row(policy={**POLICY, "at_deadline": policy}),
        late="your turn" if mine else f"{late}'s turn",
        late_name=late,
        outcome=render.deadline_outcome(policy, late, mine),
    )


def cases(runtime) -> dict[str, tuple[str, dict]]:
    """Every golden case: name -> (kind, what to render)."""
    to_bot = describe_admin(
        {"kind": "seat_to_bot", "seat": 1, "payload": {"name": "Ben", "by": "deadline"}}
    )
    result = {
        "scores": [14, 11, 9, 6],
        "winners": [0],
        "reason": "most coins after the final scoring",
        "table": {
            "columns": ["Goods", "Coins"],
            "rows": [[3, 14], [5, 11], [2, 9], [4, 6]],
            "deciding": 1,
        },
    }
    over = {
        "lines": LINES[1:],
        "seed": SEED,
        **game_over.game_over_context(game_row(result=result), ["Anna", "Zoe", "Cleo", "Dan"]),
    }
    finished = game_row(status="finished", head_seq=212, phase="", result=result)
    former = FormerPlayer(
        game_id=GAME_ID,
        seat=1,
        name="Ben",
        email="ben@example.org",
        timezone="America/New_York",
        reason="replaced",
        left_seq=88,
        left_at=datetime(2026, 11, 28, 9, 30, tzinfo=UTC),
    )
    former_context = {
        "context": former_mail_context(former, over),
        "recipient": former.email,
        "settings": "",
    }
    players = [{"name": "Ben", "bot": False}, {"name": "Cleo", "bot": False}]
    return {
        "invitation__player": (
            "invitation",
            seat_mail(
                runtime,
                0,
                "Anna",
                DEADLINE,
                due=True,
                players=[*players, {"name": "Dan", "bot": True}],
            ),
        ),
        "invitation__other": (
            "invitation",
            seat_mail(
                runtime,
                1,
                "Ben",
                due=False,
                players=[
                    {"name": "Anna", "bot": False},
                    {"name": "Cleo", "bot": False},
                    {"name": "Dan", "bot": True},
                ],
            ),
        ),
        "invitation__player_already": (
            "invitation",
            seat_mail(
                runtime,
                0,
                "Anna",
                DEADLINE,
                due=True,
                already=True,
                movers=["Dan"],
                players=[*players, {"name": "Dan", "bot": True}],
            ),
        ),
        "your_turn__player": (
            "your_turn",
            seat_mail(runtime, 0, "Anna", DEADLINE, lines=LINES, others=["Cleo"]),
        ),
        "answer__player": (
            "answer",
            seat_mail(
                runtime,
                0,
                "Anna",
                headline="your move was made",
                applied=["Offer coin, oil"],
                refusal="",
                lines=LINES[1:],
                next_up="It is your turn again.",
                move_groups=moves.groups(
                    [
                        moves.Listed(1, "Take a coin from Ben (Carthage)", "take", {}),
                        moves.Listed(2, "Take a wine card from Cleo (Babylon)", "take", {}),
                    ]
                ),
                written=[],
                bouncing=["Dan"],
            ),
        ),
        "answer_stranger__other": (  # about no game the recipient holds a seat in
            "answer_stranger",
            {**plain("Ben", 1, sender="ben@example.org"), "game_id": None},
        ),
        "answer_gone__other": (  # about no game the recipient holds a seat in
            "answer_gone",
            {**plain("Ben", 1, sender="ben@example.org"), "game_id": None},
        ),
        "your_turn__newcomer": (
            "your_turn",
            seat_mail(runtime, 1, "Zoe", DEADLINE, lines=LINES, newcomer=True),
        ),
        "reminder__player": (
            "reminder",
            seat_mail(
                runtime,
                0,
                "Anna",
                DEADLINE,
                since=zones.when(TURN_SINCE, "Europe/Berlin"),
                consequence=CONSEQUENCES["bot_seat"],
            ),
        ),
        "reminder__newcomer": (
            "reminder",
            seat_mail(
                runtime,
                1,
                "Zoe",
                DEADLINE,
                since=zones.when(TURN_SINCE, "Asia/Tokyo"),
                consequence=CONSEQUENCES["bot_seat"],
                newcomer=True,
            ),
        ),
        "deadline__player": ("deadline", deadline_mail(runtime, 1, "Ben", "Ben", "bot_seat")),
        "deadline__other": ("deadline", deadline_mail(runtime, 0, "Anna", "Ben", "bot_seat")),
        "deadline__player_bot_turn": (
            "deadline",
            deadline_mail(runtime, 1, "Ben", "Ben", "bot_turn"),
        ),
        "deadline__other_bot_turn": (
            "deadline",
            deadline_mail(runtime, 0, "Anna", "Ben", "bot_turn"),
        ),
        "deadline__player_replace": (
            "deadline",
            deadline_mail(runtime, 1, "Ben", "Ben", "replace"),
        ),
        "deadline__other_replace": (
            "deadline",
            deadline_mail(runtime, 2, "Cleo", "Ben", "replace"),
        ),
        "notice__player": (
            "notice",
            seat_mail(
                runtime,
                1,
                "Ben",
                headline=HEADLINES["seat_to_bot"],
                lines=[
                    f"From now on a bot plays your seat, {BY_WHOM['deadline']}.",
                    'Your link still works: open it, go to "Seats and deadlines" and choose '
                    '"Take my seat back" at any time.',
                ],
            ),
        ),
        "notice__other": (
            "notice",
            seat_mail(runtime, 0, "Anna", headline=HEADLINES["seat_to_bot"], lines=[to_bot]),
        ),
        "notice__former": (
            "notice",
            plain(
                "Ben",
                1,
                headline=HEADLINES["seat_offered"],
                lines=[
                    "The deadline of your turn passed, so your seat is offered to a new "
                    "player; your link no longer opens it.",
                    f"The seat is open on the game's page, {BASE}/games/{GAME_ID}; to come "
                    "back, ask for it there with your address while nobody else has taken it.",
                ],
                link="",
                settings="",
                former=True,
                game_page=f"{BASE}/games/{GAME_ID}",
                head_hash=HEAD_HASH,
                head_seq=58,
            ),
        ),
        "notice__newcomer": (
            "notice",
            plain(
                "Zoe",
                1,
                headline="A seat is offered to you",
                lines=[
                    "You are invited to take over Ben's seat in Friday at Anna's.",
                    "Open the link and accept the seat to play it; nothing happens until you "
                    "do. Keep the link to yourself: once you accept, it is your seat.",
                ],
                link=f"{BASE}/play/{TOKEN}",
                settings="",
                newcomer=True,
                commitment=COMMITMENT,
                game_page=f"{BASE}/games/{GAME_ID}",
            ),
        ),
        "notice__newcomer_taken": (
            "notice",
            seat_mail(
                runtime,
                1,
                "Zoe",
                headline=HEADLINES["seat_taken"],
                lines=[
                    "You take over Ben's seat.",
                    "The seat is yours now; your link opens it. Keep it to yourself.",
                ],
                newcomer=True,
            ),
        ),
        "seat_link__player": (
            "seat_link",
            seat_mail(
                runtime,
                1,
                "Ben",
                DEADLINE,
                message="Your seat is yours again; the bot has stopped. Here is your fresh "
                "link (the old one no longer works).",
            ),
        ),
        "seat_link__newcomer": (
            "seat_link",
            seat_mail(
                runtime,
                1,
                "Zoe",
                message="Here is a fresh link to your seat; the old one no longer works.",
                newcomer=True,
            ),
        ),
        "digest__player": (
            "digest",
            {
                "context": {
                    "name": "Cleo",
                    "count": 2,
                    "games": [
                        {
                            "title": "Friday at Anna's",
                            "phase": "Spring of year 3",
                            "since": zones.when(TURN_SINCE, "UTC"),
                            "deadline": zones.when(DEADLINE, "UTC", NOW),
                            "link": f"{BASE}/play/{TOKEN}",
                        },
                        {
                            "title": "Mercatores",
                            "phase": "",
                            "since": zones.when(TURN_SINCE - timedelta(days=1), "UTC"),
                            "deadline": "",
                            "link": f"{BASE}/play/{TOKEN[::-1]}",
                        },
                    ],
                    "settings": f"{BASE}/mail/settings/{GAME_ID}/2/sIgNaTuRe0123456789abcd",
                },
                "recipient": "cleo@example.org",
                "settings": f"{BASE}/mail/settings/{GAME_ID}/2/sIgNaTuRe0123456789abcd",
                "game_id": None,
            },
        ),
        "talk__player": (
            "talk",
            seat_mail(
                runtime,
                0,
                "Anna",
                sender_name="Ben",
                private=False,
                talk_verb="said to the table",
                said="Who wants grain? I have two,\nand wine for anyone who asks nicely.",
            ),
        ),
        "talk__player_private": (
            "talk",
            seat_mail(
                runtime,
                2,
                "Cleo",
                sender_name="Ben",
                private=True,
                talk_verb="wrote to you privately",
                said="Cleo: Anna is bluffing <b>again</b>.",
            ),
        ),
        "talk_digest__player": (
            "talk_digest",
            {
                "context": {
                    "name": "Cleo",
                    "count": 0,
                    "games": [],
                    "talk": [
                        {
                            "title": "Friday at Anna's",
                            "said": [
                                "Anna said to the table: “Good luck, all”",
                                "Ben said to you (private): “Watch Anna's fleets”",
                            ],
                        }
                    ],
                    "settings": f"{BASE}/mail/settings/{GAME_ID}/2/sIgNaTuRe0123456789abcd",
                },
                "recipient": "cleo@example.org",
                "settings": f"{BASE}/mail/settings/{GAME_ID}/2/sIgNaTuRe0123456789abcd",
                "game_id": None,
            },
        ),
        "game_over__player": (
            "game_over",
            seat_mail(runtime, 0, "Anna", game=finished, **over),
        ),
        "game_over__other": (
            "game_over",
            seat_mail(runtime, 2, "Cleo", game=finished, **over),
        ),
        "game_over__newcomer": (
            "game_over",
            seat_mail(runtime, 1, "Zoe", game=finished, newcomer=True, **over),
        ),
        "game_over__former": ("game_over", former_context),
        "open__newcomer": (  # the link to confirm a seat asked for in an open game
            "open",
            {
                "context": open_mails.notice_context(
                    runtime,
                    Notice(
                        kind="open_hold",
                        key="golden",
                        game_id=GAME_ID,
                        address="zoe@example.net",
                        name="Zoe",
                        facts={
                            "title": "Friday at Anna's",
                            "token": "T" * 43,
                            "lapses_at": DEADLINE,
                        },
                    ),
                ),
                "recipient": "zoe@example.net",
                "settings": "",
                "game_id": None,
            },
        ),
        "open__other": (  # the answer to HELP at the general address
            "open",
            {
                "context": commands.help_answer(runtime),
                "recipient": "ben@example.org",
                "settings": "",
                "game_id": None,
            },
        ),
        # A spectator following the game (pbem.channels.follow): no seat, no games link.
        "follow_confirm__other": (
            "follow_confirm",
            {
                "context": {
                    "title": "Friday at Anna's",
                    "game_page": f"{BASE}/games/{GAME_ID}",
                    "link": f"{BASE}/follow/7/{FOLLOW_SIGN}/confirm",
                    "every_turn": True,
                    "hours": 48,
                },
                "recipient": "fan@example.net",
                "settings": "",
            },
        ),
        "follow_turn__other": (
            "follow_turn",
            {
                "context": {
                    "title": "Friday at Anna's",
                    "game_page": f"{BASE}/games/{GAME_ID}",
                    "stop": f"{BASE}/follow/7/{FOLLOW_SIGN}/stop",
                    "whose": "Ben",
                },
                "recipient": "fan@example.net",
                "settings": f"{BASE}/follow/7/{FOLLOW_SIGN}/stop",
            },
        ),
        "follow_result__other": (
            "follow_result",
            {
                "context": {
                    "title": "Friday at Anna's",
                    "game_page": f"{BASE}/games/{GAME_ID}",
                    "stop": f"{BASE}/follow/7/{FOLLOW_SIGN}/stop",
                    "result": "Cleo wins.",
                },
                "recipient": "fan@example.net",
                "settings": f"{BASE}/follow/7/{FOLLOW_SIGN}/stop",
            },
        ),
        "games_link__player": (
            "games_link",
            {
                "context": {"my_games": my_games_of(runtime, "cleo@example.org")},
                "recipient": "cleo@example.org",
                "settings": "",
                "game_id": None,
            },
        ),
    }


def my_games_of(runtime, address: str) -> str:
    """The footer's link to ``address``'s games, as the outbox puts it in every mail."""
    return f"{BASE}/my-games/{games_link.link_token(runtime.secret_key, address, 0)}"


def former_mail_context(former: FormerPlayer, over: dict) -> dict:
    """What :func:`seat_mails.mail_former` renders (it renders at once; here the context
    again, to render the same way as the other cases)."""
    return {
        "title": "Friday at Anna's",
        "game_name": "Mare Nostrum",
        "game_id": GAME_ID,
        "game_page": f"{BASE}/games/{GAME_ID}",
        "name": former.name,
        "seat": former.seat,
        "seat_name": "Zoe",
        "until": zones.when(former.left_at, former.timezone),
        "link": "",
        "settings": "",
        "head_hash": HEAD_HASH,
        "head_seq": 212,
        "commitment": COMMITMENT,
        "former": True,
        **over,
    }


def message_of(runtime, kind: str, case: dict):
    context = dict(case["context"])
    if kind not in outbox.NO_GAMES_LINK:
        context = {"my_games": my_games_of(runtime, case["recipient"]), **context}
    subject, text, html = render.render(kind, outbox.with_receipt(runtime, context))
    mail = Mail(
        key="golden",
        kind=kind,
        game_id=case.get("game_id", GAME_ID),
        seat=None,
        recipient=case["recipient"],
        subject=subject,
        body_text=text,
        body_html=html,
        message_id="<golden@pbem.example>",
        unsubscribe=case["settings"],
        next_attempt_at=NOW,
        created_at=NOW,
    )
    return build_message(runtime, mail)


def golden_text(message) -> str:
    head = "".join(f"{name}: {message[name]}\n" for name in HEADERS if message[name] is not None)
    head += "".join(f"Image: {image}\n" for image in images_of(message))
    body = message.get_body(preferencelist=("plain",)).get_content()
    return head + "\n" + body


BOARD_CID = re.compile(r"board\.[0-9a-f]{16}@pbem")


def images_of(message) -> list[str]:
    """The images of the HTML part (the board), by what does not hang on the renderer's
    bytes: type, disposition, Content-ID (its digest masked) and size in pixels; each
    mail under 200 KB."""
    assert len(message.as_bytes()) < 200 * 1024
    found = []
    for part in message.walk():
        if part.get_content_maintype() == "image":
            data = part.get_content()
            size = f"{int.from_bytes(data[16:20], 'big')}x{int.from_bytes(data[20:24], 'big')}"
            cid = BOARD_CID.sub("board.DIGEST@pbem", part["Content-ID"])
            found.append(f"{part.get_content_type()} {part.get_content_disposition()} {cid} {size}")
    return found


def golden_html(message) -> str:
    html = message.get_body(preferencelist=("html",)).get_content()
    return BOARD_CID.sub("board.DIGEST@pbem", html)


NAMES = [
    "invitation__player",
    "invitation__other",
    "invitation__player_already",
    "your_turn__player",
    "your_turn__newcomer",
    "answer__player",
    "answer_stranger__other",
    "answer_gone__other",
    "reminder__player",
    "reminder__newcomer",
    "deadline__player",
    "deadline__other",
    "deadline__player_bot_turn",
    "deadline__other_bot_turn",
    "deadline__player_replace",
    "deadline__other_replace",
    "notice__player",
    "notice__other",
    "notice__former",
    "notice__newcomer",
    "notice__newcomer_taken",
    "seat_link__player",
    "seat_link__newcomer",
    "digest__player",
    "talk__player",
    "talk__player_private",
    "talk_digest__player",
    "game_over__player",
    "game_over__other",
    "game_over__newcomer",
    "game_over__former",
    "games_link__player",
    "open__newcomer",
    "open__other",
    "follow_confirm__other",
    "follow_turn__other",
    "follow_result__other",
]


def test_the_cases_cover_every_kind_and_the_folder_holds_nothing_else(runtime):
    built = cases(runtime)
    assert sorted(built) == sorted(NAMES)
    assert {kind for kind, _ in built.values()} == set(render.SUBJECTS)
    recipients = {name.split("__")[1].split("_")[0] for name in NAMES}
    assert recipients == {"player", "other", "former", "newcomer"}
    if not UPDATE:
        on_disk = {path.name for path in GOLDEN.iterdir() if path.is_file()}
        assert on_disk == {f"{name}.{ext}" for name in NAMES for ext in ("txt", "html")}


@pytest.mark.parametrize("name", NAMES)
def test_golden_mail(runtime, name):
    kind, case = cases(runtime)[name]
    message = message_of(runtime, kind, case)
    text, html = golden_text(message), golden_html(message)
    for suffix, content in (("txt", text), ("html", html)):
        path = GOLDEN / f"{name}.{suffix}"
        if UPDATE:
            GOLDEN.mkdir(exist_ok=True)
            path.write_bytes(content.encode())
        assert path.read_bytes() == content.encode(), f"{path.name} differs; see its diff"
    assert_reads_right(text, html)


def assert_reads_right(text: str, html: str) -> None:
    """What no mail may say, whatever it renders."""
    for part in (text, html):
        assert "None" not in part and "{{" not in part and "{%" not in part
        assert not re.search(r"\.\)\.|\.\.(?!\.)|\s\.", part.replace("...", "")), part
        assert "you's" not in part.lower() and "you reclaims" not in part.lower()
        assert not re.search(r"\bseat [0-9]\b", part), part
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html


def test_the_former_players_mail_is_what_mail_former_writes(runtime):
    """The golden ``game_over__former`` renders the context :func:`seat_mails.mail_former`
    builds: the text it writes to the outbox is the same."""
    kind, case = cases(runtime)["game_over__former"]
    context = {"my_games": my_games_of(runtime, "ben@example.org"), **case["context"]}
    _, expected, _ = render.render(kind, outbox.with_receipt(runtime, context))
    former = FormerPlayer(
        game_id=GAME_ID,
        seat=1,
        name="Ben",
        email="ben@example.org",
        timezone="America/New_York",
        reason="replaced",
        left_at=datetime(2026, 11, 28, 9, 30, tzinfo=UTC),
    )
    with Session(runtime.db) as session:
        game = session.get(Game, GAME_ID)
        game.head_seq = 212
        over = {
            key: case["context"][key]
            for key in ("lines", "standings", "headline", "reason", "seed")
        }
        mail = seat_mails.mail_former(
            session, runtime, game, former, "game_over", "k", seat_name="Zoe", **over
        )
        session.rollback()
    assert mail.recipient == "ben@example.org" and not mail.unsubscribe
    # The footer's link to Ben's games is sealed in the outbox, as every secret link is.
    assert "/my-games/{sealed:" in mail.body_text
    assert deferred.opened(runtime, mail)[0] == expected
    assert "You held a seat in Friday at Anna's until Sat 28 Nov 2026, 04:30 EST" in expected
    assert "in the result below it is Zoe's seat" in expected


# Each title's turn mail in each language but English, from a real game of the title
# (fixed seed, each seat's first legal move until Anna is due again after the others
# moved): ``golden/<language>/your_turn__<title>.txt`` and ``.html``. The lines and the
# phase are the engine's, as the dispatcher renders them (pbem.mail.deferred), in the
# mail's language. ``PBEM_UPDATE_GOLDEN=1`` rewrites these too.
LANGUAGES = ("de", "pl", "fr")
TITLES = ("mare_balticum", "mercatores", "mare_nostrum")


class TitleBoard(board_picture.Pictures):
    """The board of the real game behind a title's golden turn mail."""

    def __init__(self, runtime, game_id: str) -> None:
        super().__init__(runtime)
        self.real = game_id

    def __call__(self, game_id, seat, seq):
        return super().__call__(self.real, seat, self.runtime.service.head(self.real).seq)


def title_turn(runtime, slug: str, language: str) -> dict:
    """The context of Anna's turn mail in a real game of ``slug``, in ``language``."""
    from pbem import i18n
    from pbem.games import names
    from pbem.mail.history import history, history_start

    service = runtime.service
    seats = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Anna", "Zoe", "Cleo")]
    # A fixed id too: the server's draws for a seat come from the seed and the id.
    game_id = service.create_game(
        slug, seats, {}, seed=f"golden-{slug}".encode(), game_id=f"g{slug[:8]}"[:10]
    ).game_id
    others_moved, anna_moved = set(), False
    for _ in range(80):
        head = service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if due == [0] and anna_moved and others_moved:
            break
        seat = next((number for number in due if number != 0), due[0])
        move = head.engine.legal_moves(head.state, seat)[0]
        service.submit_move(game_id, seat, move, head.seq)
        anna_moved = anna_moved or seat == 0
        if anna_moved and seat != 0:
            others_moved.add(seat)
    runtime.extras[pictures.HOOK] = TitleBoard(runtime, game_id)
    with Session(runtime.db) as session, i18n.speaking(language):
        game = session.get(Game, game_id)
        anna = session.get(Seat, (game_id, 0))
        engine = service.head(game_id).engine
        lines, state = history(
            session, runtime, game, engine, 0, history_start(game, anna), zone="Europe/Berlin"
        )
        phase, marks = names.phase_line(engine, state)
        phase = names.fill(phase, ["Anna", "Zoe", "Cleo"], marks)
    row = seat_row(0, "Anna")
    row.language = language
    settings = f"{BASE}/mail/settings/{GAME_ID}/0/sIgNaTuRe0123456789abcd"
    context = seat_mails.seat_context(
        runtime, game_row(engine=slug, phase=phase), row, TOKEN, settings, DEADLINE
    )
    context.update(lines=lines, others=[], phase=phase)
    return {"context": context, "recipient": "anna@example.org", "settings": settings}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", TITLES)
def test_each_titles_turn_mail_in_each_language(runtime, slug, language):
    message = message_of(runtime, "your_turn", title_turn(runtime, slug, language))
    text, html = golden_text(message), golden_html(message)
    for suffix, content in (("txt", text), ("html", html)):
        path = GOLDEN / language / f"your_turn__{slug}.{suffix}"
        if UPDATE:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode())
        assert path.read_bytes() == content.encode(), f"{language}/{path.name} differs"
    assert_reads_right(text, html)
    assert f'<html lang="{language}">' in html
    # Nothing of the mail as sent (its board filled in) is left in English.
    assert english_left(text.split("\n\n", 1)[1], html=False) == []  # (the body)
    assert english_left(html) == []
