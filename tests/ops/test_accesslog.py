"""gunicorn's access log, read by someone who should not get a seat out of it."""

from __future__ import annotations

import datetime

import pytest
from gunicorn.config import Config

from pbem.logs import MASK, mask_tokens
from pbem.web.accesslog import MaskingLogger

# Fixed, so that the parameters are the same in every process that collects them.
TOKEN = "PDvpA3tZ-fAuottZ3QxKdL0k6BlQjqL0CtE_1AqK9GY"
SIGNATURE = "Zx9_-7fodNou-f7HO51RCVKU"


@pytest.mark.parametrize(
    "line",
    [
        f"GET /play/{TOKEN} HTTP/1.1",
        f"POST /play/{TOKEN}/move HTTP/1.1",
        f"GET /play/{TOKEN}/history?at=3 HTTP/1.1",
        f"GET /api/play/{TOKEN} HTTP/1.1",
        f"POST /api/play/{TOKEN}/moves HTTP/1.1",
        f"GET /rescue/{TOKEN} HTTP/1.1",
        f"GET /mail/settings/k3x9abcd/1/{SIGNATURE} HTTP/1.1",
        f"https://pbem.example.org/play/{TOKEN}/history",
        f"GET /somewhere/new?token={TOKEN} HTTP/1.1",
        f"GET /take/{TOKEN}/seat HTTP/1.1",
    ],
)
def test_every_token_bearing_path_is_masked(line):
    masked = mask_tokens(line)
    assert TOKEN not in masked and SIGNATURE not in masked
    assert MASK in masked


def test_masking_keeps_what_an_operator_needs():
    assert mask_tokens("GET /games/k3x9abcd/history?at=4 HTTP/1.1") == (
        "GET /games/k3x9abcd/history?at=4 HTTP/1.1"
    )
    assert mask_tokens(f"POST /play/{TOKEN}/move HTTP/1.1") == f"POST /play/{MASK}/move HTTP/1.1"
    assert mask_tokens("GET /static/style.css HTTP/1.1") == "GET /static/style.css HTTP/1.1"


class Response:
    status = "303 SEE OTHER"
    sent = 120
    headers = [("Location", f"/rescue/{TOKEN}")]


def test_the_logger_masks_every_atom_it_can_print():
    logger = MaskingLogger(Config())
    environ = {
        "REQUEST_METHOD": "POST",
        "RAW_URI": f"/play/{TOKEN}/move?x=1",
        "PATH_INFO": f"/play/{TOKEN}/move",
        "QUERY_STRING": f"token={TOKEN}",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "198.51.100.4",
        "HTTP_REFERER": f"https://pbem.example.org/play/{TOKEN}",
        "HTTP_USER_AGENT": "curl/8",
    }
    request = [("Referer", f"https://pbem.example.org/play/{TOKEN}")]
    atoms = logger.atoms(Response(), request, environ, datetime.timedelta(seconds=0.01))
    printed = " ".join(str(value) for value in atoms.values())
    assert TOKEN not in printed
    assert atoms["r"] == f"POST /play/{MASK}/move?x=1 HTTP/1.1"
    assert atoms["h"] == "198.51.100.4" and atoms["s"] == "303"
