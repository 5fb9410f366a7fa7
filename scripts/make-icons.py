#!/usr/bin/env python3
"""Draws the extension's icons (a pointer in a speech bubble) as PNGs with no image library.

Run once after changing the design; the PNGs are committed under extension/icons/.
"""
import math
import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "extension" / "icons"
BG = (37, 99, 235)  # blue-600
FG = (255, 255, 255)


def inside_rounded_square(x, y, size, radius):
    cx = min(max(x, radius), size - radius)
    cy = min(max(y, radius), size - radius * 1.0)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2


def inside_pointer(x, y, size):
    # An arrow cursor: a triangle with its tip at the upper left, plus a short tail.
    u, v = x / size, y / size
    tip = (0.30, 0.22)
    a = (0.30, 0.78)
    b = (0.72, 0.58)

    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    pt = (u, v)
    d1, d2, d3 = side(tip, a, pt), side(a, b, pt), side(b, tip, pt)
    in_triangle = not ((d1 < 0 or d2 < 0 or d3 < 0) and (d1 > 0 or d2 > 0 or d3 > 0))
    # The tail: a thick segment from the middle of the base towards the lower right.
    px, py, qx, qy = 0.50, 0.64, 0.66, 0.86
    t = max(0.0, min(1.0, ((u - px) * (qx - px) + (v - py) * (qy - py)) / ((qx - px) ** 2 + (qy - py) ** 2)))
    dist = math.hypot(u - (px + t * (qx - px)), v - (py + t * (qy - py)))
    return in_triangle or dist < 0.07


def pixel(x, y, size):
    # 4x4 supersampling for smooth edges.
    bg = fg = 0
    for sy in range(4):
        for sx in range(4):
            fx, fy = x + (sx + 0.5) / 4, y + (sy + 0.5) / 4
            if inside_rounded_square(fx, fy, size, size * 0.22):
                if inside_pointer(fx, fy, size):
                    fg += 1
                else:
                    bg += 1
    alpha = (bg + fg) / 16
    if alpha == 0:
        return (0, 0, 0, 0)
    mix = fg / (bg + fg)
    rgb = tuple(round(BG[i] * (1 - mix) + FG[i] * mix) for i in range(3))
    return (*rgb, round(alpha * 255))


def png(size):
    rows = b"".join(
        b"\x00" + b"".join(struct.pack("4B", *pixel(x, y, size)) for x in range(size))
        for y in range(size)
    )

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (16, 32, 48, 128):
        (OUT / f"bai-{size}.png").write_bytes(png(size))
