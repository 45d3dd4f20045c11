"""``jawad --self-test``: start headless, check the parts a user relies on, print JSON.

Checks: settings load and save in the profile, the main window builds and shows, the web view
loads a local page, a JavaScript round trip through the page, the keyring backend (a real
round trip of a probe secret), tokens counted with OpenAI's encoding shipped in the app (offline).
Exit 0 only if every check passed. The packaged app is checked with this command.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from jawad_desktop import __version__
from jawad_desktop.ui.app.application import create_application, run_loop

if TYPE_CHECKING:
    from PySide6.QtWebEngineWidgets import QWebEngineView

    from jawad_desktop.ui.window.main_window import MainWindow

TIMEOUT_S = 45.0

PAGE = """<!doctype html><html><head><title>Jawad self-test</title></head>
<body><h1 id="t">Self-test</h1><button id="b" onclick="this.dataset.clicked='yes'">Press</button></body></html>"""


class Checks:
    """The checks' results by name: ``{"ok": bool, "detail": str, ...}``."""

    def __init__(self) -> None:
        self.results: dict[str, dict[str, Any]] = {}

    def record(self, name: str, ok: bool, detail: str = "", **extra: Any) -> None:
        self.results[name] = {"ok": ok, "detail": detail, **extra}

    @property
    def ok(self) -> bool:
        return bool(self.results) and all(c["ok"] for c in self.results.values())


def _ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


async def _check_window(checks: Checks, profile: str | None) -> MainWindow | None:
    """Settings load and save in the profile; the main window builds and shows."""
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.window.main_window import MainWindow

    try:
        ctx = AppContext.open(profile)
        ctx.save_settings()
        checks.record("settings", True, str(ctx.paths.settings_file))
    except Exception as exc:
        checks.record("settings", False, f"{type(exc).__name__}: {exc}")
        return None
    try:
        t0 = time.perf_counter()
        window = MainWindow(ctx)
        window.show()
        await asyncio.sleep(0.05)  # let Qt show it (no nested processEvents inside a task)
        checks.record("main_window", window.isVisible(), "built and shown", ms=_ms_since(t0))
    except Exception as exc:
        checks.record("main_window", False, f"{type(exc).__name__}: {exc}")
        return None
    return window


async def _check_web_view(checks: Checks, window: MainWindow) -> None:
    """The window's start page loads, then a local page of ours."""
    from PySide6.QtCore import QUrl

    view = window.browser.view
    start_page: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    loaded: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def on_loaded(ok: bool) -> None:
        # The window's start page loads first (it is started with the window); then ours.
        waiting = start_page if not start_page.done() else loaded
        if not waiting.done():
            waiting.set_result(ok)

    view.loadFinished.connect(on_loaded)
    t0 = time.perf_counter()
    try:
        if not window.browser.loads_finished:
            await asyncio.wait_for(start_page, 20)
        else:
            start_page.set_result(True)
        view.setHtml(PAGE, QUrl("http://127.0.0.1/self-test"))
        ok = await asyncio.wait_for(loaded, 20)
        checks.record("web_view", ok and view.title() == "Jawad self-test", f"title={view.title()!r}",
                      ms=_ms_since(t0))
    except TimeoutError:
        checks.record("web_view", False, "the page did not load within 20 s")


async def _check_javascript(checks: Checks, view: QWebEngineView) -> None:
    """A JavaScript round trip through the page: a click and a computed value."""
    result: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    script = (
        "document.getElementById('b').click();"
        "JSON.stringify([6 * 7, document.getElementById('b').dataset.clicked])"
    )

    def on_result(value: Any) -> None:
        if not result.done():
            result.set_result(value)

    view.page().runJavaScript(script, 0, on_result)
    try:
        value = await asyncio.wait_for(result, 10)
        checks.record("javascript", value == '[42,"yes"]', f"result={value!r}")
    except TimeoutError:
        checks.record("javascript", False, "no answer from the page within 10 s")


async def _check_keyring(checks: Checks) -> None:
    """A real round trip of a probe secret through the keyring backend."""
    from jawad_desktop.core.store.secrets import SecretStore

    store = await asyncio.to_thread(SecretStore.detect)
    if store.backend is None:
        checks.record("keyring", False, store.problem)
        return
    probe = "self-test-probe"
    try:
        await asyncio.to_thread(store.set, probe, "ok")
        round_trip = await asyncio.to_thread(store.get, probe)
        await asyncio.to_thread(store.delete, probe)
        checks.record("keyring", round_trip == "ok", store.backend_name)
    except Exception as exc:
        checks.record("keyring", False, f"{store.backend_name}: {exc}")


async def _check_offline_parts(checks: Checks) -> None:
    """Tokens counted with OpenAI's encoding shipped in the app, the voice activity detector and the
    end-of-turn model."""
    try:
        from jawad_desktop.core.tokens import counter_for

        counter = counter_for("gpt-4o")
        counted = await asyncio.to_thread(counter.count, "hello world")
        checks.record("tokens", counted == 2, f"{counter.name}: {counted} tokens for 'hello world'")
    except Exception as exc:
        checks.record("tokens", False, f"{type(exc).__name__}: {exc}")
    try:  # the packaged app: Silero once its voice pack (onnxruntime) is installed, else the energy detector
        from jawad_desktop.core.voice.vad import load_silero

        silero = await asyncio.to_thread(load_silero) is not None
        checks.record("voice_activity", True, "Silero VAD" if silero else "energy detector (Silero needs offline "
                      "speech: the voice pack)", silero=silero)
    except Exception as exc:
        checks.record("voice_activity", False, f"{type(exc).__name__}: {exc}")
    try:  # the end-of-turn model: pipecat-ai's file in a source install, the voice pack's in the packaged app
        from jawad_desktop.core.voice.turns_model import load_turn_model, model_path

        path = await asyncio.to_thread(model_path)  # checked against its pin (UntrustedFile when it differs)
        loaded = path is not None and await asyncio.to_thread(load_turn_model, path) is not None
        checks.record("turn_model", True, str(path) if loaded else "not installed: the words decide when a turn "
                      "ends (the packaged app: the voice pack)", loaded=loaded, path=str(path) if path else None)
    except Exception as exc:
        checks.record("turn_model", False, getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")


async def _run_checks(checks: Checks, profile: str | None) -> int:
    window = await _check_window(checks, profile)
    if window is None:
        return 1
    await _check_web_view(checks, window)
    await _check_javascript(checks, window.browser.view)
    await _check_keyring(checks)
    await _check_offline_parts(checks)
    window.close()
    window.dispose()
    return 0


def run_self_test(profile: str | None) -> int:
    """Run every check headless, print the JSON report; 0 only if every check passed."""
    started = time.perf_counter()
    create_application(headless=True)
    checks = Checks()

    async def guarded() -> int:
        try:
            return await asyncio.wait_for(_run_checks(checks, profile), TIMEOUT_S)
        except TimeoutError:
            checks.record("timeout", False, f"the self-test did not finish within {TIMEOUT_S:.0f} s")
            return 1

    run_loop(guarded)
    report = {
        "ok": checks.ok,
        "version": __version__,
        "checks": checks.results,
        "seconds": round(time.perf_counter() - started, 2),
    }
    print(json.dumps(report, indent=2))
    sys.stdout.flush()
    return 0 if checks.ok else 1
