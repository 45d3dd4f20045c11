"""Full-text search: every word, prefixes as typed, highlighted snippets, safe with any input."""

from __future__ import annotations

import time

import pytest

from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.conversation_records import MARK_END, MARK_START
from jawad_desktop.core.store.conversation_search import fts_query
from jawad_desktop.core.store.conversations import ConversationStore


@pytest.fixture
def filled(store: ConversationStore) -> dict[str, str]:
    ids: dict[str, str] = {}
    ids["hoodie"] = store.create().id
    store.append_message(ids["hoodie"], Message("user", "Find me a cheaper alternative to this hoodie"))
    store.append_message(ids["hoodie"], Message("assistant", "I found three cheaper hoodies under $40."))
    time.sleep(0.003)
    ids["cafe"] = store.create().id
    store.append_message(ids["cafe"], Message("user", "Which café near the museum serves <b>brunch</b>?"))
    store.append_message(ids["cafe"], Message("tool", "Café Luna: brunch 9-14", tool_call_id="c", name="search"))
    time.sleep(0.003)
    ids["python"] = store.create("Debugging session").id
    store.append_message(ids["python"], Message("user", "Why does my Python code raise a KeyError?"))
    return ids


def test_every_word_must_match_and_the_last_is_a_prefix(store: ConversationStore, filled: dict[str, str]) -> None:
    assert {h.conversation_id for h in store.search("cheaper")} == {filled["hoodie"]}
    assert len(store.search("cheaper")) == 2
    assert len(store.search("hood")) == 2  # as typed: "hood" finds hoodie and hoodies
    assert [h.position for h in store.search("cheaper hoodies")] == [1]
    assert store.search("cheaper brunch") == []
    assert store.search("") == [] and store.search("  ?! ") == []


def test_snippets_mark_the_matches(store: ConversationStore, filled: dict[str, str]) -> None:
    (hit,) = store.search("alternative")
    assert hit.role == "user" and hit.position == 0
    assert f"{MARK_START}alternative{MARK_END}" in hit.snippet
    assert hit.marked() == "Find me a cheaper [alternative] to this hoodie"
    assert hit.conversation_title == "Find me a cheaper alternative to this hoodie"


def test_html_snippets_escape_the_text(store: ConversationStore, filled: dict[str, str]) -> None:
    hits = store.search("brunch")
    user_hit = next(h for h in hits if h.role == "user")
    assert user_hit.html() == "Which café near the museum serves &lt;b&gt;<b>brunch</b>&lt;/b&gt;?"


def test_accents_and_case_do_not_matter(store: ConversationStore, filled: dict[str, str]) -> None:
    assert len(store.search("CAFE")) == 2
    assert len(store.search("café luna")) == 1
    assert len(store.search("keyerror")) == 1


@pytest.mark.parametrize("typed", ['"', "cheap*er", "NEAR(", "OR", "AND cheaper", "-hoodie", "^", "a:b", "((("])
def test_any_input_is_a_safe_query(store: ConversationStore, filled: dict[str, str], typed: str) -> None:
    store.search(typed)  # never an FTS5 syntax error
    store.search_conversations(typed)


def test_fts_query_quotes_every_word() -> None:
    assert fts_query('cheap "hoodie') == '"cheap" "hoodie"*'
    assert fts_query("OR") == '"OR"*'
    assert fts_query("...") == ""


def test_results_are_newest_first_and_skip_deleted(store: ConversationStore, filled: dict[str, str]) -> None:
    later = store.create().id
    store.append_message(later, Message("user", "Another cheaper option please"))
    assert store.search("cheaper")[0].conversation_id == later
    store.delete(later)
    assert later not in {h.conversation_id for h in store.search("cheaper")}
    assert len(store.search("cheaper", limit=1)) == 1


def test_conversation_search_groups_hits_and_matches_titles(store: ConversationStore,
                                                            filled: dict[str, str]) -> None:
    matches = store.search_conversations("cheaper")
    assert [m.conversation.id for m in matches] == [filled["hoodie"]]
    assert matches[0].hit_count == 2 and matches[0].best is not None
    # A title the user gave is found even when no message says it.
    (debug,) = store.search_conversations("debugg")
    assert debug.conversation.id == filled["python"] and debug.best is None
    assert debug.title_snippet == f"{MARK_START}Debugging{MARK_END} session"
    store.rename(filled["cafe"], "Weekend 100% plans")
    assert [m.conversation.id for m in store.search_conversations("100")] == [filled["cafe"]]
    assert store.search_conversations("_") == []  # LIKE wildcards are escaped


def test_edited_content_leaves_the_index(store: ConversationStore) -> None:
    cid = store.create().id
    store.append_message(cid, Message("user", "walrus"))
    with store.db.transaction() as conn:
        conn.execute("UPDATE messages SET content = 'narwhal' WHERE conversation_id = ?", (cid,))
    assert store.search("walrus") == []
    assert len(store.search("narwhal")) == 1
