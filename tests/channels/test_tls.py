"""Webhooks and pushes over https: the connection goes to the address that was checked,
and the certificate is checked against the name in the address."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from pbem.channels import safehttp


def certificate(tmp_path, names: list[str]):
    """A self-signed certificate for ``names`` (and 127.0.0.1): its files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(name) for name in names]
                + [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / f"{names[0]}.crt", tmp_path / f"{names[0]}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@pytest.fixture
def https_server(tmp_path):
    got: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            got.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    def serve(names: list[str]):
        cert_file, key_file = certificate(tmp_path, names)
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server.server_address[1], cert_file

    servers: list = []
    yield serve, got
    for server in servers:
        server.shutdown()


def post(url: str) -> safehttp.Answer:
    return safehttp.post(
        url, b"{}", {}, allow_loopback=True, timeout=5, max_body=100, max_answer=100
    )


def test_https_with_a_certificate_for_the_name(https_server, monkeypatch):
    serve, got = https_server
    port, cert_file = serve(["localhost"])
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))  # trust this certificate only
    assert post(f"https://localhost:{port}/hook").status == 200
    assert got == [b"{}"]


def test_a_certificate_for_another_name_is_refused(https_server, monkeypatch):
    serve, got = https_server
    port, cert_file = serve(["elsewhere.test"])
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    with pytest.raises(ssl.SSLCertVerificationError):
        post(f"https://localhost:{port}/hook")
    assert got == []


def test_an_untrusted_certificate_is_refused(https_server):
    serve, got = https_server
    port, _ = serve(["localhost"])
    with pytest.raises(ssl.SSLCertVerificationError):
        post(f"https://localhost:{port}/hook")
    assert got == []


def test_the_connection_goes_to_the_address_checked(monkeypatch):
    """A name that resolves to a public address at the check and to a private one later
    (DNS rebinding) is reached at the address checked: it is resolved once."""
    answers = iter([("93.184.216.34", 8443), ("127.0.0.1", 8443)])
    asked, connected = [], []

    def resolving(host, port, *args, **kwargs):
        asked.append(host)
        return [(2, 1, 6, "", next(answers))]

    def connect(address, timeout):
        connected.append(address)
        raise OSError("no network here")

    monkeypatch.setattr(safehttp.socket, "getaddrinfo", resolving)
    monkeypatch.setattr(safehttp.socket, "create_connection", connect)
    with pytest.raises(OSError, match="no network"):
        safehttp.post(
            "https://rebind.test:8443/hook",
            b"{}",
            {},
            allow_loopback=False,
            timeout=1,
            max_body=10,
            max_answer=10,
        )
    assert asked == ["rebind.test"]
    assert connected == [("93.184.216.34", 8443)]


def test_one_private_address_among_public_ones_refuses_the_name(monkeypatch):
    def resolving(host, port, *args, **kwargs):
        return [(2, 1, 6, "", ("93.184.216.34", port)), (2, 1, 6, "", ("10.0.0.7", port))]

    monkeypatch.setattr(safehttp.socket, "getaddrinfo", resolving)
    target = safehttp.check_url("https://mixed.test/hook")
    with pytest.raises(safehttp.Unsafe, match="not on the public internet"):
        safehttp.resolve(target)
