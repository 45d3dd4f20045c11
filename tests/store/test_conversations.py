"""The conversation store: saving, titles, listing, paging, truncating, deleting with undo."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import ActionLogEntry, ConversationsChanged, Event, EventBus
from jawad_desktop.core.messages import Message, ToolCall
from jawad_desktop.core.store.conversation_records import title_from_text
from jawad_desktop.core.store.conversations import ConversationStore


def _tick() -> None:
    time.sleep(0.003)  # timestamps are milliseconds: keep "newer" strictly newer


def test_messages_round_trip_with_tool_calls_results_and_metadata(store: ConversationStore) -> None:
    cid = store.create().id
    sent = [
        Message("system", "You are Jawad."),
        Message("user", "Find cheaper hoodies"),
        Message("assistant", "", tool_calls=[
            ToolCall("call_1", "search_web", {"query": "cheap hoodies", "max": 10}),
            ToolCall("call_2", "read_page", '{"broken json'),
        ]),
        Message("tool", '{"results": ["a", "b"]}', tool_call_id="call_1", name="search_web"),
        Message("assistant", "I found **two**."),
    ]
    for m in sent:
        store.append_message(cid, m, metadata={"model": "smollm2"} if m.role == "assistant" else None)
    got = store.messages(cid)
    assert [s.message for s in got] == sent
    assert [s.position for s in got] == [0, 1, 2, 3, 4]
    assert got[2].message.tool_calls[1].arguments == '{"broken json'  # raw text kept for repair
    assert got[4].metadata == {"model": "smollm2"}
    assert store.history(cid) == sent
    assert store.get(cid).message_count == 5
    # The wire shape the agent sends back to a provider is unchanged by the round trip.
    assert [m.to_wire() for m in store.history(cid)] == [m.to_wire() for m in sent]


def test_paging_through_a_long_conversation_by_position(store: ConversationStore) -> None:
    cid = store.create().id
    store.append_messages(cid, [Message("user" if i % 2 == 0 else "assistant", f"m{i}") for i in range(1000)])
    assert store.count_messages(cid) == 1000
    page = store.messages(cid, 400, 450)
    assert [s.message.content for s in page] == [f"m{i}" for i in range(400, 450)]
    assert [s.message.content for s in store.messages(cid, 990)] == [f"m{i}" for i in range(990, 1000)]
    assert store.messages(cid, 1000, 1100) == []
    store.append_message(cid, Message("user", "after the batch"))
    assert store.messages(cid, 1000)[0].position == 1000


def test_truncate_for_regenerate_and_edit(store: ConversationStore) -> None:
    cid = store.create().id
    for text in ["q1", "a1", "q2", "a2"]:
        store.append_message(cid, Message("user" if text[0] == "q" else "assistant", text))
    assert store.truncate(cid, 3) == 1  # regenerate the last answer
    store.append_message(cid, Message("assistant", "a2 again"))
    assert [m.content for m in store.history(cid)] == ["q1", "a1", "q2", "a2 again"]
    assert store.truncate(cid, 2) == 2  # edit and resend the last question
    store.append_message(cid, Message("user", "q2 edited"))
    assert [m.content for m in store.history(cid)] == ["q1", "a1", "q2 edited"]
    assert store.get(cid).message_count == 3
    assert store.search("again") == []


def test_title_comes_from_the_first_exchange_until_renamed(store: ConversationStore) -> None:
    cid = store.create().id
    assert store.get(cid).display_title == "New chat"
    store.append_message(cid, Message("system", "You are Jawad, a helpful assistant."))
    assert store.get(cid).title == ""
    store.append_message(cid, Message("user", "\n  ## Find me a *cheaper* alternative to this hoodie, "
                                      "ideally under fifty dollars with free shipping\nsecond line"))
    title = store.get(cid).title
    assert title.startswith("Find me a cheaper alternative to this hoodie")
    assert title.endswith("…") and len(title) <= 60
    store.append_message(cid, Message("user", "something else entirely"))
    assert store.get(cid).title == title

    store.rename(cid, "  Hoodie   hunt ")
    assert store.get(cid).title == "Hoodie hunt" and store.get(cid).title_is_custom
    store.append_message(cid, Message("assistant", "ok"))
    assert store.get(cid).title == "Hoodie hunt"
    store.rename(cid, "")  # back to the automatic title
    assert store.get(cid).title == title and not store.get(cid).title_is_custom


def test_title_from_an_answer_when_the_question_is_empty_and_keys_are_masked(store: ConversationStore) -> None:
    cid = store.create().id
    store.append_message(cid, Message("user", ""))
    store.append_message(cid, Message("assistant", "Here is the summary of the page."))
    assert store.get(cid).title == "Here is the summary of the page."
    assert "abcdefghijklmnop" not in title_from_text("use sk-abcdefghijklmnopqrst please")
    assert title_from_text("") == "" and title_from_text("\n  \n") == ""


def test_listing_is_newest_first_and_follows_activity(store: ConversationStore) -> None:
    a = store.create("A").id
    _tick()
    b = store.create("B").id
    _tick()
    c = store.create("C").id
    assert [s.id for s in store.list_conversations()] == [c, b, a]
    _tick()
    store.append_message(a, Message("user", "bump"))
    assert [s.id for s in store.list_conversations()] == [a, c, b]
    assert [s.id for s in store.list_conversations(limit=2, offset=1)] == [c, b]


def test_delete_undo_and_purge(store: ConversationStore) -> None:
    keep = store.create("keep").id
    gone = store.create("gone").id
    store.append_message(gone, Message("user", "zebra crossing"))
    store.record_action(gone, ActionLogEntry("log_1", 1, "read_page", {}, "x.com", "read", "auto-approved",
                                             "success"))
    store.delete(gone)
    assert [s.id for s in store.list_conversations()] == [keep]
    assert store.search("zebra") == []
    with pytest.raises(JawadError):
        store.get(gone)
    with pytest.raises(JawadError, match="no longer exists"):
        store.append_message(gone, Message("user", "late"))

    assert store.restore(gone) is True  # undo
    assert {s.id for s in store.list_conversations()} == {keep, gone}
    assert [h.conversation_id for h in store.search("zebra")] == [gone]

    store.delete(gone)
    assert store.purge_deleted(older_than_ms=60_000) == 0  # still inside the undo window
    assert store.purge_deleted(gone) == 1
    assert store.restore(gone) is False
    with store.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM messages WHERE conversation_id = ?", (gone,)).fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM action_log").fetchone()[0] == 0
        conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    assert store.search("zebra") == []


def test_reopening_finishes_deletions_older_than_the_undo_window(tmp_path: Path) -> None:
    with ConversationStore.open(tmp_path) as s:
        old = s.create("old").id
        s.delete(old)
    time.sleep(0.01)
    with ConversationStore.open(tmp_path, purge_older_than_ms=5) as s:
        assert s.restore(old) is False


def test_action_log_entries_update_in_place(store: ConversationStore) -> None:
    cid = store.create().id
    pending = ActionLogEntry("log_7", 1000, "click_element", {"selector": "#buy"}, "shop.test", "interact",
                             "pending", "pending")
    store.record_action(cid, pending)
    store.record_action(cid, ActionLogEntry("log_8", 2000, "read_page", {}, "shop.test", "read",
                                            "auto-approved", "success", "3 paragraphs"))
    done = ActionLogEntry("log_7", 1500, "click_element", {"selector": "#buy"}, "shop.test", "interact",
                          "allowed", "success", "clicked", run_id="run_1")
    store.record_action(cid, done)
    assert store.action_log(cid) == [done, store.action_log(cid)[1]]
    assert store.action_log(cid)[1].details == "3 paragraphs"
    with pytest.raises(JawadError, match="no longer exists"):
        store.record_action("missing", ActionLogEntry("log_9", 1, "x", {}, "", "", "", ""))


def test_resolve_id_accepts_unique_prefixes(store: ConversationStore) -> None:
    a = store.create(conversation_id="abc111").id
    store.create(conversation_id="abc222")
    assert store.resolve_id("abc1") == a
    assert store.resolve_id("ABC111") == a
    with pytest.raises(JawadError, match="More than one"):
        store.resolve_id("abc")
    with pytest.raises(JawadError, match="No saved conversation"):
        store.resolve_id("fff")
    with pytest.raises(JawadError, match="not a conversation id"):
        store.resolve_id("a%")


def _listen(bus: EventBus) -> list[tuple[str, str, threading.Thread]]:
    """(kind, conversation id, the thread it was heard on) for every ConversationsChanged."""
    heard: list[tuple[str, str, threading.Thread]] = []

    def on_event(event: Event) -> None:
        if isinstance(event, ConversationsChanged):
            heard.append((event.kind, event.conversation_id, threading.current_thread()))

    bus.subscribe(on_event)
    return heard


def test_every_change_is_announced_on_the_bus(tmp_path: Path) -> None:
    bus = EventBus()
    heard = _listen(bus)
    with ConversationStore.open(tmp_path, bus=bus) as store:
        cid = store.create().id
        store.append_message(cid, Message("user", "hi"))
        store.append_messages(cid, [Message("assistant", "hello"), Message("user", "again")])
        store.truncate(cid, 2)
        store.rename(cid, "Hi")
        store.delete(cid)
        store.restore(cid)
        store.delete(cid)
        store.purge_deleted(cid)
        store.truncate(store.create().id, 0)  # nothing removed: nothing to announce
        store.delete("no-such-id")
    kinds = [kind for kind, _, _ in heard]
    assert kinds == ["created", "updated", "updated", "updated", "renamed", "deleted", "restored",
                     "deleted", "purged", "created"]
    assert {c for _, c, _ in heard[:-1]} == {cid}
    # Synchronous calls announce on the thread that called them (here the test's).
    assert {thread for _, _, thread in heard} == {threading.current_thread()}

    # Another store on the same file announces on its own bus, or on none.
    heard.clear()
    with ConversationStore.open(tmp_path) as other:
        other.create()
    assert heard == []
    # Opening finishes old deletions, and says so.
    later = EventBus()
    heard_later = _listen(later)
    with ConversationStore.open(tmp_path, bus=later) as store:
        doomed = store.create().id
        store.delete(doomed)
    with ConversationStore.open(tmp_path, bus=later, purge_older_than_ms=0):
        pass
    assert [(k, c) for k, c, _ in heard_later][-1] == ("purged", doomed)


def test_async_writes_are_announced_on_the_loop_thread(tmp_path: Path, arun: Callable[..., Any],
                                                       qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bus promises subscribers the loop's thread: a write done on the store's worker
    thread (``*_async``) is announced there, not on the worker."""
    bus = EventBus()
    heard = _listen(bus)
    with ConversationStore.open(tmp_path, bus=bus) as store:
        cid = store.create().id
        written_on: list[str] = []
        original = store.append_message

        def spy(*args: Any, **kwargs: Any) -> Any:
            written_on.append(threading.current_thread().name)
            return original(*args, **kwargs)

        monkeypatch.setattr(store, "append_message", spy)
        arun(store.append_message_async(cid, Message("user", "from the worker")))
        qtbot.waitUntil(lambda: len(heard) == 2, timeout=5000)
        assert written_on[0].startswith("jawad-store")
        assert heard[1][:2] == ("updated", cid)
        assert heard[1][2] is threading.main_thread()  # the qasync loop runs on the GUI thread


def test_an_async_write_is_announced_even_when_its_caller_gave_up(
    tmp_path: Path, aio_loop: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelling the awaiting task does not undo a write the worker commits: it is announced."""
    bus = EventBus()
    heard = _listen(bus)
    with ConversationStore.open(tmp_path, bus=bus) as store:
        cid = store.create().id
        release = threading.Event()
        original = store.append_message

        def slow(*args: Any, **kwargs: Any) -> Any:
            release.wait(5)
            return original(*args, **kwargs)

        monkeypatch.setattr(store, "append_message", slow)
        task = aio_loop.create_task(store.append_message_async(cid, Message("user", "late")))
        qtbot.wait(50)
        task.cancel()
        qtbot.waitUntil(task.done, timeout=5000)
        release.set()
        qtbot.waitUntil(lambda: len(heard) == 2, timeout=5000)
        assert heard[1][:2] == ("updated", cid) and heard[1][2] is threading.main_thread()
        assert store.count_messages(cid) == 1


def test_threads_and_a_second_connection_share_the_file(tmp_path: Path) -> None:
    """Worker threads (async wrappers) and another process (the CLI) use the same file safely."""
    store = ConversationStore.open(tmp_path)
    cid = store.create().id
    errors: list[BaseException] = []

    def writer(tag: str) -> None:
        try:
            for i in range(50):
                store.append_message(cid, Message("user", f"{tag} {i}"))
                store.search(tag)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in ("alpha", "beta", "gamma")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [s.position for s in store.messages(cid)] == list(range(150))
    other = ConversationStore.open(tmp_path)  # a second connection, as the CLI would open
    assert other.count_messages(cid) == 150
    other.append_message(cid, Message("assistant", "from the other connection"))
    assert store.messages(cid, 150)[0].message.content == "from the other connection"
    other.close()
    store.close()


def test_async_wrappers_run_off_the_loop(store: ConversationStore, arun: Callable[..., Any]) -> None:
    cid = store.create().id

    async def scenario() -> tuple[int, int, int, int]:
        await store.append_message_async(cid, Message("user", "async pelican"))
        hits = await store.search_async("pelic")
        matches = await store.search_conversations_async("pelican")
        listed = await store.list_conversations_async()
        page = await store.messages_async(cid, 0, 10)
        return len(hits), len(matches), len(listed), len(page)

    assert arun(scenario()) == (1, 1, 1, 1)


def test_a_locked_database_is_a_friendly_error_and_keeps_nothing_half_done(tmp_path: Path) -> None:
    """The window and a CLI command write the same file: a long writer elsewhere is explained."""
    from jawad_desktop.core.store.database import DB_FILENAME, Database

    with ConversationStore.open(tmp_path) as setup:
        cid = setup.create().id
        setup.append_message(cid, Message("user", "before the lock"))
    store = ConversationStore(Database(tmp_path / DB_FILENAME, busy_timeout_ms=100), owns_db=True)
    other = sqlite3.connect(tmp_path / DB_FILENAME, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(JawadError, match="busy writing") as info:
            store.append_message(cid, Message("user", "while locked"))
        assert "nothing you typed was lost" in info.value.user_text()
        assert [m.content for m in store.history(cid)] == ["before the lock"]  # reads still work
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.append_message(cid, Message("user", "after the lock"))
    assert [m.content for m in store.history(cid)] == ["before the lock", "after the lock"]
    store.close()


def test_a_title_drops_markdown_but_keeps_the_users_own_signs() -> None:
    assert title_from_text("What is 12*34? Use the calculator.") == "What is 12*34? Use the calculator."
    assert title_from_text("rename snake_case to camelCase") == "rename snake_case to camelCase"
    assert title_from_text("## **Bold** and `code` in [the docs](https://example.org/x)") == \
        "Bold and code in the docs"
    assert title_from_text("> quoted *idea* here") == "quoted idea here"
