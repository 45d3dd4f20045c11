"""The tray under a real X server: the real app (``python -m jawad_desktop``) on a private Xvfb
with a system tray (an X client owning the ``_NET_SYSTEM_TRAY_S0`` selection, as every XEmbed
tray does) docks its icon there; with "keep running in the tray" on, the window manager's close
(WM_DELETE_WINDOW) hides the window and the app keeps running; a quit signal still quits."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.core.context import AppContext
from tests.fixtures.gui_process import gui_env, virtual_display


def _until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _app_window(display: Any) -> Any:
    """The app's viewable top-level window ("Jawad Desktop"), or None."""
    from Xlib import X

    for window in display.screen().root.query_tree().children:
        try:
            if window.get_wm_name() == "Jawad Desktop" and window.get_attributes().map_state == X.IsViewable:
                return window
        except Exception:  # a window that went away meanwhile
            continue
    return None


def test_the_tray_docks_and_closing_hides_to_it_until_quit(tmp_path: Path) -> None:
    from Xlib import X
    from Xlib.display import Display
    from Xlib.protocol import event

    profile = tmp_path / "p"
    ctx = AppContext.open(str(profile))
    ctx.settings.desktop.keep_in_tray = True
    ctx.settings.desktop.quick_ask_enabled = False
    ctx.settings.desktop.talk_enabled = False
    ctx.save_settings()
    with virtual_display() as name:
        tray_client = Display(name)
        root = tray_client.screen().root
        tray = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
        tray.set_selection_owner(tray_client.intern_atom("_NET_SYSTEM_TRAY_S0"), X.CurrentTime)
        tray_client.sync()
        app = subprocess.Popen(
            [sys.executable, "-m", "jawad_desktop", "--profile", str(profile)],
            env=gui_env(name), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        try:
            # The icon asks the tray to dock it (SYSTEM_TRAY_REQUEST_DOCK), as on a desktop.
            opcode = tray_client.intern_atom("_NET_SYSTEM_TRAY_OPCODE")

            def dock_request() -> bool:
                while tray_client.pending_events():
                    received = tray_client.next_event()
                    if received.type == X.ClientMessage and received.client_type == opcode:
                        return bool(received.data[1][1] == 0)
                return False

            _until(dock_request, 60, "the tray icon's dock request")
            watcher = Display(name)
            window = _until(lambda: _app_window(watcher), 30, "the window")
            # Closed as a window manager closes it.
            protocols = watcher.intern_atom("WM_PROTOCOLS")
            delete = watcher.intern_atom("WM_DELETE_WINDOW")
            window.send_event(event.ClientMessage(window=window, client_type=protocols,
                                                  data=(32, [delete, X.CurrentTime, 0, 0, 0])))
            watcher.sync()
            _until(lambda: _app_window(watcher) is None, 10, "the window to hide")
            time.sleep(1.0)
            assert app.poll() is None, "the app quit instead of staying in the tray"
            app.send_signal(signal.SIGTERM)  # the session ending: quits for real
            assert app.wait(15) == 0
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()
            stderr = app.stderr.read().decode(errors="replace") if app.stderr else ""
            tray_client.close()
        assert "Traceback" not in stderr, stderr[-3000:]
