"""The order Tab moves the keyboard through the window: the order the eye reads it in.

Qt's Tab order is the order widgets were made in, and the window is made in pieces (the browser
first, for the first frame; the history, Research and the microphone once the assistant is
built), so Tab went from the input to the action log, then to the history, then back to the
buttons beside the input. ``order_focus_chain(root)`` sets the chain to reading order: what a
layout holds in the layout's order (left to right, top to bottom), a splitter's panes in order,
into every widget that is not itself a stop for Tab (a field, a button, a list, the web page).
It is called again whenever the window gains controls.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLayout, QScrollArea, QSplitter, QWidget


def _layout_widgets(layout: QLayout) -> Iterator[QWidget]:
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item is None:
            continue
        widget = item.widget()
        if widget is not None:
            yield widget
            continue
        inner = item.layout()
        if inner is not None:
            yield from _layout_widgets(inner)


def _children_in_order(widget: QWidget) -> list[QWidget]:
    ordered: list[QWidget] = []
    layout = widget.layout()
    if isinstance(widget, QSplitter):
        ordered = [pane for i in range(widget.count()) if (pane := widget.widget(i)) is not None]
    elif isinstance(widget, QScrollArea) and (inner := widget.widget()) is not None:
        ordered = [inner]
    elif layout is not None:
        ordered = list(_layout_widgets(layout))
    placed = {id(w) for w in ordered}
    # Children no layout places (an overlay, a popup's parent) come after the ones it does.
    # Asked as widgets: ``children()`` gives QObjects, and PySide makes the Python class of every
    # QObject kind it tries on them (236 classes, 1.3 MB kept for the app's life).
    children = widget.findChildren(QWidget, "", Qt.FindChildOption.FindDirectChildrenOnly)
    rest = [c for c in children if not c.isWindow() and id(c) not in placed]
    return ordered + rest


def _takes_tab(widget: QWidget) -> bool:
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)


def reading_order(root: QWidget) -> list[QWidget]:
    """The widgets under ``root`` that Tab stops at, in reading order (hidden ones too: a panel
    shown later takes its place in the chain)."""
    found: list[QWidget] = []
    seen: set[int] = set()

    def visit(widget: QWidget) -> None:
        if id(widget) in seen:
            return
        seen.add(id(widget))
        if widget is not root and _takes_tab(widget):
            found.append(widget)  # a stop: what is inside it (a spin box's field) is its own business
            return
        proxy = widget.focusProxy()
        if proxy is not None and _takes_tab(proxy) and widget.isAncestorOf(proxy):
            visit(proxy)  # the web view's page: where the view sits
        for child in _children_in_order(widget):
            visit(child)

    visit(root)
    return found


def order_focus_chain(root: QWidget) -> list[QWidget]:
    """Make Tab (and Shift+Tab, backwards) follow ``reading_order(root)``; returns that order."""
    chain = reading_order(root)
    for first, second in pairwise(chain):
        QWidget.setTabOrder(first, second)
    return chain
