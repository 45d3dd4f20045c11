"""Exports: Markdown and JSON with the action log, and no API key or token left in them."""

from __future__ import annotations

import json

import pytest

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import ActionLogEntry
from jawad_desktop.core.logging_setup import redact
from jawad_desktop.core.messages import Message, ToolCall
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.export import (
    export_conversation,
    export_json,
    export_markdown,
    redact_data,
)

SECRETS = [
    "sk-proj-AbCdEfGhIjKlMnOpQrSt123456",
    "sk-or-v1-0123456789abcdef0123",
    "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
    "AIzaSyA1234567890abcdefghijklmnopqr",
    "xoxb-1234567890-abcdefghij",
    "hf_abcdefghijklmnopqrstuvwx",
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "hunter2hunter2",  # only a secret because of the key it is stored under
    "plainvalue99",
]


@pytest.fixture
def conversation(store: ConversationStore) -> str:
    cid = store.create().id
    store.append_message(cid, Message("user", f"My OpenAI key is {SECRETS[0]}, why is it rejected?"))
    store.append_message(cid, Message("assistant", "", tool_calls=[
        ToolCall("call_1", "fill_form", {"fields": {"email": "me@x.test", "password": SECRETS[8]},
                                         "note": f"token={SECRETS[1]}"}),
        ToolCall("call_2", "read_page", f'{{"url": "https://x.test/?q=1", "auth": "Bearer {SECRETS[2]}"}}'),
    ]))
    store.append_message(cid, Message("tool", f"Page says: ```code``` and {SECRETS[3]}", tool_call_id="call_1",
                                      name="fill_form"))
    store.append_message(cid, Message("assistant", f"Done. Slack {SECRETS[4]}, HF {SECRETS[5]}, "
                                      f"AWS {SECRETS[6]}, JWT {SECRETS[7]}. A task-management tool helps."),
                         metadata={"api_key": SECRETS[9], "model": "smollm2"})
    store.record_action(cid, ActionLogEntry("log_1", 1_700_000_000_000, "fill_form",
                                            {"selector": "#login | form", "api_key": SECRETS[9]},
                                            "x.test", "interact", "allowed", "success",
                                            f"Filled 2 fields with Authorization: Bearer {SECRETS[2]}"))
    return cid


def _assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, secret
        assert secret[6:] not in text, secret  # not even the tail of it


def test_json_export_has_everything_and_no_secret(store: ConversationStore, conversation: str) -> None:
    text = export_json(store, conversation)
    _assert_clean(text)
    doc = json.loads(text)
    assert doc["format"] == "jawad-conversation" and doc["version"] == 1
    assert doc["conversation"]["id"] == conversation and doc["conversation"]["message_count"] == 4
    assert [m["role"] for m in doc["messages"]] == ["user", "assistant", "tool", "assistant"]
    call = doc["messages"][1]["tool_calls"][0]
    assert call["name"] == "fill_form"
    assert call["arguments"]["fields"] == {"email": "me@x.test", "password": "[redacted]"}
    assert doc["messages"][2]["tool_call_id"] == "call_1" and doc["messages"][2]["name"] == "fill_form"
    assert doc["messages"][3]["metadata"] == {"api_key": "[redacted]", "model": "smollm2"}
    assert "task-management tool" in doc["messages"][3]["content"]
    (entry,) = doc["action_log"]
    assert entry["tool_name"] == "fill_form" and entry["decision"] == "allowed"
    assert entry["parameters"] == {"selector": "#login | form", "api_key": "[redacted]"}
    assert entry["details"].startswith("Filled 2 fields with")


def test_markdown_export_reads_well_and_has_no_secret(store: ConversationStore, conversation: str) -> None:
    text = export_markdown(store, conversation)
    _assert_clean(text)
    assert text.startswith("# My OpenAI key is sk-p…[redacted], why is it rejected?\n")
    assert "## You · " in text and "## Jawad · " in text and "## Tool result: fill_form · " in text
    assert "**Tool call** `fill_form`" in text and '"email": "me@x.test"' in text
    assert "````\nPage says: ```code```" in text  # a longer fence around inner backticks
    assert "## Action log" in text
    assert "| fill_form | x.test | interact | allowed | success |" in text
    assert "#login \\| form" in text  # pipes escaped in table cells
    assert export_conversation(store, conversation, "md") == text


def test_an_empty_action_log_is_said_so(store: ConversationStore) -> None:
    cid = store.create("Quiet").id
    store.append_message(cid, Message("user", "hello"))
    assert "No tools were used in this conversation." in export_markdown(store, cid)
    assert json.loads(export_json(store, cid))["action_log"] == []


def test_unknown_format_and_conversation_are_user_errors(store: ConversationStore) -> None:
    cid = store.create().id
    with pytest.raises(JawadError, match="Unknown export format"):
        export_conversation(store, cid, "pdf")
    with pytest.raises(JawadError, match="no conversation"):
        export_json(store, "missing")


def test_redaction_leaves_ordinary_prose_alone() -> None:
    prose = ("A task-management app, basic understanding of tokens, the secret of good bread, "
             "an Authorization header, and ask-me-anything sessions.")
    assert redact(prose) == prose
    assert redact_data({"token_count": 12, "title": prose}) == {"token_count": "[redacted]", "title": prose}
    assert redact_data({"password": ""}) == {"password": ""}
