"""Projects (issue 34, point 2): conversations, files, instructions, a default model and memory grouped per
piece of work. A chat in a project starts in it, gets its instructions and its facts (never another
project's), searches only its files; a conversation opened again continues in its project; removing a
project keeps or deletes its conversations; the export holds the project, its facts and conversations."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.projects import ProjectStore, group_by_project
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tools.files.library import DocumentLibrary
from tests.fixtures.scripted_client import Scripted, ScriptedClient


def test_projects_are_named_once_and_checked(profile_dir: Path) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    store = ConversationStore.open(ctx.paths.data)
    try:
        projects = ProjectStore(store.db)
        kitchen = projects.add("  Kitchen   redo ", instructions="Budget is 8,000 EUR.", folders=[str(profile_dir)])
        assert kitchen.name == "Kitchen redo" and kitchen.folders == (str(profile_dir.resolve()),)
        with pytest.raises(JawadError, match="already a project called"):
            projects.add("kitchen REDO")
        with pytest.raises(JawadError, match="is not a folder"):
            projects.add("Garden", folders=[str(profile_dir / "nowhere")])
        with pytest.raises(JawadError, match="needs a name"):
            projects.add("   ")
        assert projects.find("KITCHEN redo").id == kitchen.id
        renamed = projects.update(kitchen.id, name="Kitchen", model="gpt-4o")
        assert (renamed.name, renamed.model, renamed.instructions) == ("Kitchen", "gpt-4o", "Budget is 8,000 EUR.")
        with pytest.raises(JawadError, match="no project called Garage"):
            projects.find("Garage")
    finally:
        store.close()


def test_a_chat_in_a_project_gets_its_instructions_facts_and_files_only(profile_dir: Path, tmp_path: Path,
                                                                       arun: Callable[..., Any]) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    client = ScriptedClient().script(Scripted(text="Noted."), Scripted(text="Oak it is."), Scripted(text="Hello."),
                                     Scripted(text="Still oak."))
    assistant = Assistant(ctx, client=client)
    try:
        assert assistant.store is not None and assistant.memory is not None
        projects = ProjectStore(assistant.store.db)
        kitchen = projects.add("Kitchen", instructions="Budget is 8,000 EUR.")
        projects.add("Garden")
        assistant.memory.add("I live in Lisbon")  # everywhere
        assistant.set_project("kitchen")
        arun(assistant.send("Remember that the worktop is oak."))
        arun(assistant.send("Which worktop did I choose?"))
        system = client.sent[0].messages[0].content
        assert "PROJECT \"Kitchen\"" in system and "Budget is 8,000 EUR." in system
        assert "the worktop is oak" in system and "I live in Lisbon" in system
        in_kitchen = assistant.conversation_id
        assert in_kitchen is not None and projects.conversation_ids(kitchen.id) == [in_kitchen]

        assistant.new_chat()
        assistant.set_project("Garden")
        arun(assistant.send("Hi"))
        system = client.sent[1].messages[0].content
        assert "PROJECT \"Garden\"" in system and "oak" not in system and "I live in Lisbon" in system

        assistant.open_conversation(in_kitchen)  # continued in its own project
        assert assistant.project is not None and assistant.project.name == "Kitchen"
        arun(assistant.send("And the worktop?"))
        assert "the worktop is oak" in client.sent[2].messages[0].content
    finally:
        arun(assistant.aclose())


def test_search_in_a_project_reads_only_its_folders(tmp_path: Path, arun: Callable[..., Any]) -> None:
    ours, theirs = tmp_path / "kitchen", tmp_path / "garden"
    ours.mkdir()
    theirs.mkdir()
    (ours / "quote.md").write_text("The oak worktop quote is 1,200 EUR.\n")
    (theirs / "plan.md").write_text("The oak tree needs pruning in March.\n")

    async def main() -> None:
        library = DocumentLibrary.open(tmp_path / "config", tmp_path / "data")
        try:
            library.add(ours)
            library.add(theirs)
            await library.reindex()
            assert {Path(h.path).name for h in await library.search("oak", 5)} == {"quote.md", "plan.md"}
            within = await library.search("oak", 5, within=(str(ours),))
            assert [Path(h.path).name for h in within] == ["quote.md"]
        finally:
            await library.aclose()

    arun(main())


def test_removing_a_project_keeps_or_deletes_its_chats_and_the_export_holds_it_all(
        profile_dir: Path, tmp_path: Path, arun: Callable[..., Any]) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore())
    client = ScriptedClient().script(Scripted(text="Oak."), Scripted(text="Roses."))
    assistant = Assistant(ctx, client=client, project=None)
    try:
        assert assistant.store is not None
        projects = ProjectStore(assistant.store.db)
        kitchen = projects.add("Kitchen", instructions="Keep it short.")
        garden = projects.add("Garden")
        assistant.set_project(kitchen.id)
        arun(assistant.send("Remember that the sink is white."))
        arun(assistant.send("Worktop?"))
        kitchen_chat = assistant.conversation_id
        assert kitchen_chat is not None
        written = projects.export(kitchen.id, tmp_path / "kitchen.json")
        data = json.loads(written.read_text())
        assert data["format"] == "jawad-project" and data["project"]["instructions"] == "Keep it short."
        assert data["memory"] == ["the sink is white"]
        assert [c["messages"][-1]["content"] for c in data["conversations"]] == ["Oak."]
        assert projects.remove(kitchen.id) == 1
        summary = assistant.store.get(kitchen_chat)
        assert summary.project_id is None and summary.deleted_at is None  # kept, in no project
        assert assistant.memory is not None and "the sink is white" not in [m.text for m in assistant.memory.facts()]

        assistant.new_chat()
        assistant.set_project("Garden")
        arun(assistant.send("Flowers?"))
        garden_chat = assistant.conversation_id
        assert garden_chat is not None
        assert projects.remove(garden.id, conversations="delete") == 1
        assert assistant.store.get(garden_chat, include_deleted=True).deleted_at is not None
    finally:
        arun(assistant.aclose())


def test_the_history_lists_one_projects_conversations(profile_dir: Path) -> None:
    store = ConversationStore.open(AppContext.open(str(profile_dir), secrets=SecretStore()).paths.data)
    try:
        kitchen = ProjectStore(store.db).add("Kitchen")
        loose = store.create("Loose")
        worktop = store.create("Worktop", project_id=kitchen.id)
        assert [c.id for c in store.list_conversations(project_id=kitchen.id)] == [worktop.id]
        assert [c.id for c in store.list_conversations(project_id="")] == [loose.id]
        assert {c.id for c in store.list_conversations()} == {loose.id, worktop.id}
        store.move_to_project(loose.id, kitchen.id)
        assert store.list_conversations(project_id="") == []
    finally:
        store.close()


def test_the_history_groups_conversations_under_their_projects(profile_dir: Path) -> None:
    store = ConversationStore.open(AppContext.open(str(profile_dir), secrets=SecretStore()).paths.data)
    try:
        projects = ProjectStore(store.db)
        kitchen, garden = projects.add("Kitchen"), projects.add("Garden")
        oldest = store.create("Sink", project_id=kitchen.id)
        loose = store.create("Loose")
        roses = store.create("Roses", project_id=garden.id)
        worktop = store.create("Worktop", project_id=kitchen.id)
        listed = store.list_conversations()
        assert [c.id for c in listed] == [worktop.id, roses.id, loose.id, oldest.id]
        groups = projects_of(store, listed)
        # Each group where its newest conversation came; a group keeps its conversations' order.
        assert groups == [("Kitchen", [worktop.id, oldest.id]), ("Garden", [roses.id]), (None, [loose.id])]
        projects.remove(garden.id)  # its chat stays, in no project: with the others there
        assert projects_of(store, store.list_conversations()) == [("Kitchen", [worktop.id, oldest.id]),
                                                                  (None, [roses.id, loose.id])]
    finally:
        store.close()


def projects_of(store: ConversationStore, listed: list[Any]) -> list[tuple[str | None, list[str]]]:
    """The groups as (project name or None, conversation ids)."""
    return [(project.name if project else None, [c.id for c in items])
            for project, items in group_by_project(listed, lambda c: c.project_id, ProjectStore(store.db).projects())]
