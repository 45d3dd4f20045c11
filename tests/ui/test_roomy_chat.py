"""A roomy chat (issue 32): the messages and the composer are a centred reading column at most
``READING_WIDTH`` wide at any window size; View → Browser hides the browser so the chat has the
window and shows it again at its width; the agent working in the page brings a hidden browser
back; whether it was shown is remembered with the layout."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.ui.look.theme import READING_WIDTH
from jawad_desktop.ui.window.main_window import MainWindow


def entry(tool: str) -> ActionLogEntry:
    return ActionLogEntry(id=tool, timestamp=int(time.time() * 1000), tool_name=tool, parameters={},
                          site="127.0.0.1", permission_level="read-only", decision="auto-approved", result="success")


def painted_columns(view: QWidget) -> tuple[int, int]:
    """The leftmost and rightmost columns of the view's viewport where anything differs from the
    background (the top-left pixel)."""
    image = view.viewport().grab().toImage()
    background = image.pixel(0, 0)
    step = max(1, image.height() // 200)
    used = [x for x in range(image.width())
            if any(image.pixel(x, y) != background for y in range(0, image.height(), step))]
    assert used, "nothing painted"
    return used[0], used[-1]


def test_a_centred_reading_column_and_a_browser_that_folds_away(make_window: Any, profile_dir: Path,
                                                                  qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    window.resize(1440, 900)
    toggle = window.browser_toggle
    chat = window.chat

    chat.add_message("user", "What is the capital of Portugal? " * 6)  # the messages show, not the empty chat
    answer = chat.add_message("assistant", "Lisbon is the capital of Portugal. " * 30)
    assert answer
    toggle.action.trigger()  # View → Browser: hidden, the chat takes the window
    assert window.browser_column.isHidden() and not toggle.action.isChecked()
    qtbot.waitUntil(lambda: chat.view.width() > 1000, timeout=3000)
    qtbot.wait(100)
    left, right = painted_columns(chat.view)
    margin_left, margin_right = left, chat.view.viewport().width() - 1 - right
    assert right - left <= READING_WIDTH, "the messages are a column, not the whole width"
    assert margin_left > 100 and abs(margin_left - margin_right) <= 30, (left, right, chat.view.viewport().width())
    composer = chat.composer.geometry()
    assert composer.width() <= READING_WIDTH + 20
    assert abs(composer.center().x() - chat.width() // 2) <= 4, "the composer is centred under the messages"

    window.save_layout()
    assert window.ctx.settings.ui.splitter_sizes["browser"] == [0]
    assert AppContext.open(str(profile_dir)).settings.ui.splitter_sizes["browser"] == [0]

    window.browser_toggle.agent_acted(entry("calculate"))  # not in the page: the browser stays away
    assert window.browser_column.isHidden()
    window.browser_toggle.agent_acted(entry("read_page"))  # the agent works in the page: shown, with room
    assert not window.browser_column.isHidden() and toggle.action.isChecked()
    qtbot.waitUntil(lambda: window.browser_column.width() >= 0.4 * window.main_split.width(), timeout=3000)

    window.main_split.setSizes([200, 700, 540])
    qtbot.wait(20)
    before = window.browser_column.width()
    toggle.action.trigger()
    toggle.action.trigger()  # hidden and shown again: the width it had
    qtbot.waitUntil(lambda: abs(window.browser_column.width() - before) <= 2, timeout=3000)
    # A narrow chat: the column is its whole width.
    window.main_split.setSizes([200, 500, 740])
    qtbot.wait(100)
    left, right = painted_columns(chat.view)
    assert left < 20 and right > chat.view.viewport().width() - 20


def test_the_first_run_notice_shows_again_in_a_new_chat(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    """No provider: sending says "Add a provider first" once per chat; after New chat it says it
    again (the notice's id outlived the chat it was in, and nothing showed)."""
    from PySide6.QtCore import Qt

    from jawad_desktop.ui.chat.presenter import NO_PROVIDER

    window: MainWindow = make_window(profile_dir)
    chat = window.chat

    def notices() -> list[str]:
        return [i.text for i in chat.view.chat_model.items() if i.role == "notice"]

    for _attempt in range(2):
        for _ in range(2):
            chat.input.setPlainText("Hello!")
            qtbot.keyClick(chat.input, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: notices() == [NO_PROVIDER], timeout=3000)
        window.new_chat_action.trigger()
        qtbot.waitUntil(lambda: notices() == [], timeout=3000)


def test_an_answer_takes_the_new_themes_colours(qtbot: Any) -> None:
    """The usage line's colour is the theme's: a theme change renders the answers again (after
    high contrast and back, the light theme's usage line kept high contrast's near-white grey)."""
    from jawad_desktop.ui.chat.chat_view import ChatPanel
    from jawad_desktop.ui.look import theme

    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 500)
    panel.show()
    panel.end_answer("Tram 28.", usage="180 tokens · free")
    view = panel.view
    item = view.chat_model.items()[-1]
    width = view.chat_delegate.text_width(view.viewport().width())
    for name in ("high-contrast", "light", "dark", "light"):
        theme.apply_theme(name)
        muted = theme.current().colours.muted
        assert muted in view.chat_delegate.document(item, width).toHtml(), name


def test_the_chats_spacing_is_the_themes_scale(qtbot: Any) -> None:
    """Every gap of the chat column (inside a bubble, between messages, the composer's insides, the
    empty state's) is a step of the theme's spacing scale, and a message stands that far from the
    column's edge and from the next (issue 32: the chat's padding was 6, 2 and 10 pixels)."""
    from PySide6.QtWidgets import QLayout

    from jawad_desktop.ui.chat.chat_model import ChatItem
    from jawad_desktop.ui.chat.chat_view import ChatPanel
    from jawad_desktop.ui.look.theme import SPACE

    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 500)
    panel.show()
    steps = set(SPACE.values())
    delegate = panel.view.chat_delegate
    assert {delegate.PAD, delegate.MARGIN} <= steps
    for widget in (panel.composer, panel.empty_state):
        layouts = [widget.layout(), *widget.findChildren(QLayout)]
        for layout in layouts:
            margins = layout.contentsMargins()
            used = {margins.left(), margins.top(), margins.right(), margins.bottom(), max(0, layout.spacing())}
            assert used <= steps | {0}, (widget.objectName(), used)
    panel.view.chat_model.append(ChatItem(role="user", text="Hello"))
    panel.view.chat_model.append(ChatItem(role="notice", text="A notice"))
    qtbot.wait(50)
    first, second = (panel.view.visualRect(panel.view.chat_model.index(r)) for r in (0, 1))
    assert second.top() - first.bottom() - 1 == 0  # rows touch: the gap is inside them
    column = delegate.column_rect(first)
    doc = delegate.document(panel.view.chat_model.item_at(0), delegate.text_width(first.width()))
    bubble = delegate._bubble_rect(panel.view.chat_model.item_at(0), first, doc)
    assert column.right() - bubble.right() == delegate.MARGIN  # the user's bubble: MARGIN clear on its right
    notice = panel.view.chat_model.item_at(1)
    notice_doc = delegate.document(notice, delegate.text_width(second.width()))
    notice_bubble = delegate._bubble_rect(notice, second, notice_doc)
    assert notice_bubble.left() - delegate.column_rect(second).left() == delegate.MARGIN  # and on a card's left
