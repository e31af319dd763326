"""SMTP with STARTTLS or SSL and a login, against aiosmtpd on loopback with a
self-signed certificate made by ``openssl`` for this test."""

from __future__ import annotations

import shutil
import ssl
import subprocess

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbem.mail.dispatch import dispatch
from tests.mail.conftest import Mailbox, free_port, make_runtime, new_game

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context, cert


def login(server, session, envelope, mechanism, auth_data):
    return AuthResult(success=auth_data.login == b"pbem" and auth_data.password == b"secret")


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
@pytest.mark.parametrize("security", ["starttls", "ssl"])
def test_mail_goes_over_tls_with_a_login(sqlite_db, tmp_path, clock, certificate, security):
    context, cert = certificate
    mailbox, port = Mailbox(), free_port()
    # aiosmtpd counts only STARTTLS as TLS for AUTH; with SSL the whole connection is.
    tls = {"tls_context": context, "require_starttls": True, "auth_require_tls": True}
    if security == "ssl":
        tls = {"ssl_context": context, "auth_require_tls": False}
    controller = Controller(
        mailbox,
        hostname="127.0.0.1",
        port=port,
        authenticator=login,
        auth_required=True,
        **tls,
    )
    controller.start()
    try:
        mail = {"security": security, "user": "pbem", "password": "secret", "ca_file": str(cert)}
        runtime = make_runtime(sqlite_db, tmp_path, clock, port, mail=mail)
        new_game(runtime, seats=2)
        assert dispatch(runtime).sent == 2
        assert len(mailbox.messages) == 2
        untrusted = make_runtime(sqlite_db, tmp_path, clock, port, mail={**mail, "ca_file": ""})
        new_game(untrusted, seats=1)
        assert dispatch(untrusted).retried == 1  # an unknown certificate is not trusted
    finally:
        controller.stop()
