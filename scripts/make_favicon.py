"""Writes pbem/web/static/favicon.ico: the SVG icon's shapes drawn at 32x32 as a PNG
inside an ICO file (standard library only). Run once after changing the icon."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

SIZE = 32
NAVY, PAPER, AMBER = (0x1F, 0x3A, 0x5F), (0xF7, 0xF5, 0xEF), (0xE6, 0x9F, 0x00)


def pixel(x: float, y: float) -> tuple[int, int, int, int]:
    corner = 6
    dx = max(corner - x, 0, x - (SIZE - corner))
    dy = max(corner - y, 0, y - (SIZE - corner))
    if dx * dx + dy * dy > corner * corner:
        return (0, 0, 0, 0)
    if (x - 24) ** 2 + (y - 8) ** 2 <= 25:
        return (*(NAVY if (x - 24) ** 2 + (y - 8) ** 2 > 16 else AMBER), 255)
    if 5 <= x <= 27 and 9 <= y <= 24:
        fold = 10 + (x - 5.5) * 8 / 10.5 if x <= 16 else 10 + (26.5 - x) * 8 / 10.5
        return (*(NAVY if abs(y - fold) < 1.3 else PAPER), 255)
    return (*NAVY, 255)


def png() -> bytes:
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x + 0.5, y + 0.5)) for x in range(SIZE)) for y in range(SIZE)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def ico() -> bytes:
    image = png()
    directory = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 6 + 16)
    return directory + entry + image


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[1] / "pbem" / "web" / "static" / "favicon.ico"
    target.write_bytes(ico())
    print(f"wrote {target} ({target.stat().st_size} bytes)")
