"""What the board in turn mails costs (:mod:`pbem.web.board_picture`): CPU per PNG per
title (median of ``--rounds`` draws, ``time.process_time``, nothing kept between
them), its bytes, the whole message's bytes, and what a kept picture costs (the mails
of one event to seats that see the same board), and the smallest text of the picture
shown 390 px wide (a phone): of the whole board (a spectator's picture) and of the
picture a seat gets (the part around its pieces, when the whole would not read).

Usage: ``PYTHONPATH=$PWD python bench/bench_mail_picture.py [--rounds N] [--moves M]``
(each title's game after M first-legal moves, three seats).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sqlmodel import Session

from pbem.games.service import SeatSpec
from pbem.mail import seat_mails
from pbem.mail.dispatch import build_message
from pbem.models import Game, Seat
from pbem.runtime import build_runtime
from pbem.web import board_picture

TITLES = ("mare_balticum", "mare_nostrum", "mercatores")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--moves", type=int, default=12)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-mail-picture-"))
    runtime = build_runtime(
        {
            "server": {"base_url": "http://pbem.bench", "demo": False},
            "security": {"secret_key": "bench"},
            "paths": {"var": str(folder / "var")},
            "database": {"url": f"sqlite:///{folder}/bench.sqlite3"},
            "mail": {"host": "", "quiet_minutes": 0},
        }
    )
    board_picture.install(runtime)
    print(f"PNG {board_picture.WIDTH} px wide, palette of {board_picture.COLOURS}")
    print(
        f"{'title':<14} {'ms/PNG (median)':>15} {'ms kept':>8} {'PNG bytes':>10} "
        f"{'mail bytes':>11} {'px':>10} {'text whole':>10} {'text seat':>9}"
    )
    for slug in TITLES:
        specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("A", "B", "C")]
        game_id = runtime.service.create_game(slug, specs, {}).game_id
        for _ in range(args.moves):
            head = runtime.service.head(game_id)
            due = sorted(head.engine.to_move(head.state))
            if not due:
                break
            move = head.engine.legal_moves(head.state, due[0])[0]
            runtime.service.submit_move(game_id, due[0], move, head.seq)
        seq = runtime.service.head(game_id).seq
        cold = []
        for _ in range(args.rounds):
            fresh = board_picture.Pictures(runtime)  # nothing kept
            started = time.process_time()
            picture = fresh(game_id, 0, seq)
            cold.append(time.process_time() - started)
        started = time.process_time()
        fresh(game_id, 0, seq)  # kept: the same board asked again
        kept = time.process_time() - started
        with Session(runtime.db) as session:
            game = session.get(Game, game_id)
            seat = session.get(Seat, (game_id, 0))
            mail = seat_mails.mail_seat(
                session,
                runtime,
                game,
                seat,
                "reminder",
                f"bench:{game_id}",
                since="",
                consequence="",
            )
            session.commit()
            session.refresh(mail)
            session.expunge(mail)
        size = len(build_message(runtime, mail).as_bytes())
        whole = board_picture.Pictures(runtime)(game_id, None, seq)
        print(
            f"{slug:<14} {statistics.median(cold) * 1000:>15.0f} {kept * 1000:>8.1f} "
            f"{len(picture.png or b''):>10} {size:>11} {picture.width:>4}x{picture.height:<5} "
            f"{whole.smallest_px:>10.1f} {picture.smallest_px:>9.1f}"
        )


if __name__ == "__main__":
    main()
