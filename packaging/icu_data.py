"""Qt's ICU data library, cut down to the data Qt reads (Linux bundles).

PySide6's Linux wheel ships ICU 73 for Qt Core, and ICU's data library
(``libicudata.so.73``: one symbol, ``icudt73_dat``, holding an ICU "common data" package
of 3,900 items) is 32 MB of the bundle. Chromium does not use it: QtWebEngine carries its own
ICU with its own data (``resources/icudtl.dat``, untouched). Qt Core is its only user, and it
calls ICU for four things only (its imported ICU functions, ``readelf --dyn-syms
libQt6Core.so.6``): converters of legacy text encodings (``ucnv_*``: the ``*.cnv`` items and
their aliases), collation (``ucol_*``: QCollator, file dialogs sort names with it:
``coll/``), calendars and time-zone names (``ucal_*``: ``zone/``, the locales' main bundles,
``supplementalData``, ``zoneinfo64``) and case mapping (``u_strToUpper/Lower``, whose data is
compiled into ``libicuuc``). Everything is kept but the trees of resource bundles no code
reached from those functions opens (``DROPPED_TREES``); ICU treats a missing bundle as
"use the fallback" anyway, never as a crash.

The package is rewritten with the same header and the kept items in the same (sorted)
order, and linked into a library of the same SONAME and symbol with binutils' ``as`` and
``ld`` (the tools ``strip`` comes with).
"""

from __future__ import annotations

import hashlib
import re
import struct
import subprocess
from collections.abc import Iterable
from pathlib import Path

# Resource-bundle trees Qt Core never opens (see the module's docstring), 15 MB of 32:
# - brkitr: break-iterator rules and the CJK, Thai, Khmer, Lao and Burmese word
#   dictionaries (``ubrk_*``; Qt finds text boundaries with its own tables, Chromium with
#   its own ICU);
# - unit, curr, lang, region: names of units, currencies, languages and regions for ICU's
#   formatters and display names (``unum_*``, ``uloc_getDisplay*``; QLocale has its own
#   CLDR tables for these);
# - translit: transliteration rules (``utrans_*``);
# - rbnf: spelled-out numbers (``unum`` with ``UNUM_SPELLOUT``).
DROPPED_TREES = ("brkitr/", "unit/", "curr/", "lang/", "region/", "translit/", "rbnf/")

LIBRARY_NAME = re.compile(r"^libicudata\.so\.(\d+)$")
_ALIGN = 16  # ICU requires every item (and the package) to start on a 16-byte boundary
_PT_LOAD = 1


def _align(value: int) -> int:
    return (value + _ALIGN - 1) // _ALIGN * _ALIGN


def package_bytes(library: Path, symbol: str) -> bytes:
    """The common-data package a libicudata library exports as ``symbol``."""
    listing = subprocess.run(["readelf", "-W", "--dyn-syms", str(library)],
                             capture_output=True, text=True, check=True).stdout
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[7] == symbol:
            address, size = int(fields[1], 16), int(fields[2], 0)
            break
    else:
        raise ValueError(f"{library} does not define {symbol}")
    data = library.read_bytes()
    (segments_at,) = struct.unpack_from("<Q", data, 0x20)
    entry_size, count = struct.unpack_from("<HH", data, 0x36)
    for i in range(count):
        kind, _flags, offset, vaddr, _paddr, filesz, _memsz, _alignment = struct.unpack_from(
            "<IIQQQQQQ", data, segments_at + i * entry_size)
        if kind == _PT_LOAD and vaddr <= address and address + size <= vaddr + filesz:
            start = offset + address - vaddr
            return data[start:start + size]
    raise ValueError(f"{symbol} of {library} is in no loaded segment")


def package_items(package: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """(the package's header, its (name, data) items in stored order)."""
    (header_size,) = struct.unpack_from("<H", package, 0)
    if package[2:4] != b"\xda\x27" or package[12:16] != b"CmnD":
        raise ValueError("not an ICU common-data package")
    toc = package[header_size:]
    (count,) = struct.unpack_from("<I", toc, 0)
    entries = [struct.unpack_from("<II", toc, 4 + 8 * i) for i in range(count)]
    ends = [data for _name, data in entries[1:]] + [len(toc)]
    items = []
    for (name_at, data_at), end in zip(entries, ends, strict=True):
        name = toc[name_at:toc.index(b"\0", name_at)].decode("ascii")
        items.append((name, toc[data_at:end]))
    return package[:header_size], items


def write_package(header: bytes, items: Iterable[tuple[str, bytes]]) -> bytes:
    """A common-data package of ``items`` (kept in the given, sorted, order: ICU looks names
    up by binary search)."""
    items = list(items)
    if len(header) % _ALIGN:
        raise ValueError("the package header must keep items aligned")
    names = b"".join(name.encode("ascii") + b"\0" for name, _data in items)
    names_at = 4 + 8 * len(items)
    data_at = _align(names_at + len(names))
    toc = bytearray(struct.pack("<I", len(items)))
    body = bytearray()
    name_offset = names_at
    for name, data in items:
        toc += struct.pack("<II", name_offset, data_at + len(body))
        name_offset += len(name) + 1
        body += data + b"\0" * (_align(len(data)) - len(data))
    toc += names + b"\0" * (data_at - names_at - len(names))
    return header + bytes(toc) + bytes(body)


def kept(name: str) -> bool:
    """True for an item Qt may read: any item outside ``DROPPED_TREES``."""
    tree = name.split("/", 1)[1] if "/" in name else name  # "icudt73l/coll/root.res"
    return not tree.startswith(DROPPED_TREES)


def link_library(package: Path, symbol: str, soname: str, target: Path) -> None:
    """``target``: a shared library exporting ``package``'s bytes as ``symbol``."""
    source = target.with_suffix(".S")
    source.write_text(
        "\t.section .rodata\n"
        f"\t.globl {symbol}\n"
        f"\t.type {symbol}, @object\n"
        f"\t.balign {_ALIGN}\n"
        f"{symbol}:\n"
        f'\t.incbin "{package}"\n'
        f"\t.size {symbol}, . - {symbol}\n"
        '\t.section .note.GNU-stack,"",@progbits\n'
    )
    obj = target.with_suffix(".o")
    subprocess.run(["as", "--64", "-o", str(obj), str(source)], check=True, capture_output=True)
    subprocess.run(["ld", "-shared", "-soname", soname, "-z", "noexecstack", "-s", "-o", str(target), str(obj)],
                   check=True, capture_output=True)
    obj.unlink()


def slim_library(source: Path, workdir: Path) -> Path:
    """A copy of the ICU data library ``source`` without ``DROPPED_TREES``, with the same
    SONAME and symbol (cached in ``workdir`` across builds); its package is checked by
    reading it back."""
    match = LIBRARY_NAME.match(source.name)
    if match is None:
        raise ValueError(f"{source.name} is not an ICU data library")
    stat = source.stat()
    key = hashlib.sha256(f"{source}|{stat.st_size}|{stat.st_mtime_ns}|{DROPPED_TREES}".encode()).hexdigest()[:16]
    target = workdir / "icu" / key / source.name
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    symbol = f"icudt{match.group(1)}_dat"
    header, items = package_items(package_bytes(source, symbol))
    slim = [(name, data) for name, data in items if kept(name)]
    package = target.parent / f"icudt{match.group(1)}l.dat"
    package.write_bytes(write_package(header, slim))
    partial = target.with_name(target.name + ".part")
    link_library(package, symbol, source.name, partial)
    if package_items(package_bytes(partial, symbol)) != (header, slim):
        raise ValueError(f"the slimmed {source.name} does not read back as written")
    package.unlink()
    partial.rename(target)
    return target
