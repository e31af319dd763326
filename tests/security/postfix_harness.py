"""A private Postfix instance on loopback, routed to pbem the way README.md's "The mail
server" says, for the tests that send real mail through it (``@pytest.mark.postfix``).

Each instance has its own ``config_directory``, ``queue_directory`` and
``data_directory`` in a temporary folder, listens on a free loopback port (nothing on
port 25, no system-wide Postfix), delivers nothing outside (``default_transport`` and
``local_transport`` are ``error:``) and logs to a file of its own (``maillog_file``), so
a test reads each message's delivery status there. ``example.org`` is its
``mydestination``; ``play@example.org`` (the reply address, with its ``+`` tags) and
``pbem@example.org`` (the sender, where delivery reports come back) are its only
recipients, and ``transport_maps`` sends both to pbem by one of two roads:

- ``pipe``: README's ``master.cf`` line, ``pbem receive --sender=${sender}
  ${original_recipient}`` run as ``nobody`` (pipe refuses root); its environment is
  Postfix's, emptied, so the argv starts with ``/usr/bin/env`` naming ``PBEM_CONFIG``,
  a file that holds the database URL and the server key (and ``PYTHONPATH``, to run this
  checkout's code);
- ``lmtp``: ``lmtp:inet:127.0.0.1:PORT`` to pbem's LMTP listener, started in the test's
  process.

What Postfix does with a null sender (observed with Postfix 3.7 here): a message sent
with ``MAIL FROM:<>`` reaches the pipe as ``--sender=MAILER-DAEMON`` (pipe(8): "the null
sender address expands to MAILER-DAEMON", unless the service sets ``null_sender=``),
and reaches LMTP as ``MAIL FROM:<>`` (aiosmtpd's ``mail_from`` is then ``""``).

Without Postfix the tests skip, but under ``CI=true`` they fail; run
``scripts/install-system-deps.sh postfix`` (as root) to install it.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import smtplib
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SBIN = Path("/usr/sbin")
DOMAIN = "example.org"
REPLY_ADDRESS = f"play@{DOMAIN}"
SENDER_ADDRESS = f"pbem@{DOMAIN}"
SENDER = f"pbem <{SENDER_ADDRESS}>"
PIPE_USER = "nobody"
SECRET_KEY = "postfix-test-key"
ROADS = ("pipe", "lmtp")
PBEM = Path(sys.executable).parent / "pbem"  # the command of the virtualenv running the tests

# The services a small Postfix needs, from Debian's master.cf, none chrooted.
MASTER_CF = """\
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""


def _binary(name: str) -> str | None:
    """The path of one of Postfix's commands (``/usr/sbin`` may be off the PATH)."""
    return shutil.which(name) or (str(SBIN / name) if (SBIN / name).exists() else None)


def require_postfix() -> None:
    """Postfix's commands, installed when missing (as root); a skip when that cannot be
    done, but a failure under ``CI=true``."""
    if _binary("postfix") and _binary("postconf") and _binary("postmap"):
        return
    why = "Postfix is not installed (scripts/install-system-deps.sh postfix)"
    if os.geteuid() == 0:
        done = subprocess.run(
            ["sh", str(ROOT / "scripts" / "install-system-deps.sh"), "postfix"],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0 and _binary("postfix"):
            return
        why += f": installing it failed: {(done.stderr or done.stdout)[-300:]}"
    else:
        why += ", and a private instance needs root"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}; it is required under CI=true")
    pytest.skip(why)


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Delivery:
    """What Postfix did with one message sent to it: its queue id, and for each
    recipient the status its log gives (``sent``, ``bounced``, ``deferred``)."""

    queue_id: str
    status: str = ""
    dsn: str = ""
    said: str = ""


@dataclass
class Postfix:
    """A running private instance (see the module's docstring)."""

    road: str
    base: Path
    port: int
    lmtp_port: int = 0
    lmtp: object | None = None
    config_file: Path = field(init=False)

    def __post_init__(self) -> None:
        self.config_file = self.base / "pbem.toml"

    @property
    def config_dir(self) -> Path:
        return self.base / "etc"

    @property
    def maillog(self) -> Path:
        return self.base / "maillog"

    def postfix(self, *args: str) -> str:
        done = subprocess.run(
            [_binary("postfix") or "postfix", "-c", str(self.config_dir), *args],
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=_open_umask,
        )
        if done.returncode != 0:
            raise RuntimeError(f"postfix {' '.join(args)}: {done.stderr or done.stdout}")
        return done.stderr + done.stdout

    def send(self, raw: bytes, mail_from: str, rcpt_to: str) -> Delivery:
        """Sends one message over SMTP and waits until Postfix logged what became of it."""
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as client:
            client.ehlo("mx.players.test")
            code, said = client.mail(mail_from)
            assert code == 250, (code, said)
            code, said = client.rcpt(rcpt_to)
            if code != 250:
                return Delivery("", "refused at RCPT", str(code), said.decode(errors="replace"))
            code, said = client.data(raw)
        assert code == 250, (code, said)
        queue_id = said.decode().rsplit(" ", 1)[-1]
        return self.wait(queue_id)

    def wait(self, queue_id: str, timeout: float = 60.0) -> Delivery:
        """The first delivery status the log gives for ``queue_id``."""
        pattern = re.compile(
            rf"{queue_id}: to=<[^>]*>.*?dsn=([0-9.]+), status=(\w+) \((.*)\)\s*$", re.MULTILINE
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.maillog.read_text(errors="replace") if self.maillog.exists() else ""
            found = pattern.search(text)
            if found:
                return Delivery(queue_id, found[2], found[1], found[3])
            time.sleep(0.1)
        raise AssertionError(f"Postfix logged no delivery of {queue_id} in {timeout}s:\n{text}")


def _open_umask() -> None:
    """Postfix's commands with the usual umask: pbem's runtime sets 077 for its own
    files in this process, and Postfix's daemons must read the folders they make."""
    os.umask(0o022)


def _postconf(config_dir: Path, settings: dict[str, str]) -> None:
    postconf = _binary("postconf") or "postconf"
    subprocess.run(
        [postconf, "-c", str(config_dir), "-e", *(f"{k}={v}" for k, v in settings.items())],
        check=True,
        capture_output=True,
        preexec_fn=_open_umask,
    )


def _postmap(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines))
    subprocess.run(
        [_binary("postmap") or "postmap", "-c", str(path.parent), f"hash:{path}"],
        check=True,
        capture_output=True,
        preexec_fn=_open_umask,
    )


def _others_can_run(path: Path) -> bool:
    """Whether a user other than the owner can reach and run ``path``."""
    path = path.resolve()
    folders_open = all(folder.stat().st_mode & stat.S_IXOTH for folder in path.parents)
    return folders_open and bool(path.stat().st_mode & stat.S_IXOTH)


def pipe_command(instance: Postfix) -> str:
    """The pipe's command: this virtualenv's ``pbem`` with ``PBEM_CONFIG`` (and
    ``PYTHONPATH``, for this checkout's code). When the pipe's user cannot reach the
    interpreter the tests run under (a Python under ``/root``), the same ``pbem``
    script runs under the system's Python of the same version, with the virtualenv's
    packages on its path."""
    if not all(folder.stat().st_mode & stat.S_IXOTH for folder in [ROOT, *ROOT.parents]):
        raise RuntimeError(
            f"The pipe runs pbem as {PIPE_USER}, who cannot reach this checkout ({ROOT}): "
            "let others into its folders (chmod o+x) to test the pipe road."
        )
    path = str(ROOT)
    command = str(PBEM)
    if not _others_can_run(Path(sys.executable)):
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        path += ":" + sysconfig.get_paths()["purelib"]
        command = f"/usr/bin/python{version} {PBEM}"
    cache = instance.base / "var" / "pycache"  # the pipe's user may not write the checkout's
    return (
        f"PYTHONPATH={path} PYTHONPYCACHEPREFIX={cache} PBEM_CONFIG={instance.config_file}"
        f" {command}"
    )


def start_postfix(road: str) -> Postfix:
    """Writes a private instance's configuration for ``road`` and starts it (its folder
    goes again when it cannot start)."""
    require_postfix()
    base = Path(tempfile.mkdtemp(prefix=f"pbem-postfix-{road}-"))
    base.chmod(0o755)  # Postfix's own users and the pipe's user go through it
    instance = Postfix(road, base, free_port())
    try:
        _configure(instance)
        instance.postfix("check")
        instance.postfix("start")
        _wait_for_smtp(instance.port)
    except BaseException:
        stop_postfix(instance)
        raise
    return instance


def _wait_for_smtp(port: int) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=5) as client:
                client.noop()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _configure(instance: Postfix) -> None:
    """main.cf, master.cf, the recipient and transport tables of README's lines."""
    base, road = instance.base, instance.road
    etc = instance.config_dir
    etc.mkdir()
    (etc / "main.cf").write_text("")
    (base / "queue").mkdir()
    (base / "queue").chmod(0o755)
    (base / "data").mkdir(mode=0o700)
    postfix_user = pwd.getpwnam("postfix")
    os.chown(base / "data", postfix_user.pw_uid, postfix_user.pw_gid)
    nobody = pwd.getpwnam(PIPE_USER)
    var = base / "var"
    var.mkdir(mode=0o700)
    os.chown(var, nobody.pw_uid, nobody.pw_gid)
    _postmap(etc / "recipients", [f"{REPLY_ADDRESS} OK", f"{SENDER_ADDRESS} OK"])
    if road == "pipe":
        next_hop = "pbem:"
        master_extra = (
            "pbem      unix  -       n       n       -       -       pipe\n"
            f"  flags=Rq user={PIPE_USER} argv=/usr/bin/env {pipe_command(instance)}\n"
            "    receive --sender=${sender} ${original_recipient}\n"  # continued, as README's
        )
    else:
        instance.lmtp_port = free_port()
        next_hop = f"lmtp:inet:127.0.0.1:{instance.lmtp_port}"
        master_extra = ""
    _postmap(etc / "transport", [f"{REPLY_ADDRESS} {next_hop}", f"{SENDER_ADDRESS} {next_hop}"])
    (etc / "master.cf").write_text(
        f"127.0.0.1:{instance.port} inet n - n - - smtpd\n" + MASTER_CF + master_extra
    )
    _postconf(
        etc,
        {
            "compatibility_level": "3.6",
            "queue_directory": str(base / "queue"),
            "data_directory": str(base / "data"),
            "maillog_file": str(instance.maillog),
            "maillog_file_prefixes": str(base),
            "myhostname": f"mail.{DOMAIN}",
            "mydomain": DOMAIN,
            "myorigin": "$mydomain",
            "mydestination": DOMAIN,
            "inet_interfaces": "loopback-only",
            "inet_protocols": "ipv4",
            "mynetworks": "127.0.0.0/8",
            "smtpd_peername_lookup": "no",
            "local_recipient_maps": f"hash:{etc / 'recipients'}",
            "transport_maps": f"hash:{etc / 'transport'}",
            "recipient_delimiter": "+",
            "local_transport": "error:5.1.1 no local delivery in this test instance",
            "default_transport": "error:5.4.4 no mail leaves this test instance",
            "alias_maps": "",
            "alias_database": "",
            "biff": "no",
            "queue_run_delay": "1s",
            "minimal_backoff_time": "1s",
            "maximal_backoff_time": "2s",
            "lmtp_connection_cache_on_demand": "no",
        },
    )
    if road == "pipe":
        _postconf(etc, {"pbem_destination_recipient_limit": "1"})


def stop_postfix(instance: Postfix) -> None:
    """Stops the instance (when it runs) and removes its folder."""
    try:
        if (instance.base / "queue" / "pid" / "master.pid").exists():
            instance.postfix("stop")
    finally:
        shutil.rmtree(instance.base, ignore_errors=True)


def write_pbem_config(instance: Postfix, database_url: str, sink_port: int) -> None:
    """The file ``PBEM_CONFIG`` names for the pipe: the test's database and key (readable
    by the pipe's user: the test's tmp folders are not)."""
    nobody = pwd.getpwnam(PIPE_USER)
    instance.config_file.write_text(
        '[server]\nbase_url = "http://pbem.test"\ndemo = false\n'
        f'[database]\nurl = "{database_url}"\n'
        f'[security]\nsecret_key = "{SECRET_KEY}"\n'
        f'[paths]\nvar = "{instance.base / "var"}"\n'
        f'[mail]\nhost = "127.0.0.1"\nport = {sink_port}\nsecurity = "none"\n'
        f'reply_address = "{REPLY_ADDRESS}"\nsender = "{SENDER}"\nquiet_minutes = 0\n'
    )
    os.chown(instance.config_file, nobody.pw_uid, nobody.pw_gid)
    instance.config_file.chmod(0o600)


def sqlite_home(instance: Postfix, name: str) -> Path:
    """A folder the pipe's user owns, for a SQLite file both it and the test can write."""
    nobody = pwd.getpwnam(PIPE_USER)
    home = instance.base / name
    home.mkdir(mode=0o700)
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    database = home / "pbem.sqlite3"
    database.touch(mode=0o600)
    os.chown(database, nobody.pw_uid, nobody.pw_gid)  # SQLite gives its -wal the file's owner
    return database


def bounce_address(runtime, mail) -> str:
    """Where a delivery report about the outbox row ``mail`` comes back: the envelope
    sender the dispatcher gave it (VERP, :func:`pbem.mail.inbound.bounces.envelope_sender`)."""
    from pbem.mail import outbox
    from pbem.mail.inbound import bounces

    return bounces.envelope_sender(runtime.config, outbox.secret(runtime), mail)


class Sink:
    """An aiosmtpd handler that keeps every envelope pbem's answers came with: every
    ``RCPT TO`` it was offered, and each message's ``MAIL FROM`` and recipients."""

    def __init__(self) -> None:
        self.rcpts: list[str] = []
        self.envelopes: list[tuple[str, list[str], bytes]] = []
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        with self.lock:
            self.rcpts.append(address)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.envelopes.append(
                (envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content or b"")
            )
        return "250 OK"

    def to(self, address: str) -> list[bytes]:
        with self.lock:
            return [raw for _, rcpts, raw in self.envelopes if address in rcpts]


def null_senders(addresses: list[str]) -> list[str]:
    """The addresses among ``addresses`` that stand for the null sender or a mail
    system's own mailbox, which must never be answered."""
    return [
        address
        for address in addresses
        if address.strip("<> ") == ""
        or address.split("@")[0].strip("<> ").lower()
        in ("mailer-daemon", "postmaster", "no-reply", "noreply")
    ]


# Delivery reports as five mail systems write them ----------------------------------

REPORT_STYLES = ("postfix", "exim", "sendmail", "exchange", "qmail")
DATE = "Tue, 01 Dec 2026 10:00:00 +0000"


def _headers_block(original: dict[str, str]) -> str:
    return "".join(f"{name}: {value}\r\n" for name, value in original.items())


def delivery_report(style: str, to: str, failed: str, original: dict[str, str], mid: str) -> bytes:
    """A delivery report (a bounce) written the way ``style``'s MTA writes it, sent to
    ``to`` (the envelope sender of the mail that failed), saying that ``failed`` does not
    exist; ``original`` are the failed mail's headers, ``mid`` the report's Message-ID
    (without ``<>``). Postfix, Exim, Sendmail and Exchange write RFC 3464
    ``multipart/report``; qmail writes plain text."""
    host = failed.rpartition("@")[2]
    headers = _headers_block(original)
    diagnostic = f"550 5.1.1 <{failed}>: Recipient address rejected: User unknown"
    if style == "postfix":
        boundary = "8D31D20C1A7.1764583200/mx." + host
        top = (
            f"From: MAILER-DAEMON@mx.{host} (Mail Delivery System)\r\n"
            "Subject: Undelivered Mail Returned to Sender\r\n"
            f"To: {to}\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
            f'Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary="{boundary}"\r\n'
            "Content-Transfer-Encoding: 8bit\r\n"
        )
        parts = [
            "Content-Description: Notification\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
            f"This is the mail system at host mx.{host}.\r\n\r\n"
            "I'm sorry to have to inform you that your message could not\r\n"
            "be delivered to one or more recipients. It's attached below.\r\n\r\n"
            "For further assistance, please send mail to postmaster.\r\n\r\n"
            "                   The mail system\r\n\r\n"
            f"<{failed}>: host mx.{host}[192.0.2.25] said: {diagnostic} (in reply to RCPT TO command)\r\n",
            "Content-Description: Delivery report\r\nContent-Type: message/delivery-status\r\n\r\n"
            f"Reporting-MTA: dns; mx.{host}\r\nX-Postfix-Queue-ID: 8D31D20C1A7\r\n"
            f"X-Postfix-Sender: rfc822; {to}\r\nArrival-Date: {DATE}\r\n\r\n"
            f"Final-Recipient: rfc822; {failed}\r\nOriginal-Recipient: rfc822;{failed}\r\n"
            f"Action: failed\r\nStatus: 5.1.1\r\nRemote-MTA: dns; mx.{host}\r\n"
            f"Diagnostic-Code: smtp; {diagnostic}\r\n",
            "Content-Description: Undelivered Message Headers\r\n"
            f"Content-Type: text/rfc822-headers\r\n\r\n{headers}",
        ]
    elif style == "exim":
        boundary = "1764583200-eximdsn-1804289383"
        top = (
            f"From: Mail Delivery System <Mailer-Daemon@mx.{host}>\r\nTo: {to}\r\n"
            "Subject: Mail delivery failed: returning message to sender\r\n"
            "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: multipart/report; report-type=delivery-status; boundary={boundary}\r\n"
        )
        parts = [
            "Content-type: text/plain; charset=us-ascii\r\n\r\n"
            "This message was created automatically by mail delivery software.\r\n\r\n"
            "A message that you sent could not be delivered to one or more of its\r\n"
            "recipients. This is a permanent error. The following address(es) failed:\r\n\r\n"
            f"  {failed}\r\n    host mx.{host} [192.0.2.25]\r\n"
            f"    SMTP error from remote mail server after RCPT TO:<{failed}>:\r\n"
            f"    {diagnostic}\r\n",
            "Content-type: message/delivery-status\r\n\r\n"
            f"Reporting-MTA: dns; mx.{host}\r\n\r\n"
            f"Action: failed\r\nFinal-Recipient: rfc822;{failed}\r\nStatus: 5.0.0\r\n"
            f"Remote-MTA: dns; mx.{host}\r\nDiagnostic-Code: smtp; {diagnostic}\r\n",
            f"Content-type: message/rfc822\r\n\r\n{headers}\r\n(the message's text)\r\n",
        ]
    elif style == "sendmail":
        boundary = f"5B1AA0Ac012345.1764583200/mx.{host}"
        top = (
            f"From: Mail Delivery Subsystem <MAILER-DAEMON@mx.{host}>\r\nTo: <{to}>\r\n"
            "Subject: Returned mail: see transcript for details\r\n"
            "Auto-Submitted: auto-generated (failure)\r\nMIME-Version: 1.0\r\n"
            f'Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary="{boundary}"\r\n'
        )
        parts = [
            "\r\nThe original message was received at " + DATE + "\r\n"
            f"from mail.example.org [192.0.2.10]\r\n\r\n"
            "   ----- The following addresses had permanent fatal errors -----\r\n"
            f"<{failed}>\r\n    (reason: 550 5.1.1 <{failed}>... User unknown)\r\n\r\n"
            "   ----- Transcript of session follows -----\r\n"
            f"... while talking to mx.{host}.:\r\n>>> DATA\r\n<<< 550 5.1.1 <{failed}>... User unknown\r\n"
            "550 5.1.1 " + failed + "... User unknown\r\n",
            "Content-Type: message/delivery-status\r\n\r\n"
            f"Reporting-MTA: dns; mx.{host}\r\nReceived-From-MTA: DNS; mail.example.org\r\n"
            f"Arrival-Date: {DATE}\r\n\r\nFinal-Recipient: RFC822; {failed}\r\nAction: failed\r\n"
            f"Status: 5.1.1\r\nRemote-MTA: DNS; mx.{host}\r\n"
            f"Diagnostic-Code: SMTP; 550 5.1.1 <{failed}>... User unknown\r\n"
            f"Last-Attempt-Date: {DATE}\r\n",
            f"Content-Type: text/rfc822-headers\r\n\r\n{headers}",
        ]
    elif style == "exchange":
        boundary = "_000_AM0PR01MB12345F0A1B2C3D4E5F6AM0PR01MB1234eurp_"
        reporting = "AM0PR01MB1234.eurprd01.prod.exchangelabs.com"
        top = (
            f"From: Microsoft Outlook <postmaster@{host}>\r\nTo: <{to}>\r\n"
            f"Subject: Undeliverable: {original.get('Subject', '')}\r\n"
            "Auto-Submitted: auto-replied\r\nX-MS-Exchange-Message-Is-Ndr:\r\n"
            "Content-Language: en-US\r\nMIME-Version: 1.0\r\n"
            f'Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary="{boundary}"\r\n'
        )
        parts = [
            'Content-Type: multipart/alternative; boundary="alt"\r\n\r\n'
            "--alt\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
            "Your message to " + failed + " couldn't be delivered.\r\n"
            f"{failed.partition('@')[0]} wasn't found at {host}.\r\n\r\n"
            "Remote Server returned '550 5.1.10 RESOLVER.ADR.RecipientNotFound; "
            "Recipient not found by SMTP address lookup'\r\n"
            "--alt\r\nContent-Type: text/html; charset=us-ascii\r\n\r\n"
            f"<html><body><p>Your message to {failed} couldn't be delivered.</p></body></html>\r\n"
            "--alt--\r\n",
            "Content-Type: message/delivery-status\r\n\r\n"
            f"Reporting-MTA: dns;{reporting}\r\nReceived-From-MTA: dns;mail.example.org\r\n"
            f"Arrival-Date: {DATE}\r\n\r\nFinal-Recipient: rfc822;{failed}\r\nAction: failed\r\n"
            "Status: 5.1.10\r\nDiagnostic-Code: smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; "
            "Recipient not found by SMTP address lookup\r\n",
            f"Content-Type: message/rfc822\r\n\r\n{headers}\r\n(the message's text)\r\n",
        ]
    elif style == "qmail":
        return (
            f"From: MAILER-DAEMON@mx.{host}\r\nTo: {to}\r\nSubject: failure notice\r\n"
            f"Date: {DATE}\r\nMessage-ID: <{mid}>\r\n\r\n"
            f"Hi. This is the qmail-send program at mx.{host}.\r\n"
            "I'm afraid I wasn't able to deliver your message to the following addresses.\r\n"
            "This is a permanent error; I've given up. Sorry it didn't work out.\r\n\r\n"
            f"<{failed}>:\r\nSorry, no mailbox here by that name. (#5.1.1)\r\n\r\n"
            "--- Below this line is a copy of the message.\r\n\r\n"
            f"Return-Path: <{to}>\r\n{headers}\r\n(the message's text)\r\n"
        ).encode()
    else:
        raise ValueError(f"no report style {style!r}")
    body = "".join(f"--{boundary}\r\n{part}\r\n" for part in parts) + f"--{boundary}--\r\n"
    top += (
        f"Date: {DATE}\r\nMessage-ID: <{mid}>\r\n\r\nThis is a MIME-encapsulated message.\r\n\r\n"
    )
    return (top + body).encode()
