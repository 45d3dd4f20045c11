"""Every text of the window readable in every theme (issue 32's "Must show"): in light, dark and
high contrast, the first-run notice, a chat with tool cards, a notice, an error and an answer's
usage line, history with long titles and the "Deleted … Undo" bar, the model picker, and every
Settings page at its top and its bottom have no line of text under 4.5:1 (7:1 in high contrast)
against what is behind it, read from the pixels (``tests.ui.contrast``); and the Settings dialog
is never taller than the screen."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QDialog, QScrollArea, QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.chat.history_sidebar import HistorySidebar
from jawad_desktop.ui.chat.message_list import ChatView
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel
from tests.ui.contrast import contrast_problems

MINIMUM = {"light": 4.5, "dark": 4.5, "high-contrast": 7.0}
LONG_TITLES = ("What is 12*34? Use the calculator, and then tell me how you worked it out step by step",
               "Compare the three kettles at Harbour Kitchen, Alpha Appliances and Bravo Home for price")


def rows_laid_out(view: ChatView) -> bool:
    """The chat's rows one under the other: the relayout that follows a row's first paint (its
    exact height replacing an estimate) is done, so no row's text is measured over another's."""
    rects = [view.visualRect(view.chat_model.index(r)) for r in range(view.chat_model.rowCount())]
    return all(above.bottom() + 1 == below.top() for above, below in itertools.pairwise(rects))


def check(top: QWidget, theme: str, where: str, qtbot: Any) -> None:
    qtbot.wait(60)  # painted
    for view in top.findChildren(ChatView):
        qtbot.waitUntil(lambda view=view: rows_laid_out(view), timeout=5000)
    problems = contrast_problems(top, MINIMUM[theme])
    assert not problems, f"{theme}, {where}: text under {MINIMUM[theme]}:1:\n" + "\n".join(problems)


def use_theme(window: MainWindow, theme: str) -> None:
    window.ctx.settings.ui.theme = theme
    window.apply_appearance()


@pytest.mark.slow  # 20 s each: first, not at the end of a parallel run (tests/fixtures/workers.py)
@pytest.mark.parametrize("theme", ["light", "dark", "high-contrast"])
def test_every_text_is_readable_and_no_dialog_is_taller_than_the_screen(
    theme: str, make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.ui.theme = theme
    ctx.save_settings()
    window: MainWindow = make_window(profile_dir)
    window.resize(1280, 720)
    use_theme(window, theme)
    chat = window.chat
    assert chat.empty_state.isVisible()
    check(window, theme, "first start: the first-run notice", qtbot)

    ctx = window.ctx
    ctx.settings.providers = [scripted_model.provider("Scripted"), scripted_model.provider("Other")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    window.update_provider_label()
    chat.add_message("user", "How much is this kettle with my 20% coupon?")
    chat.show_tool_call("1", "read_page", {}, "Acme Kettle 1.7 L — $48.00", "success")
    chat.show_tool_call("2", "calculate", {"expression": "48 * 0.8"}, "38.4", "success")
    chat.end_answer("It comes to **$38.40** with your coupon. See [the page](https://example.com).",
                    usage="180 tokens · free")
    chat.add_message("notice", "Research needs a provider that calls tools: Settings → Providers")
    chat.end_answer("The provider refused the key (401): check it in Settings → Providers.", error=True)
    check(window, theme, "a chat with tool cards, a notice and an error", qtbot)

    sidebar = window.sidebar
    assert isinstance(sidebar, HistorySidebar)
    store = window.presenter.store
    assert store is not None
    made = [store.create(title).id for title in LONG_TITLES]
    sidebar.refresh()
    qtbot.wait(100)
    check(window, theme, "history with long titles", qtbot)
    sidebar.delete_conversation(made[0])
    qtbot.waitUntil(sidebar.undo_bar.isVisible, timeout=3000)
    check(window, theme, "delete with Undo", qtbot)

    window.provider_label.open_list()
    popup = window.provider_label.popup
    qtbot.waitUntil(popup.isVisible, timeout=3000)
    check(popup, theme, "the model picker", qtbot)
    popup.hide()

    window.settings_action.trigger()
    dialog = next(w for w in QApplication.topLevelWidgets()
                  if isinstance(w, QDialog) and w.isVisible() and w.accessibleName() == "Settings")
    assert isinstance(dialog, SettingsDialog)
    room = dialog.screen().availableGeometry()
    assert dialog.frameGeometry().height() <= room.height(), "Settings is taller than the screen"
    assert dialog.frameGeometry().width() <= room.width(), "Settings is wider than the screen"
    for row in range(dialog.pages.count()):
        dialog.pages.setCurrentRow(row)
        title = dialog.pages.item(row).text()
        for fold in dialog.folds.get(title, []):
            fold.set_open(True)
        check(dialog, theme, f"Settings → {title} (top)", qtbot)
        scroller = dialog.stack.currentWidget()
        assert isinstance(scroller, QScrollArea)
        scroller.verticalScrollBar().setValue(scroller.verticalScrollBar().maximum())
        check(dialog, theme, f"Settings → {title} (bottom)", qtbot)
    dialog.close()
