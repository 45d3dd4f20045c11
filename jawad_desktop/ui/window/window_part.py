"""The base of the main window's parts (``window_voice``, ``window_panels``, ``window_menus``,
``window_layout``): ``QMainWindow`` for the type checker, since each part uses the window's Qt
methods, and ``object`` at run time, where ``MainWindow`` itself derives from ``QMainWindow``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow as WindowPart
else:
    WindowPart = object

__all__ = ["WindowPart"]
