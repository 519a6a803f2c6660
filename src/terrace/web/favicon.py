"""The favicon as a real ``.ico`` file, drawn in code (a white card with a
red and a black pip on green), for browsers that ask for ``/favicon.ico``.

>>> data = favicon_ico()
>>> data[:4], len(data) > 4000
(b'\\x00\\x00\\x01\\x00', True)
"""

from __future__ import annotations

import struct
from functools import cache

SIZE = 32
GREEN = (0x1F, 0x5F, 0x3A)
WHITE = (0xFA, 0xF8, 0xF2)
RED = (0xC4, 0x1E, 0x3A)
BLACK = (0x1A, 0x1A, 0x1A)
EDGE = (0x9A, 0xA3, 0x9E)


def _pixel(x: int, y: int) -> tuple[int, int, int, int]:
    """Colour and alpha of pixel (x, y), y = 0 at the top."""
    left, top, right, bottom = 7, 3, 25, 29
    inside = left <= x <= right and top <= y <= bottom
    corner = (x in (left, right)) and (y in (top, bottom))
    if not inside or corner:
        r, g, b = GREEN
        dx, dy = min(x, SIZE - 1 - x), min(y, SIZE - 1 - y)
        return (r, g, b, 0 if min(dx, dy) < 1 and (dx + dy) < 4 else 255)
    if x in (left, right) or y in (top, bottom):
        return (*EDGE, 255)
    if (x - 13) ** 2 + (y - 11) ** 2 <= 9:
        return (*RED, 255)
    if (x - 19) ** 2 + (y - 21) ** 2 <= 9:
        return (*BLACK, 255)
    return (*WHITE, 255)


@cache
def favicon_ico() -> bytes:
    """A 32x32, 32-bit ICO file."""
    rows = []
    for y in range(SIZE - 1, -1, -1):  # BMP rows go bottom-up
        row = bytearray()
        for x in range(SIZE):
            r, g, b, a = _pixel(x, y)
            row += bytes((b, g, r, a))
        rows.append(bytes(row))
    pixels = b"".join(rows)
    mask = bytes(SIZE * 4)  # 1 bit per pixel, rows padded to 32 bits; alpha is used instead
    header = struct.pack("<IiiHHIIiiII", 40, SIZE, SIZE * 2, 1, 32, 0, len(pixels) + len(mask), 0, 0, 0, 0)
    image = header + pixels + mask
    directory = struct.pack("<HHH", 0, 1, 1) + struct.pack(
        "<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 6 + 16
    )
    return directory + image
