"""Every control of the real app has a name a screen reader can say, no label shows a stray "&"
and no list keeps Tab (issue 19): the main window after a turn with a tool card, the settings
dialog with every page, the panels that open inside the window (a permission request, a plan to
approve, a research plan, the take-over banner, the first-start offers) and the quick-ask box,
each walked as ``tests/ui/accessibility.py`` says."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QTableWidget,
    QToolButton,
    QWidget,
)

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import HandOverRequested, PermissionRequest, PlanProposed
from jawad_desktop.core.harbor import PermissionLevel
from jawad_desktop.core.llm.discovery import ProviderOffer
from jawad_desktop.core.research.plan import PlanStatus, ResearchPlan, ResearchStep
from jawad_desktop.ui.desktop.quick_ask import QuickAskWindow
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.window.first_start import OffersPanel
from jawad_desktop.ui.window.focus_order import reading_order
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, call, text
from tests.ui.accessibility import (
    controls,
    describe,
    mnemonic_clashes,
    stray_ampersands,
    tab_traps,
    unnamed_controls,
)


def _assert_accessible(root: QWidget) -> None:
    unnamed = unnamed_controls(root)
    assert not unnamed, "controls without an accessible name:\n" + "\n".join(unnamed)
    strays = stray_ampersands(root)
    assert not strays, "\n".join(strays)
    traps = tab_traps(root)
    assert not traps, "Tab goes round inside these and never leaves:\n" + "\n".join(traps)


@pytest.fixture
def window(make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()
    scripted_model.script(call("calculate", {"expression": "19.99 * 3"}), text("Three cost **59.97**."))
    made: MainWindow = make_window(profile_dir)
    made.chat.input.setPlainText("What do three cost at 19.99?")
    qtbot.keyClick(made.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not made.presenter.busy and scripted_model.remaining == 0, timeout=60_000)
    return made


def test_the_main_window_with_every_panel_open(window: MainWindow, qtbot: Any) -> None:
    now = int(time.time() * 1000)
    window.permission_panel.show_request(PermissionRequest(
        id="p1", tool_name="click_element", parameters={"index": 4}, site="shop.test",
        permission_level="interact", reason="Add the kettle to the cart", timestamp=now, critical=True,
        from_page_content=True))
    window.presenter.plans.show_plan(PlanProposed(
        id="plan1", run_id="r1", request="Buy a kettle", sites=("shop.test",),
        actions=("read: compare prices",), steps=("Open the shop", "Compare"), timestamp=now))
    assert window.research is not None
    plan = ResearchPlan(intent="the price of the Acme Kettle", steps=[
        ResearchStep(id="s1", agent="BrowserAgent", task="Find the price", site="https://shop.test",
                     permissions=[PermissionLevel.READ_ONLY])])
    window.research.panel.show_plan(plan)
    window.take_over.show_request(HandOverRequested(id="h1", reason="sign in to Example Mail"))
    offers = OffersPanel(window.ctx, [ProviderOffer(
        ProviderConfig(name="Ollama", kind=ProviderKind.OLLAMA, base_url="http://127.0.0.1:11434/v1", model="qwen3"),
        "Ollama on this computer: qwen3 and 2 more")], window.chat)
    window.chat.insert_above_input(offers)
    window.order_focus_chain()
    for panel in (window.permission_panel, window.presenter.plans, window.research.panel, window.take_over, offers):
        qtbot.waitUntil(panel.isVisible, timeout=3000)
    _assert_accessible(window)
    # A research plan in each of its states beside a permission request: Alt+S allows on the
    # site, whatever the research panel shows (its Stop was Alt+S too, its Cancel the Chat menu's Alt+C).
    for status in (PlanStatus.DRAFT, PlanStatus.RUNNING, PlanStatus.COMPLETED):
        plan.status = status
        window.research.panel.show_plan(plan)
        clashes = mnemonic_clashes(window)
        assert not clashes, f"with a {status.value} research plan shown: " + "; ".join(clashes)
    # Every control Tab can reach is in the window's reading order (ui.window.focus_order), panels included.
    chain = {id(w) for w in reading_order(window.main_split)}
    for control in controls(window):
        if control.focusPolicy() & Qt.FocusPolicy.TabFocus and control.window() is window:
            assert id(control) in chain, f"{describe(control)} is outside the Tab order"


def test_the_settings_dialog_with_every_page(window: MainWindow, qtbot: Any) -> None:
    window.open_settings()
    dialog = window._settings_dialog
    assert isinstance(dialog, SettingsDialog)
    qtbot.waitExposed(dialog)
    titles = [dialog.pages.item(row).text() for row in range(dialog.pages.count())]
    assert {"Providers", "Appearance", "Network", "Agent", "Site permissions", "Voice"} <= set(titles)
    for title in titles:
        dialog.show_page(title)
        assert dialog.current_page().isVisible()
        _assert_accessible(dialog.current_page())
    _assert_accessible(dialog)
    dialog.close()


def test_the_quick_ask_window(qtbot: Any) -> None:
    box = QuickAskWindow()
    qtbot.addWidget(box)
    box.open()
    box.refuse("Jawad is still answering: ask again when it is done.")
    _assert_accessible(box)


def test_the_checker_finds_an_unnamed_control_and_a_stray_ampersand(qtbot: Any) -> None:
    """The walk itself: what it must catch, and what it must let through."""
    page = QWidget()
    qtbot.addWidget(page)
    form = QFormLayout(page)
    named_by_buddy = QLineEdit(page)
    form.addRow("&Model", named_by_buddy)
    icon_only = QToolButton(page)
    icon_only.setText("✕")
    form.addRow(QPushButton("&Send", page))
    form.addRow(QLabel("Fish &&chips", page))
    assert unnamed_controls(page) == [unnamed_controls(page)[0]] and "QToolButton" in unnamed_controls(page)[0]
    icon_only.setAccessibleName("Close")
    assert unnamed_controls(page) == []
    bare = QLineEdit(page)
    form.addRow(bare)
    assert len(unnamed_controls(page)) == 1
    bare.setAccessibleName("Search")
    assert stray_ampersands(page) == []
    form.addRow(QLabel("API &key", page))
    form.addRow(QLabel("<b>Q&A</b>", page))
    assert len(stray_ampersands(page)) == 2
    table = QTableWidget(2, 2, page)
    table.setAccessibleName("Grants")
    form.addRow(table)
    assert len(tab_traps(page)) == 1
    table.setTabKeyNavigation(False)
    assert tab_traps(page) == []


def test_the_checker_finds_two_shown_things_with_one_alt_letter(qtbot: Any) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.menuBar().addMenu("&Chat")
    body = QWidget(window)
    window.setCentralWidget(body)
    cancel = QPushButton("&Cancel", body)
    window.show()
    assert mnemonic_clashes(window) == ["Alt+C is '&Chat' and '&Cancel'"]
    cancel.hide()
    assert mnemonic_clashes(window) == []
    cancel.setText("Ca&ncel")
    cancel.show()
    assert mnemonic_clashes(window) == []
