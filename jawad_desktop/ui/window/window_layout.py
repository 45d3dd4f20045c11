"""The main window's layout kept between runs: its geometry, the pane sizes, the action log drawer's
height, whether it and the browser are shown and whether the browser is in its own window (a part of
``MainWindow``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from jawad_desktop.ui.window.window_part import WindowPart

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSplitter


log = logging.getLogger("jawad.ui.window")


class WindowLayout(WindowPart):
    """Layout persistence for ``MainWindow``."""

    def _toggle_log(self, shown: bool) -> None:
        self.action_log_drawer.set_expanded(shown)

    def _log_drawer_changed(self, expanded: bool) -> None:
        """The drawer opened (it gets its remembered height) or closed (the chat gets the room)."""
        self.toggle_log_action.setChecked(expanded)
        total = max(sum(self.left_split.sizes()), self.left_split.height(), 400)
        if expanded:
            height = min(self._log_height, max(60, total - 120))
            self.left_split.setSizes([total - height, height])
        else:
            collapsed = self.action_log_drawer.collapsed_height()
            self.left_split.setSizes([total - collapsed, collapsed])

    def _remember_log_height(self, *args: Any) -> None:
        if self.action_log_drawer.is_expanded():
            self._log_height = self.left_split.sizes()[1]

    def _restore_layout(self) -> None:
        ui = self.ctx.settings.ui
        if ui.window_geometry:
            from PySide6.QtCore import QByteArray

            self.restoreGeometry(QByteArray.fromBase64(ui.window_geometry.encode()))
        else:
            self.resize(1280, 800)
        self._restore_splitter(self.main_split)
        self._restore_log_drawer()
        shown = ui.splitter_sizes.get("browser") != [0]
        self.browser_detach.geometry = ui.browser_window_geometry
        self.browser_detach.set_detached(ui.browser_detached, shown=shown)  # in its own window, or not
        self.browser_toggle.set_shown(shown)

    def _restore_log_drawer(self) -> None:
        """The chat and the action log: "chat_log" holds their sizes with the drawer open,
        "action_log" whether it was open ([1]) or closed ([0], the default)."""
        saved = self.ctx.settings.ui.splitter_sizes
        sizes = saved.get("chat_log")
        if sizes and len(sizes) == 2 and sizes[1] > 0:
            self._log_height = sizes[1]
            self.left_split.setSizes(sizes)
        self.action_log_drawer.set_expanded(saved.get("action_log") == [1])
        self._log_drawer_changed(self.action_log_drawer.is_expanded())

    def _restore_splitter(self, splitter: QSplitter) -> None:
        sizes = self.ctx.settings.ui.splitter_sizes.get(splitter.objectName())
        if splitter is self.main_split:
            sizes = self.browser_detach.fit_sizes(sizes)  # without the browser while it has its own window
        if sizes and len(sizes) == splitter.count() and sum(sizes) > 0:
            splitter.setSizes(sizes)
        else:
            splitter.setSizes([220, 480, 580] if splitter.count() == 3 else [520, 760])

    def save_layout(self) -> None:
        ui = self.ctx.settings.ui
        ui.window_geometry = bytes(self.saveGeometry().toBase64().data()).decode()
        self._remember_log_height()
        total = sum(self.left_split.sizes())
        ui.splitter_sizes = {
            "main": self.browser_detach.split_sizes(),  # as with the browser in it
            "chat_log": [max(0, total - self._log_height), self._log_height],  # as when the drawer is open
            "action_log": [1 if self.action_log_drawer.is_expanded() else 0],
            "browser": [1 if self.browser_toggle.is_shown() else 0],
        }
        ui.browser_detached = self.browser_detach.is_detached()
        ui.browser_window_geometry = self.browser_detach.remembered_geometry()
        try:
            self.ctx.save_settings()
        except OSError as exc:
            log.error("could not save the window layout: %s", exc)
