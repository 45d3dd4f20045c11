"""Make the Windows and macOS icons (``jawad.ico``, ``jawad.icns``) from the PNG sizes.

Both formats can hold PNG images as they are (ICO since Windows Vista, ICNS since macOS
10.7), so the icons are assembled byte for byte from ``resources/icons/jawad-<size>.png``
with no image library. Run after changing the PNGs and commit the results:

    python packaging/make_icons.py
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"

# ICO holds images up to 256 px; Windows picks the size it needs.
ICO_SIZES = [16, 32, 48, 64, 128, 256]

# ICNS element types that hold a PNG, by pixel size (the @2x types reuse larger PNGs).
ICNS_TYPES: list[tuple[bytes, int]] = [
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic11", 32),  # 16 pt @2x
    (b"ic12", 64),  # 32 pt @2x
    (b"ic13", 256),  # 128 pt @2x
    (b"ic14", 512),  # 256 pt @2x
]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def read_png(folder: Path, size: int) -> bytes:
    path = folder / f"jawad-{size}.png"
    data = path.read_bytes()
    if png_size(data) != (size, size):
        raise ValueError(f"{path} is {png_size(data)}, expected {size}x{size}")
    return data


def build_ico(images: dict[int, bytes]) -> bytes:
    """An ICO file with one PNG entry per size."""
    sizes = sorted(images)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries = b""
    body = b""
    for size in sizes:
        data = images[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in a one-byte field
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset + len(body))
        body += data
    return header + entries + body


def build_icns(images: dict[int, bytes]) -> bytes:
    """An ICNS file with a PNG element for every type whose size is available."""
    body = b""
    for kind, size in ICNS_TYPES:
        if size in images:
            body += kind + struct.pack(">I", 8 + len(images[size])) + images[size]
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main(folder: Path = ICONS) -> int:
    pngs = {size: read_png(folder, size) for size in sorted({*ICO_SIZES, *(s for _, s in ICNS_TYPES)})}
    (folder / "jawad.ico").write_bytes(build_ico({s: pngs[s] for s in ICO_SIZES}))
    (folder / "jawad.icns").write_bytes(build_icns(pngs))
    print(f"wrote {folder / 'jawad.ico'} and {folder / 'jawad.icns'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
