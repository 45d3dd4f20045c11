"""The chat column as a user meets it (issue 19): the empty chat guides and goes once a message
is sent (the welcome note no longer stays above every exchange), the column keeps its width
when a panel opens above the input or the take-over banner above the page, the action log is a
drawer closed to one line (not a fixed third of the column) whose open height is remembered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import ActionLogEntry, HandOverRequested, PermissionRequest, PlanProposed, now_ms
from jawad_desktop.core.research.plan import AGENTS, ResearchPlan, ResearchStep
from jawad_desktop.ui.chat.action_log import describe
from jawad_desktop.ui.chat.empty_state import EXAMPLE_PROMPTS
from jawad_desktop.ui.window.main_window import FIRST_START, MainWindow
from tests.servers.scripted_model import ScriptedModel, text


def _with_provider(profile_dir: Path, scripted_model: ScriptedModel) -> None:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    ctx.save_settings()


def test_the_empty_chat_goes_with_the_first_message_and_comes_back_on_new_chat(
    make_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    _with_provider(profile_dir, scripted_model)
    window: MainWindow = make_window(profile_dir)
    chat = window.chat
    empty = chat.empty_state
    # A provider is set: the empty chat offers example requests, not the set-up note.
    assert empty.isVisible() and not empty.settings_button.isVisible()
    assert FIRST_START not in empty.text.text()
    assert all(b.isVisible() for b in empty.prompt_buttons)
    # A click on an example puts it in the composer, to edit or send.
    window.main_split.setSizes([200, 260, 540])  # a narrow column: the examples are shortened with "…"
    qtbot.waitUntil(lambda: any(b.text().endswith("…") for b in empty.prompt_buttons), timeout=3000)
    example = next(b for b in empty.prompt_buttons if b.text().endswith("…"))
    qtbot.mouseClick(example, Qt.MouseButton.LeftButton)
    assert chat.input.toPlainText() == EXAMPLE_PROMPTS[empty.prompt_buttons.index(example)], "the whole request"
    assert chat.input.hasFocus()

    scripted_model.script(text("Tram 28 climbs to Alfama."))
    chat.input.setPlainText("Which tram goes to Alfama?")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy and scripted_model.remaining == 0, timeout=60_000)
    assert not empty.isVisible() and chat.view.isVisible()
    roles = [i.role for i in chat.view.chat_model.items()]
    assert roles == ["user", "assistant"], "nothing (no welcome note) stays above the exchange"

    window.new_chat_action.trigger()
    qtbot.waitUntil(empty.isVisible, timeout=3000)
    assert chat.view.chat_model.items() == [] and all(b.isVisible() for b in empty.prompt_buttons)


def test_the_empty_chat_without_a_provider_leads_to_the_providers_page(
    make_window: Any, profile_dir: Path, qtbot: Any
) -> None:
    window: MainWindow = make_window(profile_dir)
    empty = window.chat.empty_state
    assert empty.isVisible() and empty.settings_button.isVisible()
    assert "Settings → Providers" in empty.text.text()
    qtbot.mouseClick(empty.settings_button, Qt.MouseButton.LeftButton)
    dialog = window._settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.pages.currentItem().text() == "Providers"
    dialog.close()


def _permission() -> PermissionRequest:
    return PermissionRequest(
        id="p1", tool_name="click_element", parameters={"index": 7, "text": "Add to cart and check out now"},
        site="a-rather-long-shop-name.example", permission_level="interact",
        reason="The agent wants to press the button that puts the product in the cart", timestamp=now_ms(),
        critical=True, from_page_content=True, data_flow="It would send 'A-1' (read on a.example) to b.example",
    )


def _plan() -> PlanProposed:
    return PlanProposed(
        id="plan1", run_id="r1", request="Compare three laptops and put the cheapest in the cart",
        sites=("shop.example", "reviews.example", "another-shop-with-a-long-name.example"),
        actions=("read: the product pages", "interact: the cart button"),
        steps=("Search each shop for laptops under 600 euros", "Read the reviews", "Add the cheapest to the cart"),
        timestamp=now_ms(),
    )


def test_the_chat_column_keeps_its_width_when_a_panel_or_the_banner_shows(
    make_window: Any, profile_dir: Path, qtbot: Any
) -> None:
    window: MainWindow = make_window(profile_dir)
    window.resize(1000, 700)
    window.main_split.setSizes([200, 330, 470] if window.main_split.count() == 3 else [400, 600])
    qtbot.wait(100)

    def widths() -> tuple[int, list[int]]:
        return window.chat.width(), list(window.main_split.sizes())

    before = widths()
    shows = [
        ("permission panel", lambda: window.permission_panel.show_request(_permission()),
         window.permission_panel, lambda: window.permission_panel.decide("deny")),
        ("plan panel", lambda: window.presenter.plans.show_plan(_plan()), window.presenter.plans,
         lambda: window.presenter.plans.answer(False)),
        ("take-over banner", lambda: window.take_over.show_request(
            HandOverRequested(id="h1", reason="Sign in with your password, then press Continue",
                              url="https://a-rather-long-shop-name.example/account/sign-in")),
         window.take_over, lambda: window.take_over.answer(False)),
    ]
    research = window.research
    assert research is not None
    plan = ResearchPlan(intent="Compare the three cheapest laptops", steps=[
        ResearchStep(id="s1", agent=next(iter(AGENTS)), task="Find laptops under 600 euros on the first shop",
                     site="https://a-rather-long-shop-name.example/laptops")])
    shows.append(("research plan", lambda: research.panel.show_plan(plan), research.panel, research.panel.hide))
    for name, show, widget, close in shows:
        show()
        qtbot.waitUntil(widget.isVisible, timeout=3000)
        qtbot.wait(50)
        assert widths() == before, f"the chat column moved when the {name} showed"
        close()
        qtbot.waitUntil(lambda w=widget: not w.isVisible(), timeout=3000)
        qtbot.wait(50)
        assert widths() == before, f"the chat column moved when the {name} closed"


def _entry(n: int, tool: str, result: str = "success", site: str = "shop.test", **params: Any) -> ActionLogEntry:
    return ActionLogEntry(id=f"a{n}", timestamp=now_ms(), tool_name=tool, parameters=params, site=site,
                          permission_level="interact", decision="denied" if result == "denied" else "allowed",
                          result=result)


def test_the_action_log_is_a_drawer_closed_to_one_line(make_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window: MainWindow = make_window(profile_dir)
    drawer = window.action_log_drawer
    column = sum(window.left_split.sizes())
    # Closed: the drawer is its header line; the chat has the column (it took a fixed third).
    assert not drawer.is_expanded() and not window.action_log.isVisible()
    assert drawer.height() <= drawer.collapsed_height() + 2 < column / 10
    assert window.chat.height() >= column - drawer.collapsed_height() - 10

    model = drawer.log_model
    model.upsert(_entry(1, "navigate", url="https://shop.test/"))
    model.upsert(_entry(2, "click_element", result="denied", text="Buy now"))
    model.upsert(_entry(3, "click_element", site="other.test", text="Add to cart"))
    assert drawer.header.text() == "3 actions · 1 failed or denied · last: clicked 'Add to cart'"

    qtbot.mouseClick(drawer.header, Qt.MouseButton.LeftButton)  # a click opens it
    qtbot.waitUntil(window.action_log.isVisible, timeout=3000)
    assert window.toggle_log_action.isChecked()
    assert drawer.height() > 3 * drawer.collapsed_height()
    view = window.action_log
    assert view.model().rowCount() == 3

    def shown() -> list[str]:
        return [view.model().index(r, 1).data() + "@" + view.model().index(r, 2).data()
                for r in range(view.model().rowCount())]

    drawer.show_only("problems:")
    assert shown() == ["click_element@shop.test"]
    drawer.show_only("tool:navigate")
    assert shown() == ["navigate@shop.test"]
    drawer.show_only("site:other.test")
    assert shown() == ["click_element@other.test"]
    choices = [drawer.filter.itemText(i) for i in range(drawer.filter.count())]
    assert choices == ["All actions", "Errors and denials", "Tool: click_element", "Tool: navigate",
                       "Site: other.test", "Site: shop.test"]
    model.upsert(_entry(4, "read_page", site="other.test"))  # a new row keeps the chosen filter
    assert shown() == ["click_element@other.test", "read_page@other.test"]
    drawer.show_only("all:")
    assert len(shown()) == 4

    # Ctrl+Shift+A (View → Action log) closes it again, and the chat gets the room back.
    window.toggle_log_action.trigger()
    qtbot.waitUntil(lambda: not window.action_log.isVisible(), timeout=3000)
    qtbot.waitUntil(lambda: drawer.height() <= drawer.collapsed_height() + 2, timeout=3000)


def test_the_drawer_keeps_its_open_height_across_closing_and_restarts(
    make_window: Any, profile_dir: Path, qtbot: Any
) -> None:
    window: MainWindow = make_window(profile_dir)
    drawer = window.action_log_drawer
    drawer.set_expanded(True)
    total = sum(window.left_split.sizes())
    window.left_split.setSizes([total - 230, 230])
    window.left_split.splitterMoved.emit(total - 230, 1)  # what a drag of the handle emits
    drawer.set_expanded(False)
    drawer.set_expanded(True)
    assert abs(window.left_split.sizes()[1] - 230) <= 2, "reopened at the height it had"
    drawer.set_expanded(False)
    window.close()
    assert window.ctx.settings.ui.splitter_sizes["action_log"] == [0]
    window.dispose()
    again: MainWindow = make_window(profile_dir)
    drawer = again.action_log_drawer
    assert not drawer.is_expanded(), "closed when it was closed"
    drawer.set_expanded(True)
    assert abs(again.left_split.sizes()[1] - 230) <= 2


def test_the_drawer_header_says_what_was_done_in_words() -> None:
    assert describe(_entry(1, "navigate", url="https://shop.test/cart")) == "opened shop.test"
    assert describe(_entry(2, "click_element", text="Add to cart")) == "clicked 'Add to cart'"
    assert describe(_entry(3, "type_text", result="error", text="x" * 50)) == f"typed '{'x' * 40}…' (error)"
    assert describe(_entry(4, "scroll_page", result="denied")) == "scrolled (denied)"
    assert describe(_entry(5, "some_mcp_tool")) == "some mcp tool"
