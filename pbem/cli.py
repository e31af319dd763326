"""The ``pbem`` command: run the server, manage games, export and verify logs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engines import REGISTRY
from pbem.errors import PbemError
from pbem.eventlog.roster import BOT_LEVELS
from pbem.games import listing, names


def _runtime(args, create_schema: bool = True):
    from pbem.runtime import build_runtime

    overrides: dict[str, Any] = {}
    if getattr(args, "database", None):
        overrides["database"] = {"url": args.database}
    return build_runtime(overrides, create_schema=create_schema)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def link_for(runtime, token: str) -> str:
    return f"{runtime.config['server']['base_url'].rstrip('/')}/play/{token}"


# Commands ------------------------------------------------------------------------------


def cmd_serve(args) -> int:
    from pbem import demo
    from pbem.web import create_app
    from pbem.web.embedded import serve

    if args.production:
        # Production everywhere: this process, and the gunicorn workers that inherit
        # the environment and build their own configuration.
        os.environ["PBEM_SERVER_PRODUCTION"] = "true"
    runtime = _runtime(args)
    host = args.host or runtime.config["server"]["host"]
    port = args.port or runtime.config["server"]["port"]
    if runtime.production:
        return serve_production(runtime, host, port, args.workers)
    app = create_app(runtime=runtime)
    if runtime.config["server"].get("demo") and not args.no_demo:
        links = demo.ensure_demo(runtime)
        if links:
            print("\nDemo games are ready: bots hold every seat but yours. Open:")
            for title, link in links:
                print(f"  {title}: {link}")
    print(f"\npbem is running at http://{host}:{port}/  (Ctrl-C stops it)\n", flush=True)
    return serve(app, runtime, host, port)


def gunicorn_command(runtime, host: str, port: int, workers: int | None) -> list[str]:
    """The gunicorn command line of ``pbem serve --production``: its access log goes
    through :class:`pbem.web.accesslog.MaskingLogger`, which masks every token.

    gunicorn believes ``X-Forwarded-Proto`` (https, hence HSTS and ``Secure`` cookies)
    from the addresses in ``--forwarded-allow-ips``, 127.0.0.1 unless told otherwise:
    the local proxy when ``server.proxies`` says there is one, nobody (an explicit empty
    list) when there is none."""
    import shutil

    gunicorn = shutil.which("gunicorn") or str(Path(sys.executable).parent / "gunicorn")
    count = workers or int(runtime.config["server"].get("workers", 4))
    proxies = int(runtime.config["server"].get("proxies", 0) or 0)
    return [
        gunicorn,
        "--workers",
        str(count),
        "--threads",
        "4",
        "--bind",
        f"{host}:{port}",
        "--access-logfile",
        "-",
        "--logger-class",
        "pbem.web.accesslog.MaskingLogger",
        "--forwarded-allow-ips",
        "127.0.0.1" if proxies > 0 else "",
        "pbem.web:create_app()",
    ]


def serve_production(runtime, host: str, port: int, workers: int | None) -> int:
    """Replaces this process with gunicorn running N stateless web workers.

    The scheduler and the mail dispatcher do not run here: start one ``pbem worker``.
    """
    if runtime.config["database"]["url"].startswith("sqlite"):
        print(
            "Production mode wants PostgreSQL: set PBEM_DATABASE_URL "
            "(postgresql+psycopg://user@host/db).",
            file=sys.stderr,
        )
        return 2
    command = gunicorn_command(runtime, host, port, workers)
    print(f"Starting {command[2]} web workers: {' '.join(command)}", flush=True)
    print("Run the scheduler and mail separately: pbem worker", flush=True)
    os.execv(command[0], command)
    return 0


def cmd_worker(args) -> int:
    from pbem import scheduler
    from pbem.web import board_picture

    runtime = _runtime(args)
    board_picture.install(runtime)  # the board in turn mails (drawn as they are sent)
    listener = None
    if runtime.config["mail"].get("inbound_lmtp"):
        from pbem.mail.inbound import lmtp

        listener = lmtp.start(runtime, runtime.config["mail"]["inbound_lmtp"])
        print(f"pbem worker: LMTP on {runtime.config['mail']['inbound_lmtp']}", flush=True)
    try:
        scheduler.run_worker(runtime)
    finally:
        if listener is not None:
            listener.stop()
    return 0


def cmd_receive(args) -> int:
    """One message on stdin, for an MTA's pipe transport; sysexits status (0 taken, 67
    no such address, 75 try again later). It starts once per message, so it loads only
    what a message needs: no web application, no templates unless an answer is
    rendered here, and no migrations (the server's ``pbem migrate`` or ``pbem serve``
    made the schema; a database without it is "try again later")."""
    from pbem.mail.inbound import message, receive

    raw = sys.stdin.buffer.read(message.MAX_BYTES + 1)
    while sys.stdin.buffer.read(1 << 16):
        pass  # the rest of an oversized message: read, so the MTA sees it taken
    try:
        runtime = _runtime(args, create_schema=False)
        taken = receive.take(runtime, raw, args.recipient or None, args.sender)
    except Exception as error:  # noqa: BLE001 - the MTA keeps the mail and tries again
        print(f"pbem receive: try again later: {error}", file=sys.stderr)
        return receive.EX_TEMPFAIL
    if taken.status != receive.EX_OK:
        print(f"pbem receive: {taken.outcome}: {taken.detail}", file=sys.stderr)
    return taken.status


def cmd_inbound(args) -> int:
    import threading

    from pbem.mail.inbound import lmtp

    runtime = _runtime(args)
    try:
        listener = lmtp.start(runtime, args.lmtp)
    except ValueError as error:
        print(str(error), file=sys.stderr)
        return 2
    print(f"pbem inbound: LMTP on {args.lmtp}; Ctrl-C stops it.", flush=True)
    stop = threading.Event()
    try:
        import signal

        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        listener.stop()
    return 0


def seats_from_args(specs: Sequence[str]) -> list:
    """``--seat`` values as seats: ``NAME:EMAIL`` (one address), ``bot`` or ``bot:LEVEL``
    (``bot:easy``, ``bot:normal``, ``bot:hard``: the title must offer the level), or
    ``open`` (None: a seat for anyone to join on ``/open``)."""
    from pbem.errors import BadInput
    from pbem.games.service import SeatSpec
    from pbem.validate import clean_email, clean_name

    seats = []
    for index, spec in enumerate(specs):
        kind, _, level = spec.strip().partition(":")
        if spec.strip().lower() == "open":
            seats.append(None)
            continue
        if kind.lower() == "bot" and "@" not in level:
            level = level.lower() or "normal"
            if level not in BOT_LEVELS:
                words = ", ".join(f"bot:{known}" for known in BOT_LEVELS)
                raise BadInput(
                    f"Seat {index + 1}: a bot seat is bot or one of {words}, not {spec!r}."
                )
            seats.append(SeatSpec(f"Bot {index + 1}", is_bot=True, bot_level=level))
            continue
        name, colon, email = spec.rpartition(":")
        try:
            if not colon:
                raise BadInput("give it as NAME:EMAIL, or the word bot (or open).")
            seats.append(SeatSpec(clean_name(name), clean_email(email)))
        except BadInput as error:
            raise BadInput(f"Seat {index + 1} ({spec!r}): {error.message}") from None
    return seats


def cmd_new(args) -> int:
    from pbem.validate import clean_title

    seats = seats_from_args(args.seat)
    title = clean_title(args.title or "")
    runtime = _runtime(args)
    options = json.loads(args.options) if args.options else {}
    service = runtime.service
    # The server commits to its seed first; the creator's contribution comes after.
    pending, commitment = service.begin_game()
    print(f"The server has drawn this game's seed; its commitment (sha256) is {commitment}.")
    try:
        creator = creator_contribution(args)
        if any(spec is None for spec in seats):
            return _new_open(runtime, args.game, seats, options, title, pending, creator)
        created = service.create_game(
            args.game, seats, options, title=title, pending=pending, contributions=[creator]
        )
    except BaseException:
        service.drop_pending(pending)
        raise
    print(f"Game {created.game_id} created (seed commitment {created.commitment}).")
    for index, (spec, token) in enumerate(zip(seats, created.tokens, strict=True)):
        where = link_for(runtime, token) if token else "(bot)"
        print(f"  seat {index} {spec.name}: {where}")
    runtime.service.bots_now(created.game_id)  # a slow bot is left to the server's sweep
    say_waiting_bots(runtime, created.game_id)
    return 0


def creator_contribution(args) -> dict:
    """The creator's contribution to the dice, taken after the commitment was shown:
    one line from stdin (``--contribution -``), drawn by the server
    (``--let-server-draw``, or when stdin is no terminal and neither was given), or
    asked for at a prompt."""
    from pbem.errors import BadInput
    from pbem.eventlog import chance, contributions

    if args.let_server_draw or (args.contribution is None and not sys.stdin.isatty()):
        if not args.let_server_draw:
            print("No contribution given (stdin is no terminal): the server draws it.")
        return contributions.record(0, "creator", "server", chance.new_contribution())
    if args.contribution is not None and args.contribution != "-":
        raise BadInput(
            "--contribution takes '-' (one line from stdin, read after the commitment is "
            "shown): a contribution typed on the command line was chosen before it."
        )
    if args.contribution == "-":
        line = sys.stdin.readline()
    else:
        line = input(
            "Your contribution to the dice (anything you like; empty lets the server draw): "
        )
    if not line.strip():
        return contributions.record(0, "creator", "server", chance.new_contribution())
    try:
        value = chance.clean_contribution(line)
    except ValueError as error:
        raise BadInput(f"Your contribution: {error}") from None
    return contributions.record(0, "creator", "command line", value)


def _new_open(
    runtime, game: str, seats: list, options: dict, title: str, pending: str, creator: dict
) -> int:
    """A game with open seats: listed on /open until they are taken (then it starts and
    every player is mailed their link); prints its page and the creator's."""
    from pbem import links
    from pbem.games import open_games

    created = open_games.create_open(
        runtime, game, seats, options, title=title, pending=pending, contribution=creator
    )
    print(f"Game {created.game_id} is open for players; it starts when its seats are taken.")
    print(f"  its page: {links.open_url(runtime.config, created.game_id)}")
    print(f"  the creator's page: {links.open_manage_url(runtime.config, created.token)}")
    return 0


def cmd_games(args) -> int:
    """One page of games, newest activity first; ``--after`` the cursor it ends with."""
    print_games(_runtime(args), args.status, args.game, args.after, args.limit)
    return 0


def print_games(runtime, status, game, after, limit) -> None:
    """Prints one page of the games (:func:`pbem.games.listing.page_lines`)."""
    for line in listing.page_lines(runtime.service, status, game, after, limit):
        print(line)


def cmd_show(args) -> int:
    runtime = _runtime(args)
    view = runtime.service.view(args.game, args.seat, args.at)
    _print_json(view)
    return 0


def cmd_move(args) -> int:
    runtime = _runtime(args)
    try:
        move = json.loads(args.move)
    except json.JSONDecodeError as error:
        print(f"The move is not valid JSON: {error}", file=sys.stderr)
        return 2
    head = runtime.service.head(args.game)
    expected = head.seq if args.expected_seq is None else args.expected_seq
    outcome = runtime.service.submit_move(args.game, args.seat, move, expected, actor="cli")
    print(f"Move accepted as event {outcome.seq}; head hash {outcome.head_hash}.")
    lines = head.engine.describe(head.state, args.seat, move, outcome.state, args.seat)
    seat_names = [seat.name for seat in runtime.service.seats(args.game)]
    marks = names.public_marks(head.engine, outcome.state)
    for line in names.fill_lines(lines, seat_names, marks):
        print(f"  {line}")
    if outcome.bot_moves:
        print(f"Bots made {outcome.bot_moves} moves.")
    say_waiting_bots(runtime, args.game)
    return 0


def say_waiting_bots(runtime, game_id: str) -> None:
    """Names the bots still due after a command's own bots moved: those at a slow level,
    which a command never plays (the running server's runner or sweep does)."""
    waiting = [seat.name for seat in runtime.service.seats(game_id) if seat.is_bot and seat.due]
    if waiting:
        print(
            f"{', '.join(waiting)} to move: a bot that thinks long moves when the server "
            "(pbem serve or pbem worker) next plays the bots."
        )


def cmd_export(args) -> int:
    runtime = _runtime(args)
    if args.all:
        if args.format == "record":
            raise PbemError(
                "export --all writes full JSON exports, people and all, for import; "
                "a record is written one game at a time."
            )
        return export_all(runtime, Path(args.output or "export"))
    if not args.game:
        print("Name a game, or use --all.", file=sys.stderr)
        return 2
    if args.format == "record":
        from pbem.games.portable import export_record

        if args.full:
            raise PbemError(
                "A record holds no one's personal data: --full is for the JSON export "
                "(a running game's record is one seat's: --seat)."
            )
        text = export_record(runtime.service, args.game, seat=args.seat, server=_server(runtime))
        if args.output:
            Path(args.output).write_text(text)
        else:
            print(text, end="")
        return 0
    data = runtime.service.export_game(args.game, seat=args.seat, full=args.full)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    return 0


def _server(runtime) -> str:
    """This server's address, for a record's header (empty when not configured)."""
    from pbem import links

    try:
        return links.base_url(runtime.config)
    except Exception:  # noqa: BLE001 - the header line is left out
        return ""


def export_all(runtime, folder: Path) -> int:
    """One full log per game into ``folder``, never outside it: a game whose id is not
    of this server's form is skipped and named, and the rest of the backup goes on."""
    from pbem.validate import is_game_id

    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve()
    written, skipped = 0, []
    for game in runtime.service.games():
        target = (root / f"{game.id}.json").resolve()
        if not is_game_id(game.id) or target.parent != root:
            skipped.append(f"{game.id!r}: not a game id of this server's form")
            continue
        try:
            data = runtime.service.export_game(game.id, full=True)
        except PbemError as error:
            skipped.append(f"{game.id}: {error.message}")
            continue
        target.write_text(json.dumps(data, ensure_ascii=False))
        written += 1
    print(f"Exported {written} games to {folder}/.")
    for problem in skipped:
        print(f"Skipped {problem}", file=sys.stderr)
    return 1 if skipped else 0


def _read_log_file(path: str) -> Any:
    """An exported log: a JSON file, or a readable record (read back into the JSON
    export it was written from); a sentence why not otherwise."""
    from pbem.games.record import RecordError, read_record

    text = _record_text(path)
    if text is None:
        return _read_json_file(path)
    try:
        return read_record(text)
    except RecordError as error:
        raise PbemError(f"{path}, {error}.") from None


def _record_text(path: str) -> str | None:
    """The file's text when it is a readable record, else None."""
    from pbem.games.record import MAX_CHARS, is_record

    try:
        with open(path, "rb") as handle:
            start = handle.read(64)
            if not is_record(start.decode("utf-8", "replace")):
                return None
            text = start + handle.read(MAX_CHARS * 4)
    except OSError as error:
        raise PbemError(f"Cannot read {path}: {error.strerror or error}.") from None
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise PbemError(f"{path} is not UTF-8 text.") from None


def _read_json_file(path: str) -> Any:
    """A JSON file, bounded (depth, finite numbers, no NUL), or a sentence why not."""
    from pbem.bounds import read_json_file

    try:
        return read_json_file(path)
    except OSError as error:
        raise PbemError(f"Cannot read {path}: {error.strerror or error}.") from None
    except ValueError as error:
        raise PbemError(f"{path} is not a JSON file we can read: {error}.") from None


def cmd_import(args) -> int:
    """Imports one exported file, or every ``*.json`` file of a folder (``export --all``)."""
    runtime = _runtime(args)
    source = Path(args.file)
    if not source.is_dir():
        import_file(runtime, source, mail=not args.no_mail)
        return 0
    files = sorted(source.glob("*.json"))
    if not files:
        raise PbemError(f"{source}/ holds no .json files; nothing was imported.")
    failed = 0
    for path in files:
        try:
            import_file(runtime, path, mail=not args.no_mail)
        except PbemError as error:
            failed += 1
            print(f"{path.name}: {error.message}", file=sys.stderr)
    print(f"Imported {len(files) - failed} of {len(files)} files from {source}/.")
    return 1 if failed else 0


def import_file(runtime, path: Path, *, mail: bool = True) -> str:
    """Imports one exported file (see :func:`pbem.games.portable.import_full`) and prints
    each seat's fresh link."""
    from pbem.games.portable import import_full
    from pbem.validate import is_game_id

    data = _read_log_file(str(path))
    header = data.get("game") if isinstance(data, dict) else None
    claimed = header.get("id") if isinstance(header, dict) else None
    if not is_game_id(claimed):
        raise PbemError(
            f"{path} names the game {str(claimed)[:80]!r}, which is not a game id of "
            "this server's form (4-32 lower-case letters, digits and hyphens); nothing was imported."
        )
    check_import_text(data)
    imported = import_full(runtime.service, data, runtime=runtime, mail=mail)
    game_id = imported.game_id
    if not imported.links:
        print(f"Imported game {game_id}; it is over, or no person holds a seat: no links.")
    else:
        told = "mailed to their players" if mail else "not mailed (--no-mail): hand them out"
        print(f"Imported game {game_id}; it carries on from its last event. Links ({told}):")
    seats = runtime.service.seats(game_id)
    for seat in seats:
        if seat.seat in imported.links:
            where = f" ({seat.email})" if seat.email else ""
            bot = " (a bot plays it for now)" if seat.is_bot else ""
            print(
                f"  seat {seat.seat} {seat.name}: {link_for(runtime, imported.links[seat.seat])}"
                f"{where}{bot}"
            )
        elif seat.seat in imported.invitations:
            print(f"  seat {seat.seat} {seat.name}: waits for a newcomer, invited again")
        elif seat.is_bot:
            print(f"  seat {seat.seat} {seat.name}: (bot)")
    return game_id


def check_import_text(data: dict) -> None:
    """The title and seat names an import file would store, bounded as the lobby's are."""
    from pbem.validate import clean_name, clean_title

    header = data["game"]
    clean_title(header.get("title"))
    names = header.get("seat_names") or []
    for name in names if isinstance(names, list) else [names]:
        clean_name(name, required=False)
    events = data.get("events")
    first = events[0] if isinstance(events, list) and events else None
    payload = first.get("payload") if isinstance(first, dict) else None
    if isinstance(payload, dict):
        clean_title(payload.get("title"))


def cmd_verify(args) -> int:
    from pbem.eventlog.verify import verify_export
    from pbem.games.record import read_record, verify_record

    text = _record_text(args.file)
    if text is not None:
        report = verify_record(text, head=args.head)
        data = read_record(text) if report.ok and args.receipt else None
    else:
        data = _read_json_file(args.file)
        report = verify_export(data, head=args.head)
    print(report.summary())
    if report.ok and report.events:
        print(f"Roster: {report.roster_line}.")
    if not args.receipt:
        return 0 if report.ok else 1
    if data is None:
        print("The receipts are not checked: the record itself does not hold together.")
        return 1
    return 0 if check_receipts(data, args.receipt, args.key) and report.ok else 1


def check_receipts(data: Any, given: Sequence[str], key_file: str | None) -> bool:
    """Checks each signed receipt (a receipt's text, or a file holding receipts) against
    the export ``data`` with the public keys of ``key_file``; prints a line for each."""
    from pbem import receipts

    texts: list[str] = []
    for item in given:
        if item.strip().startswith(receipts.PREFIX):
            texts.append(item)
            continue
        try:
            found = receipts.find(Path(item).read_text(errors="replace"))
        except OSError as error:
            raise PbemError(
                f"--receipt {item[:60]!r} is neither a receipt ({receipts.PREFIX}...) nor a "
                f"file we can read: {error.strerror or error}."
            ) from None
        if not found:
            raise PbemError(f"{item} holds no receipt ({receipts.PREFIX}...).")
        texts.extend(found)
    if key_file is None:
        raise PbemError(
            "A receipt is checked with the server's public keys: give --key, the server's "
            "/.well-known/pbem-keys.json saved earlier (or one key as a PEM file)."
        )
    try:
        keys = receipts.read_keys(Path(key_file).read_bytes())
    except OSError as error:
        raise PbemError(f"Cannot read {key_file}: {error.strerror or error}.") from None
    except receipts.ReceiptError as error:
        raise PbemError(f"{key_file}: {error}.") from None
    header = data.get("game") if isinstance(data, dict) else None
    game_id = header.get("id") if isinstance(header, dict) else None
    rows = data.get("events") if isinstance(data, dict) else None
    held = 0
    for number, text in enumerate(texts, start=1):
        verdict = receipts.check(text, keys, game_id, rows if isinstance(rows, list) else [])
        held += verdict.ok
        print(f"Receipt {number}: {verdict.line()}")
    if len(texts) > 1:
        print(f"{held} of {len(texts)} receipts hold.")
    return held == len(texts)


def cmd_keys(args) -> int:
    """Lists the receipt keys, or rotates: a new current key, the old ones retired."""
    from pbem import receipts
    from pbem.config import load_config, make_var
    from pbem.zones import utc

    config = load_config()
    make_var(config)
    now = utc(datetime.now(UTC))
    try:
        return _keys(args, config, now)
    except (ValueError, KeyError, TypeError) as error:
        index = receipts.folder(config) / receipts.INDEX
        raise PbemError(f"{index} cannot be read ({error}); nothing was changed.") from None


def _keys(args, config: dict, now: datetime) -> int:
    from pbem import links, receipts

    if args.action == "rotate":
        made = receipts.rotate(config, now, keep_private=args.keep_private)
        kept = "kept" if args.keep_private else "deleted"
        print(
            f"Key {made.id} signs receipts from now on; the older keys are retired (their "
            f"private halves {kept}) and stay published at /.well-known/pbem-keys.json."
        )
        return 0
    if args.json:
        _print_json(receipts.keys_document(config, links.base_url(config)))
        return 0
    keys = receipts.published(config)
    if not keys:
        print("No receipt key yet: the first is made when the server first signs a receipt.")
    for key in keys:
        state = f"retired {key.retired}" if key.retired else "current"
        private = "private half kept" if receipts.has_private(config, key) else "public only"
        print(f"{key.id}  {receipts.ALGORITHM}  created {key.created}  {state}  ({private})")
    return 0


def cmd_migrate(args) -> int:
    from pbem.config import load_config, make_var, secret_key
    from pbem.db import make_engine
    from pbem.mail import outbox  # noqa: F401 - its tables belong to the schema
    from pbem.migrations import migrate

    config = load_config()
    make_var(config)
    url = args.database or config["database"]["url"]
    db = make_engine(
        url,
        synchronous=config["database"].get("sqlite_synchronous", "FULL"),
        writer_queue=config["database"].get("sqlite_writer_queue", True),
    )
    before, after = migrate(db, secret_key=secret_key(config), backfill=True)
    if before is None:
        print(f"Created the schema (revision {after}).")
    elif before == after:
        print(f"The schema is up to date (revision {after}).")
    else:
        print(f"Upgraded the schema from revision {before} to {after}.")
    db.dispose()
    return 0


def cmd_check_engines(args) -> int:
    runtime = _runtime(args)
    report = runtime.service.check_engines()
    diverging = [entry for entry in report if not entry["ok"]]
    for entry in report:
        versions = f"on v{entry['running']} (created with v{entry['created_with']})"
        if entry["newest"] is not None and entry["newest"] != entry["running"]:
            versions += f", newest v{entry['newest']}"
        verdict = "replays identically" if entry["ok"] else f"DIVERGES: {entry['problem']}"
        print(f"{entry['game_id']}  {entry['engine']:<14} {versions}: {verdict}")
    print(f"{len(report)} active games checked, {len(diverging)} diverge.")
    return 1 if diverging else 0


def cmd_upgrade_engine(args) -> int:
    runtime = _runtime(args)
    check = runtime.service.upgrade_engine(args.game, args.to, actor="cli")
    if not check.ok:
        print(
            f"Not upgraded: {args.game} stays on version {check.from_version}. {check.message}",
            file=sys.stderr,
        )
        return 1
    print(
        f"{args.game} now plays version {check.to_version} of {check.engine} "
        f"(event {check.seq}). {check.message}"
    )
    return 0


def cmd_seat(args) -> int:
    """The operator's seat actions (see README, "Who may act on a seat")."""
    from pbem.errors import BadInput
    from pbem.games import invitations, rescue

    runtime = _runtime(args)
    if args.action == "bot":
        outcome = rescue.hand_to_bot(runtime, args.game, args.seat, by=None, level=args.level)
    elif args.action == "reclaim":
        outcome = rescue.reclaim(runtime, args.game, args.seat, by=None)
    elif args.action == "resend":
        outcome = invitations.resend_invitation(runtime, args.game, args.seat, by=None)
    else:
        name, colon, email = (args.newcomer or "").rpartition(":")
        if not colon:
            raise BadInput("Name the newcomer as NAME:EMAIL (--newcomer).")
        outcome = invitations.invite_replacement(
            runtime, args.game, args.seat, name, email, by=None
        )
    print(outcome.message)
    if args.action == "bot":
        say_waiting_bots(runtime, args.game)
    return 0


def parse_instant(text: str):
    """An ISO 8601 instant (naive: UTC) as an aware UTC datetime; :class:`BadInput`."""
    from datetime import UTC, datetime

    from pbem.errors import BadInput

    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(
            f"--at {text!r} is not an ISO 8601 time (for example 2026-12-01T09:00+01:00)."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def cmd_sweep(args) -> int:
    """One scheduler sweep (reminders, deadlines, digests, bot seats) and one dispatch of
    the mail it wrote, now or as if at ``--at``."""
    from pbem import scheduler
    from pbem.errors import BadInput

    try:
        at = parse_instant(args.at) if args.at is not None else None
    except BadInput as error:
        print(error.message, file=sys.stderr)
        return 2
    runtime = _runtime(args)
    if not args.no_send:
        from pbem.web import board_picture

        board_picture.install(runtime)  # the board in turn mails (drawn as they are sent)
    if at is not None:
        # The whole runtime lives at that instant: events, clocks and mails.
        runtime.clock = runtime.service.clock = lambda: at
    now = runtime.clock()
    report = scheduler.sweep(runtime, now)
    print(f"Sweep at {now:%Y-%m-%d %H:%M:%S %Z}: {report}.")
    if not args.no_send:
        sent = scheduler.dispatch(runtime, now)
        print(
            f"Mail: {sent.sent} sent, {sent.retried} to retry, {sent.failed} failed, "
            f"{sent.held} held (over budget)."
        )
    return 0


def cmd_game(args) -> int:
    """The operator's game-level actions: a new deadline policy, pause, resume."""
    from pbem.games import control

    runtime = _runtime(args)
    if args.action == "pause":
        outcome = control.pause_game(runtime, args.game, by=None)
    elif args.action == "resume":
        outcome = control.resume_game(runtime, args.game, by=None)
    else:
        names = {
            "reminder_after_hours": args.reminder_after_hours,
            "reminder_every_hours": args.reminder_every_hours,
            "deadline_after_days": args.deadline_days,
            "at_deadline": args.at_deadline,
        }
        policy = {key: value for key, value in names.items() if value is not None}
        if not policy:
            from pbem.errors import BadInput

            raise BadInput(
                "Give at least one setting: --reminder-after-hours, --reminder-every-hours, "
                "--deadline-days or --at-deadline."
            )
        outcome = control.change_policy(runtime, args.game, policy, by=None)
    line = control.describe(outcome.events[0])
    print(f"{line} (event {outcome.seq}; the players are mailed)")
    return 0


def cmd_bench(args) -> int:
    from pbem import bench

    if args.scale:
        from pbem import bench_scale

        bench_scale.main(
            runs=args.runs, postgres_url=args.postgres, running=args.running, tree=args.tree
        )
        return 0
    bench.main(runs=args.runs, postgres_url=args.postgres, ratio_only=args.ratio_only)
    return 0


# Parser --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pbem", description="Play slow board games by email, with verifiable logs."
    )
    parser.add_argument("--database", help="database URL (default: from the configuration)")
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the configuration file (default: PBEM_CONFIG, else /etc/pbem/pbem.toml if "
        "present; see config/production.example.toml)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the web server (and the scheduler)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--no-demo", action="store_true", help="do not set up demo games")
    serve.add_argument(
        "--production",
        action="store_true",
        help="production everywhere (no /dev/mail, no demo): gunicorn web workers on PostgreSQL",
    )
    serve.add_argument("--workers", type=int, help="web workers in production (default 4)")
    serve.set_defaults(func=cmd_serve)

    worker = commands.add_parser("worker", help="run the scheduler and the mail dispatcher")
    worker.set_defaults(func=cmd_worker)

    receive = commands.add_parser(
        "receive", help="take one mail on stdin (an MTA's pipe): exit 0 taken, 67, 75"
    )
    receive.add_argument("recipient", nargs="*", help="the envelope recipient(s)")
    receive.add_argument("--sender", help="the envelope sender (empty for <>)")
    receive.set_defaults(func=cmd_receive)

    inbound = commands.add_parser("inbound", help="listen for mail over LMTP")
    inbound.add_argument("--lmtp", required=True, metavar="HOST:PORT")
    inbound.set_defaults(func=cmd_inbound)

    new = commands.add_parser("new", help="create a game and print each seat's link")
    new.add_argument("game", choices=sorted(REGISTRY), metavar="GAME")
    new.add_argument(
        "--seat",
        action="append",
        required=True,
        help="NAME:EMAIL, or 'bot', 'bot:easy', 'bot:normal', or 'open' for anyone to join (once per seat)",
    )
    new.add_argument("--options", help="the game's options as a JSON object")
    new.add_argument("--title")
    given = new.add_mutually_exclusive_group()
    given.add_argument(
        "--contribution",
        metavar="-",
        help="read your contribution to the dice from stdin, after the seed's commitment is "
        "shown (without it, a terminal asks for one)",
    )
    given.add_argument(
        "--let-server-draw",
        action="store_true",
        help="let the server draw your contribution to the dice (marked so in the log)",
    )
    new.set_defaults(func=cmd_new)

    games = commands.add_parser("games", help="list the games")
    games.add_argument("--status", choices=["active", "finished"])
    games.add_argument("--game", choices=sorted(REGISTRY), metavar="GAME", help="one title")
    games.add_argument("--after", help="the cursor a page ends with: the next page")
    games.add_argument("--limit", type=int, help="games per page (default 50, at most 200)")
    games.set_defaults(func=cmd_games)

    show = commands.add_parser("show", help="print a game's view (spectator or a seat's)")
    show.add_argument("game")
    show.add_argument("--seat", type=int)
    show.add_argument("--at", type=int, help="the state after this event")
    show.set_defaults(func=cmd_show)

    move = commands.add_parser("move", help="make a move for a seat")
    move.add_argument("game")
    move.add_argument("seat", type=int)
    move.add_argument("move", help='the move as JSON, e.g. \'{"type": "roll"}\'')
    move.add_argument("--expected-seq", type=int)
    move.set_defaults(func=cmd_move)

    export = commands.add_parser("export", help="export a game's log as JSON")
    export.add_argument("game", nargs="?")
    export.add_argument("--seat", type=int, help="only what this seat may know")
    export.add_argument("--full", action="store_true", help="with the seed, even mid-game")
    export.add_argument("--all", action="store_true", help="every game, into a folder")
    export.add_argument(
        "--format",
        choices=("json", "record"),
        default="json",
        help="json (the default), or record: a readable text, one line per event, each "
        "move in the game's own notation (verify and import read it too)",
    )
    export.add_argument("-o", "--output")
    export.set_defaults(func=cmd_export)

    imp = commands.add_parser(
        "import",
        help="import a full exported log (or a folder of them) and carry on; each player "
        "is mailed a fresh link",
    )
    imp.add_argument(
        "file", help="an exported file (JSON or a record), or the folder export --all wrote"
    )
    imp.add_argument(
        "--no-mail", action="store_true", help="mail nothing (the links are printed only)"
    )
    imp.set_defaults(func=cmd_import)

    verify = commands.add_parser("verify", help="verify an exported log offline")
    verify.add_argument("file")
    verify.add_argument(
        "--head",
        metavar="HASH",
        help="a receipt: the head hash from one of your turn mails. It must be the hash of "
        "some event in the log (the last one, or an earlier one when the game went on after "
        "that mail); verify says which, and fails when no event has it",
    )
    verify.add_argument(
        "--receipt",
        action="append",
        metavar="RECEIPT",
        help="a signed receipt (pbem-receipt:1:...) from a move's page, API answer or mail, "
        "or a file holding receipts (one per line, or a saved mail); may be given many "
        "times. Each is checked offline against the log: its signature, its game, and that "
        "the log holds the signed head hash at the signed event",
    )
    verify.add_argument(
        "--key",
        metavar="FILE",
        help="with --receipt: the server's public keys, /.well-known/pbem-keys.json saved "
        "earlier, or one public key as a PEM file (nothing is fetched)",
    )
    verify.set_defaults(func=cmd_verify)

    keys = commands.add_parser(
        "keys",
        help="the keys receipts are signed with: list them, or rotate (a new current key; "
        "the old ones retired, still published so old receipts verify)",
    )
    keys.add_argument("action", choices=("list", "rotate"))
    keys.add_argument(
        "--json", action="store_true", help="with list: the keys document the server publishes"
    )
    keys.add_argument(
        "--keep-private",
        action="store_true",
        help="with rotate: keep the retired keys' private halves (default: delete them, so "
        "they can sign nothing more)",
    )
    keys.set_defaults(func=cmd_keys)

    migrate = commands.add_parser("migrate", help="create or upgrade the database schema")
    migrate.set_defaults(func=cmd_migrate)

    check = commands.add_parser(
        "check-engines", help="replay every active game on this server's engine versions"
    )
    check.set_defaults(func=cmd_check_engines)

    upgrade = commands.add_parser(
        "upgrade-engine",
        help="move a running game to a newer engine version if its log replays identically",
    )
    upgrade.add_argument("game")
    upgrade.add_argument("--to", type=int, help="the version (default: the newest)")
    upgrade.set_defaults(func=cmd_upgrade_engine)

    seat = commands.add_parser(
        "seat",
        help="the operator's seat actions: hand a seat to a bot, give it back, or invite a "
        "newcomer (each an event; the seat's player is mailed), or send a pending "
        "invitation again (a fresh link to the same address; no event)",
    )
    seat.add_argument("action", choices=("bot", "reclaim", "invite", "resend"))
    seat.add_argument("game")
    seat.add_argument("seat", type=int, help="the seat's number (0 is the first seat)")
    seat.add_argument(
        "--level",
        choices=BOT_LEVELS,
        default="normal",
        help="with bot: how strong the bot plays (the title must offer the level)",
    )
    seat.add_argument("--newcomer", metavar="NAME:EMAIL", help="with invite: who is invited")
    seat.set_defaults(func=cmd_seat)

    game = commands.add_parser(
        "game",
        help="the operator's game actions: change the deadline policy, pause or resume "
        "(each an event; every player is mailed)",
    )
    game.add_argument("action", choices=("policy", "pause", "resume"))
    game.add_argument("game")
    game.add_argument("--reminder-after-hours", metavar="HOURS")
    game.add_argument("--reminder-every-hours", metavar="HOURS")
    game.add_argument("--deadline-days", metavar="DAYS", help="0: no deadline")
    game.add_argument("--at-deadline", choices=("wait", "bot_turn", "bot_seat", "replace"))
    game.set_defaults(func=cmd_game)

    sweep = commands.add_parser(
        "sweep",
        help="run one scheduler sweep (reminders, deadlines, digests) and send its mail, "
        "now or as if at --at",
    )
    sweep.add_argument(
        "--at",
        metavar="ISO-TIME",
        help="the instant to sweep at, ISO 8601 (e.g. 2026-12-01T09:00+01:00; naive: UTC)",
    )
    sweep.add_argument("--no-send", action="store_true", help="write the mail, do not send it")
    sweep.set_defaults(func=cmd_sweep)

    bench = commands.add_parser("bench", help="measure the event store and replay")
    bench.add_argument("--runs", type=int, default=5)
    bench.add_argument(
        "--scale",
        action="store_true",
        help="pages, a move, a sweep, /metrics, a command's start and a reply by mail at "
        "100 and at 10,000 running games (SQLite and PostgreSQL)",
    )
    bench.add_argument(
        "--running",
        type=int,
        default=10_000,
        help="--scale: running games of the large server (default 10,000)",
    )
    bench.add_argument(
        "--tree", help="--scale: run it with the pbem of another checkout (before a change)"
    )
    bench.add_argument("--postgres", help="PostgreSQL URL (default: 127.0.0.1:5432/test)")
    bench.add_argument(
        "--ratio-only",
        action="store_true",
        help="only a move with the mail listener against raw durable inserts",
    )
    bench.set_defaults(func=cmd_bench)
    return parser


# sysexits.h: the configuration is wrong (an unknown or mistyped setting); try again later.
EX_CONFIG = 78
EX_TEMPFAIL = 75


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one ``pbem`` command; its exit status (78 for a configuration error)."""
    args = build_parser().parse_args(argv)
    from sqlalchemy.exc import DataError, InterfaceError, OperationalError

    from pbem import logs
    from pbem.config import ConfigError, load_config

    if args.config:
        # In the environment, so gunicorn's workers and every child read the same file.
        os.environ["PBEM_CONFIG"] = str(Path(args.config).resolve())
    try:
        logs.configure(load_config())
        return args.func(args)
    except ConfigError as error:
        print(f"pbem: {error.message}", file=sys.stderr)
        # An MTA bounces a mail on 78: ``receive`` asks it to keep the mail until the
        # setting is fixed.
        return EX_TEMPFAIL if args.command == "receive" else EX_CONFIG
    except PbemError as error:
        print(error.message, file=sys.stderr)
        return 1
    except (OperationalError, InterfaceError) as error:
        reason = str(getattr(error, "orig", error)).strip().splitlines()[0]
        print(f"The database failed; nothing was changed: {reason}", file=sys.stderr)
        return 1
    except DataError as error:
        reason = str(getattr(error, "orig", error)).strip().splitlines()[0]
        print(f"The database refused a value; nothing was changed: {reason}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
