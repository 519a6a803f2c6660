"""A tiny PNG bar chart, written by hand with zlib (no plotting dependency:
the chart is two bar groups and a few labels, which does not justify
pulling in matplotlib and numpy).

>>> png = survey_chart("test", {"won": 3, "lost": 1, "unknown": 0}, [0.01, 0.2, 3.0, 0.5])
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import struct
import zlib

# 3x5 pixel glyphs, rows top to bottom, "1" = ink.
_FONT = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001001001001", "8": "111101111101111",
    "9": "111101111001111", ".": "000000000000010", "%": "101001010100101",
    "-": "000000111000000", ":": "000010000010000", "<": "001010100010001",
    ">": "100010001010100", " ": "000000000000000", "/": "001001010100100",
    "(": "010100100100010", ")": "010001001001010", "=": "000111000111000",
    "A": "010101111101101", "B": "110101110101110", "C": "011100100100011",
    "D": "110101101101110", "E": "111100110100111", "F": "111100110100100",
    "G": "011100101101011", "H": "101101111101101", "I": "111010010010111",
    "J": "001001001101010", "K": "101101110101101", "L": "100100100100111",
    "M": "101111111101101", "N": "110101101101101", "O": "010101101101010",
    "P": "110101110100100", "Q": "010101101110011", "R": "110101110101101",
    "S": "011100010001110", "T": "111010010010010", "U": "101101101101111",
    "V": "101101101101010", "W": "101101111111101", "X": "101101010101101",
    "Y": "101101010010010", "Z": "111001010100111",
}

Colour = tuple[int, int, int]
WHITE: Colour = (255, 255, 255)
BLACK: Colour = (30, 30, 30)
GREY: Colour = (170, 170, 170)
COLOURS: dict[str, Colour] = {"won": (46, 139, 87), "lost": (200, 60, 50), "unknown": GREY}

TIME_BUCKETS = (0.01, 0.1, 1.0, 10.0, 100.0)


class Canvas:
    """An RGB pixel buffer that can be saved as PNG."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.pixels = bytearray(WHITE * (width * height))

    def rect(self, x: int, y: int, w: int, h: int, colour: Colour) -> None:
        """Fill a rectangle (clipped to the canvas)."""
        for row in range(max(0, y), min(self.height, y + h)):
            start = (row * self.width + max(0, x)) * 3
            end = (row * self.width + min(self.width, x + w)) * 3
            if end > start:
                self.pixels[start:end] = bytes(colour) * ((end - start) // 3)

    def text(self, x: int, y: int, text: str, scale: int = 2, colour: Colour = BLACK) -> None:
        """Draw text in the 3x5 font (unknown characters are blank)."""
        for i, ch in enumerate(text.upper()):
            glyph = _FONT.get(ch, _FONT[" "])
            for bit, ink in enumerate(glyph):
                if ink == "1":
                    gx, gy = bit % 3, bit // 3
                    self.rect(x + (i * 4 + gx) * scale, y + gy * scale, scale, scale, colour)

    def png(self) -> bytes:
        """The image as PNG bytes."""
        raw = b"".join(
            b"\x00" + bytes(self.pixels[r * self.width * 3:(r + 1) * self.width * 3])
            for r in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
        )


def survey_chart(title: str, counts: dict[str, int], seconds: list[float]) -> bytes:
    """A chart of a survey: a bar of won/lost/unknown shares and a histogram
    of the solving times (per decade)."""
    canvas = Canvas(640, 360)
    canvas.text(20, 16, title, 3)
    total = max(1, sum(counts.values()))
    x = 20
    width = 600
    for name in ("won", "lost", "unknown"):
        w = round(width * counts.get(name, 0) / total)
        canvas.rect(x, 50, w, 40, COLOURS[name])
        x += w
    legend_x = 20
    for name in ("won", "lost", "unknown"):
        label = f"{name} {counts.get(name, 0)} ({100 * counts.get(name, 0) / total:.1f}%)"
        canvas.rect(legend_x, 100, 10, 10, COLOURS[name])
        canvas.text(legend_x + 16, 100, label)
        legend_x += 16 + len(label) * 8 + 24
    canvas.text(20, 140, "seconds per deal")
    edges = [0.0, *TIME_BUCKETS]
    bins = [0] * len(TIME_BUCKETS)
    for s in seconds:
        for i, upper in enumerate(TIME_BUCKETS):
            if s < upper or i == len(TIME_BUCKETS) - 1:
                bins[i] += 1
                break
    top = max(1, max(bins))
    for i, n in enumerate(bins):
        h = round(150 * n / top)
        bx = 40 + i * 115
        canvas.rect(bx, 320 - h, 80, h, (70, 110, 180))
        canvas.text(bx, 326, f"<{edges[i + 1]:g}")
        canvas.text(bx, 308 - h, str(n))
    return canvas.png()
