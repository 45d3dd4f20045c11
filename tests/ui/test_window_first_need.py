"""The idle window has its history, Research, Compare, the Mic and conversation mode without the
assistant (its agent, tools and model client come at their first need: start-up memory, issue 29);
each of them works at its first use, building it then."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.window.main_window import MainWindow
from tests.servers.scripted_model import ScriptedModel, text


@pytest.fixture
def idle_window(qtbot: Any, secret_store: SecretStore, aio_loop: Any) -> Iterator[Callable[[Path], MainWindow]]:
    """The window as a user gets it: shown, its idle parts added, its assistant not built."""
    windows: list[MainWindow] = []

    def make(profile: Path) -> MainWindow:
        window = MainWindow(AppContext.open(str(profile), secrets=secret_store))
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        qtbot.waitUntil(lambda: window.sidebar is not None and window.conversation_button is not None,
                        timeout=30_000)
        return window

    yield make
    for window in windows:
        window.close()
        window.dispose()


def _answering(idle_window: Any, profile: Path, model: ScriptedModel, answers: list[str],
               names: tuple[str, ...] = ("Scripted",)) -> Any:
    """The idle window of ``profile``, its providers ``names`` on the scripted model, which gives ``answers``."""
    ctx = AppContext.open(str(profile))
    ctx.settings.providers = [model.provider(name) for name in names]
    ctx.settings.active_provider = names[0]
    ctx.save_settings()
    model.script(*(text(answer) for answer in answers))
    return idle_window(profile)


def test_the_idle_window_has_every_control_and_no_assistant(idle_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window = idle_window(profile_dir)
    qtbot.wait(300)  # well after the idle parts came
    assert window.presenter.assistant is None
    assert window.sidebar is not None and window.projects is not None
    for action in (window.research_action, window.compare_action, window.voice_action, window.conversation_action):
        assert action.isEnabled(), action.text()
    assert window.voice_button is not None and window.conversation_button is not None
    assert window.projects.current.text() == "New chats start in no project."


def test_the_first_message_builds_the_assistant_and_is_answered_and_saved(
    idle_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    window = _answering(idle_window, profile_dir, scripted_model, ["Lisbon has a famous tram 28."])
    assert window.presenter.assistant is None
    window.chat.input.setPlainText("Tell me about Lisbon trams")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.presenter.assistant is not None and not window.presenter.busy, timeout=60_000)
    texts = [i.text for i in window.chat.view.chat_model.items()]
    assert texts == ["Tell me about Lisbon trams", "Lisbon has a famous tram 28."]
    # Saved in the store the history showed before the assistant existed, and listed there.
    assert window.presenter.assistant is not None and window.presenter.assistant.store is window.presenter.history_store
    qtbot.waitUntil(lambda: window.sidebar.list_view.model().rowCount() > 0, timeout=10_000)  # type: ignore[union-attr]


def _one_saved_conversation(
    idle_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any, question: str, answer: str
) -> str:
    """A first run of the window that asks ``question``, is answered and closes; its conversation's id."""
    first = _answering(idle_window, profile_dir, scripted_model, [answer])
    first.presenter.send(question)
    qtbot.waitUntil(lambda: first.presenter.conversation_id is not None and not first.presenter.busy, timeout=60_000)
    saved: str = first.presenter.conversation_id
    first.close()
    first.dispose()
    return saved


def test_a_conversation_opened_in_the_history_builds_the_assistant(
    idle_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    saved = _one_saved_conversation(idle_window, profile_dir, scripted_model, qtbot, "Tell me about Lisbon trams",
                                    "Lisbon has a famous tram 28.")
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.ui.last_conversation_id = ""  # the app last closed on a new chat
    ctx.save_settings()

    window = idle_window(profile_dir)
    assert window.presenter.assistant is None
    window.sidebar.conversation_selected.emit(saved)  # type: ignore[union-attr]
    assert window.presenter.conversation_id == saved
    texts = [i.text for i in window.chat.view.chat_model.items()]
    assert texts == ["Tell me about Lisbon trams", "Lisbon has a famous tram 28."]


def test_the_last_conversation_is_shown_again_at_start(
    idle_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    saved = _one_saved_conversation(idle_window, profile_dir, scripted_model, qtbot, "Hello", "Hello again.")
    window = idle_window(profile_dir)
    qtbot.waitUntil(lambda: window.presenter.conversation_id == saved, timeout=30_000)
    assert [i.text for i in window.chat.view.chat_model.items()] == ["Hello", "Hello again."]


def test_compare_builds_the_assistant_at_its_first_use(
    idle_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    window = _answering(idle_window, profile_dir, scripted_model, ["Answer one.", "Answer two."], ("Scripted", "Other"))
    window.chat.input.setPlainText("Which is the capital of Portugal?")
    window.compare_models("Other")
    assert window.presenter.assistant is not None and window.side_by_side is not None
    qtbot.waitUntil(lambda: len(scripted_model.requests) == 2, timeout=60_000)


def test_research_builds_the_assistant_at_its_first_use(
    idle_window: Any, profile_dir: Path, scripted_model: ScriptedModel, qtbot: Any
) -> None:
    window = _answering(idle_window, profile_dir, scripted_model,
                        ['{"steps": [{"kind": "search", "query": "trams in Lisbon"}]}'])
    window.chat.input.setPlainText("trams in Lisbon")
    window.research_action.trigger()
    assert window.presenter.assistant is not None and window.research is not None
    qtbot.waitUntil(lambda: bool(scripted_model.requests), timeout=60_000)  # the plan is asked for


def test_choosing_a_project_builds_the_assistant(idle_window: Any, profile_dir: Path, qtbot: Any) -> None:
    window = idle_window(profile_dir)
    assert window.projects is not None and window.presenter.assistant is None
    assert window.projects.add_project("Trip")
    assistant = window.presenter.assistant
    assert assistant is not None and assistant.project is not None and assistant.project.name == "Trip"
    assert window.projects.current.text() == "New chats start in the project Trip."


def test_a_web_page_browsed_builds_the_assistant_which_keeps_it(
    idle_window: Any, profile_dir: Path, page_server: str, qtbot: Any
) -> None:
    window = idle_window(profile_dir)
    assert window.presenter.assistant is None
    window.browser.load(f"{page_server}/shop/jsonld.html")
    qtbot.waitUntil(lambda: window.presenter.assistant is not None, timeout=30_000)
    cache = window.presenter.assistant.cache
    assert cache is not None

    def titles() -> list[str]:
        with cache.db.read() as conn:
            return [row["title"] for row in conn.execute("SELECT title FROM page_cache").fetchall()]

    qtbot.waitUntil(lambda: "Trail Runner 2 – Example Shop" in titles(), timeout=30_000)
