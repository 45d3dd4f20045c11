"""The code paths that differ on Windows and macOS, run here with the platform faked at its
boundary (``sys.platform``, ``sys.frozen``, the Win32 calls through ``ctypes``): the packaged app's
model server command, the model server watching the app, the machine's memory, the keyring's
backends, global hotkeys. The CI workflow (.github/workflows/packaging.yml) runs them on those
systems too, with nothing faked."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from jawad_desktop.core.llm import llama_server, local_models
from jawad_desktop.core.llm.local_server import INSTALL_HINT, LocalServer, runtime_hint
from jawad_desktop.core.store import secrets


def test_the_packaged_app_runs_the_model_server_as_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    server = LocalServer(Path("/models/m.gguf"))
    source = server.command()
    assert source[:3] == [sys.executable, "-m", "jawad_desktop.core.llm.llama_server"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    frozen = server.command()
    assert frozen[:4] == [sys.executable, llama_server.FROZEN_FLAG, "--parent", str(os.getpid())]
    assert frozen[4:] == source[5:]  # the same server options
    assert "pip" not in runtime_hint() and runtime_hint() != INSTALL_HINT  # never pip in a packaged app


class _Kernel32:
    """The three Win32 calls ``parent_alive`` makes, for one process that runs or not."""

    def __init__(self, running: bool) -> None:
        self.running = running
        self.closed: list[int] = []

    def OpenProcess(self, access: int, inherit: bool, pid: int) -> int:  # the Win32 names
        return 7 if self.running else 0

    def WaitForSingleObject(self, handle: int, ms: int) -> int:
        return 0x102  # WAIT_TIMEOUT: still running

    def CloseHandle(self, handle: int) -> None:
        self.closed.append(handle)


def test_the_model_server_watches_the_app_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel32 = _Kernel32(running=True)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(ctypes, "windll", SimpleNamespace(kernel32=kernel32), raising=False)
    assert llama_server.parent_alive(1234) and kernel32.closed == [7]
    kernel32.running = False
    assert not llama_server.parent_alive(1234)


def test_the_model_server_watches_the_app_elsewhere() -> None:
    assert llama_server.parent_alive(os.getppid()) and not llama_server.parent_alive(os.getppid() + 100_000)


def test_the_memory_of_a_windows_computer(monkeypatch: pytest.MonkeyPatch) -> None:
    def status(pointer: Any) -> int:
        pointer._obj.total = 16_000_000_000
        return 1

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(ctypes, "windll", SimpleNamespace(kernel32=SimpleNamespace(GlobalMemoryStatusEx=status)),
                        raising=False)
    assert local_models.machine_memory_bytes() == 16_000_000_000


def test_the_memory_of_this_computer() -> None:
    assert local_models.machine_memory_bytes() > 100_000_000


@pytest.mark.parametrize(("platform", "module"), [("win32", "keyring.backends.Windows"),
                                                   ("darwin", "keyring.backends.macOS")])
def test_each_system_asks_its_own_keyring(platform: str, module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring.backend

    imported: list[str] = []
    monkeypatch.setattr(keyring.backend.KeyringBackend, "get_viable_backends", classmethod(lambda cls: []))
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(secrets.importlib, "import_module", imported.append)
    found = secrets._candidate_backends()
    monkeypatch.undo()
    assert found == []
    assert imported == [module]


@pytest.mark.parametrize(("qt_platform", "name"), [("windows", "Windows"), ("cocoa", "macOS")])
def test_global_hotkeys_say_plainly_they_are_not_there_on_windows_and_macos(qt_platform: str, name: str) -> None:
    from jawad_desktop.ui.desktop.global_hotkeys import choose_backend

    choice = choose_backend({}, qt_platform=qt_platform)
    assert choice.kind == "none" and f"on {name}" in choice.note and "DISPLAY" not in choice.note
