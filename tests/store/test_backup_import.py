"""A whole profile in one file and back (issue 34): backed up with `jawad backup`, restored into a
fresh profile with `jawad restore` and compared field by field; ChatGPT's and Claude's exports
imported in their published formats."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.harbor.grants import GrantStore
from jawad_desktop.core.harbor.policy import Grant
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.store.importers import import_export
from jawad_desktop.core.store.memory import MemoryStore
from jawad_desktop.core.tools.files.library import DocumentLibrary
from tests.test_cli import jawad


def _profile(root: Path, docs: Path) -> None:
    ctx = AppContext.open(str(root))
    ctx.settings.providers = [ProviderConfig(name="Work", kind=ProviderKind.OPENAI, model="gpt-4o")]
    ctx.settings.active_provider = "Work"
    ctx.settings.ui.theme = "dark"
    ctx.settings.memory.budget_chars = 900
    ctx.save_settings()
    GrantStore.in_folder(ctx.paths.config).save([Grant(site="shop.example", tool="click_element",
                                                       level="interact", granted_at=1717000000000)])
    with ConversationStore.open(ctx.paths.data) as store:
        cid = store.create("Kettles").id
        store.append_message(cid, Message("user", "Which kettle?"),
                             metadata={"files": [{"name": "notes.txt", "kind": "text", "parts": [[1, "", "x"]]}]})
        store.append_message(cid, Message("assistant", "The Acme one."), metadata={"usage": {"input_tokens": 9}})
        MemoryStore(store.db).add("I prefer stainless steel")
    library = DocumentLibrary.open(ctx.paths.config, ctx.paths.data)
    library.add(docs)


def _snapshot(root: Path) -> dict[str, object]:
    ctx = AppContext.open(str(root))
    with ConversationStore.open(ctx.paths.data) as store:
        conversations = [(c.title, [(s.message.role, s.message.content, s.metadata) for s in store.messages(c.id)])
                         for c in store.list_conversations()]
        facts = [m.text for m in MemoryStore(store.db).facts()]
    return {
        "settings": ctx.settings.model_dump(),
        "grants": GrantStore.in_folder(ctx.paths.config).load(),
        "conversations": conversations,
        "memory": facts,
        "library": json.loads((ctx.paths.config / "library.json").read_text()),
    }


def test_a_profile_backed_up_and_restored_into_a_fresh_one_is_the_same(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("hello")
    first, second = tmp_path / "first", tmp_path / "second"
    _profile(first, docs)
    backup = tmp_path / "backup.zip"
    made = jawad("backup", str(backup), "--profile", str(first))
    assert made.returncode == 0, made.stderr
    assert "1 conversation" in made.stderr and "API keys" in made.stderr
    manifest = json.loads(zipfile.ZipFile(backup).read("manifest.json"))
    assert manifest["format"] == "jawad-desktop-backup" and any("API keys" in x for x in manifest["left_out"])
    restored = jawad("restore", str(backup), "--profile", str(second))
    assert restored.returncode == 0, restored.stderr
    assert _snapshot(second) == _snapshot(first)
    # Again, onto a profile that has data now: refused without --replace, moved aside with it.
    again = jawad("restore", str(backup), "--profile", str(second))
    assert again.returncode == 1 and "--replace" in again.stderr and "Traceback" not in again.stderr
    replaced = jawad("restore", str(backup), "--replace", "--profile", str(second))
    assert replaced.returncode == 0, replaced.stderr
    assert list(second.glob("replaced-*/config/settings.json")) and _snapshot(second) == _snapshot(first)


def test_a_damaged_or_foreign_file_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    foreign = tmp_path / "photos.zip"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("../../evil.txt", "x")
        archive.writestr("manifest.json", "{}")
    result = jawad("restore", str(foreign), "--profile", str(tmp_path / "p"))
    assert result.returncode == 1 and "not a Jawad backup" in result.stderr
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "p" / "config" / "settings.json").exists()
    missing = jawad("restore", str(tmp_path / "none.zip"), "--profile", str(tmp_path / "p"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr


# ChatGPT's export, as its conversations.json is published: a tree of nodes, the shown branch ending
# at current_node (here after an edit left an older branch), a hidden system message, a picture part.
CHATGPT = [{
    "title": "Packing for Lisbon", "create_time": 1717000000.5, "update_time": 1717000300.0,
    "conversation_id": "6650c1a2-0000-4000-8000-000000000001", "current_node": "a2",
    "mapping": {
        "root": {"id": "root", "message": None, "parent": None, "children": ["sys"]},
        "sys": {"id": "sys", "parent": "root", "children": ["u1"], "message": {
            "id": "sys", "author": {"role": "system", "name": None, "metadata": {}}, "create_time": None,
            "content": {"content_type": "text", "parts": [""]},
            "metadata": {"is_visually_hidden_from_conversation": True}}},
        "u1": {"id": "u1", "parent": "sys", "children": ["a1"], "message": {
            "id": "u1", "author": {"role": "user"}, "create_time": 1717000010.0,
            "content": {"content_type": "multimodal_text", "parts": [
                {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-abc"},
                "What should I pack for Lisbon in May?"]}}},
        "a1": {"id": "a1", "parent": "u1", "children": ["u2", "u2b"], "message": {
            "id": "a1", "author": {"role": "assistant"}, "create_time": 1717000020.0,
            "content": {"content_type": "text", "parts": ["Light layers and comfortable shoes."]}}},
        "u2b": {"id": "u2b", "parent": "a1", "children": [], "message": {
            "id": "u2b", "author": {"role": "user"}, "create_time": 1717000030.0,
            "content": {"content_type": "text", "parts": ["An older wording, edited away"]}}},
        "u2": {"id": "u2", "parent": "a1", "children": ["t1"], "message": {
            "id": "u2", "author": {"role": "user"}, "create_time": 1717000040.0,
            "content": {"content_type": "text", "parts": ["And the weather?"]}}},
        "t1": {"id": "t1", "parent": "u2", "children": ["a2"], "message": {
            "id": "t1", "author": {"role": "tool", "name": "browser"}, "create_time": 1717000045.0,
            "content": {"content_type": "tether_quote", "text": "Lisbon May: 22 C"}}},
        "a2": {"id": "a2", "parent": "t1", "children": [], "message": {
            "id": "a2", "author": {"role": "assistant"}, "create_time": 1717000050.0,
            "content": {"content_type": "code", "language": "unknown", "text": "Mild, about 22 C by day."}}},
    },
}]
# Claude's export: conversations with their chat_messages, content blocks and ISO times.
CLAUDE = [{
    "uuid": "0f1e2d3c-0000-4000-8000-000000000002", "name": "Sourdough starter",
    "created_at": "2024-03-02T09:15:00.000000Z", "updated_at": "2024-03-02T09:20:00.000000Z",
    "chat_messages": [
        {"uuid": "m1", "sender": "human", "text": "How often do I feed it?", "created_at": "2024-03-02T09:15:00Z",
         "content": [{"type": "text", "text": "How often do I feed it?"}], "attachments": [], "files": []},
        {"uuid": "m2", "sender": "assistant", "text": "Once a day at room temperature.",
         "created_at": "2024-03-02T09:16:00Z",
         "content": [{"type": "text", "text": "Once a day at room temperature."},
                     {"type": "tool_use", "name": "web_search", "input": {}}], "attachments": [], "files": []},
    ],
}]


def test_chatgpt_and_claude_exports_are_imported_once(tmp_path: Path) -> None:
    (tmp_path / "chatgpt").mkdir()
    (tmp_path / "chatgpt" / "conversations.json").write_text(json.dumps(CHATGPT))
    with zipfile.ZipFile(tmp_path / "claude-export.zip", "w") as archive:
        archive.writestr("data-2024/conversations.json", json.dumps(CLAUDE))
    db = Database.in_folder(tmp_path / "data")
    store = ConversationStore(db)
    report = import_export(store, "chatgpt", tmp_path / "chatgpt" / "conversations.json")
    assert report.conversations == 1 and report.messages == 4
    assert report.left_out == {"system messages": 1, "pictures and files": 1, "tool messages": 1}
    (conv,) = store.list_conversations()
    assert conv.title == "Packing for Lisbon" and conv.created_at == 1717000000500
    assert [(m.role, m.content) for m in store.history(conv.id)] == [
        ("user", "What should I pack for Lisbon in May?"), ("assistant", "Light layers and comfortable shoes."),
        ("user", "And the weather?"), ("assistant", "Mild, about 22 C by day.")]
    again = import_export(store, "chatgpt", tmp_path / "chatgpt" / "conversations.json")
    assert again.conversations == 0 and again.already_there == 1
    claude = import_export(store, "claude", tmp_path / "claude-export.zip")
    assert claude.conversations == 1 and claude.left_out == {"tool_use blocks": 1}
    sourdough = next(c for c in store.list_conversations() if c.title == "Sourdough starter")
    assert [m.content for m in store.history(sourdough.id)] == ["How often do I feed it?",
                                                                 "Once a day at room temperature."]
    db.close()
    # From the command line, with what went wrong said plainly.
    done = jawad("import", "claude", str(tmp_path / "claude-export.zip"), "--profile", str(tmp_path / "p"))
    assert done.returncode == 0 and "Imported 1 conversation (2 messages)" in done.stderr
    wrong = jawad("import", "chatgpt", str(tmp_path / "claude-export.zip"), "--profile", str(tmp_path / "p"))
    assert wrong.returncode == 0 and "left out: 1 damaged conversations" in wrong.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    bad = jawad("import", "chatgpt", str(broken), "--profile", str(tmp_path / "p"))
    assert bad.returncode == 1 and "could not be read as an export" in bad.stderr and "Traceback" not in bad.stderr
