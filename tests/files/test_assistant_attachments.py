"""``Assistant.send(text, attachments)`` in process against the reader model: the one path every face
uses. A failure happens before the turn (no event, nothing saved); the saved conversation keeps what
the user typed; editing gives back the typed words; asking again sends the same files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core import events as ev
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.store.secrets import SecretStore
from tests.files.samples import make_pdf, make_sample, planted
from tests.servers.reader_model import ReaderModel, planted_in
from tests.servers.scripted_model import text


def _assistant(profile: Path, model: ReaderModel, name: str = "scripted") -> Assistant:
    ctx = AppContext.open(str(profile), secrets=SecretStore(session_only=True))
    provider = ProviderConfig(name="reader", kind=ProviderKind.OPENAI_COMPATIBLE, base_url=model.base_url, model=name)
    return Assistant(ctx, client=make_client(provider, network=ctx.settings.network), ask=False)


def test_send_with_files_then_edit_and_ask_again(tmp_path: Path, profile_dir: Path,
                                                reader_model: ReaderModel, arun: Any) -> None:
    sample = make_sample(tmp_path, "docx")

    async def main() -> None:
        assistant = _assistant(profile_dir, reader_model)
        turns: list[ev.TurnStarted] = []
        assistant.bus.subscribe(lambda e: turns.append(e) if isinstance(e, ev.TurnStarted) else None)
        try:
            response = await assistant.send("What is the code?", [sample])
            assert response.content == f"I read: {planted('docx')}." and not response.is_error
            assert [t.user_text for t in turns] == ["What is the code?"]  # shown as typed
            assert assistant.store is not None and assistant.conversation_id
            saved = [s.message for s in assistant.store.messages(assistant.conversation_id)]
            assert [(m.role, m.content) for m in saved] == [("user", "What is the code?"),
                                                             ("assistant", response.content)]
            # A follow-up still has the file in the conversation's history.
            follow = await assistant.send("And again?")
            assert follow.content == f"I read: {planted('docx')}."
            assert planted_in(reader_model.requests[-1]) == [planted("docx")]
            # Ask again: the same file is sent again with the same words.
            reader_model.script()
            again = await assistant.regenerate()
            assert again is not None and again.content == f"I read: {planted('docx')}."
            messages = reader_model.requests[-1]["messages"]
            assert messages[-1]["content"].startswith("And again?")
            # The first question still holds the file's text (the history is cut back from the saved one).
            assert messages[1]["content"].startswith("What is the code?\n\nAttached files: sample.docx")
            assert planted("docx") in messages[1]["content"]
            assert assistant.edit_last() == "And again?"
            assert assistant.edit_last() == "What is the code?"  # the typed words, not the file's text
            # Asking again a question that had a file sends the file again.
            await assistant.send("Which code?", [sample])
            reader_model.script()
            again = await assistant.regenerate()
            assert again is not None and again.content == f"I read: {planted('docx')}."
            (request,) = reader_model.requests
            assert [m["role"] for m in request["messages"]] == ["system", "user"]
            assert request["messages"][1]["content"].startswith("Which code?\n\nAttached files: sample.docx")
        finally:
            await assistant.aclose()

    arun(main(), timeout=120)


def test_a_failure_comes_before_the_turn(tmp_path: Path, profile_dir: Path, reader_model: ReaderModel,
                                         arun: Any) -> None:
    locked = make_pdf(tmp_path / "locked.pdf", ["secret"], password="pw")
    picture = make_sample(tmp_path, "png")

    async def main() -> None:
        assistant = _assistant(profile_dir, reader_model)
        seen: list[ev.Event] = []
        assistant.bus.subscribe(seen.append)
        try:
            for files, said in (([locked], "is protected by a password"), ([picture], "cannot see images")):
                with pytest.raises(JawadError, match=said):
                    await assistant.send("Read this", files)
            assert seen == [] and reader_model.requests == []
            assert len(assistant.session.history) == 0
        finally:
            await assistant.aclose()
        # The same picture to a model that sees images goes as an image part.
        seeing = _assistant(profile_dir, reader_model, "gpt-4o")
        try:
            response = await seeing.send("Read this", [picture])
            assert response.content == f"I read: {planted('png')}."
        finally:
            await seeing.aclose()

    arun(main(), timeout=120)


def test_a_reopened_conversation_keeps_its_files(tmp_path: Path, profile_dir: Path, reader_model: ReaderModel,
                                                 arun: Any) -> None:
    document = make_sample(tmp_path, "docx")
    picture = make_sample(tmp_path, "png")

    async def main() -> None:
        first = _assistant(profile_dir, reader_model, "gpt-4o")  # a model that sees images
        reader_model.script(text("Noted."))  # an answer that repeats nothing of the files
        try:
            response = await first.send("What are the codes?", [document, picture])
            assert response.content == "Noted."
            assert planted_in(reader_model.requests[-1]) == [planted("docx"), planted("png")]
            conversation = first.conversation_id
            assert conversation
        finally:
            await first.aclose()
        document.unlink()  # the files may be gone: what the model saw was kept with the conversation
        picture.unlink()

        # Another start of the app on the same profile opens it again from the history.
        again = _assistant(profile_dir, reader_model, "gpt-4o")
        try:
            opened = again.open_conversation(conversation)
            assert [m.content for m in opened.messages] == ["What are the codes?", response.content]  # as typed
            follow = await again.send("And the codes again?")
            assert follow.content == f"I read: {planted('docx')}, {planted('png')}."
            asked = reader_model.requests[-1]["messages"][1]
            assert asked["role"] == "user" and any(p.get("type") == "image_url" for p in asked["content"])
            assert again.session.attachments.get("sample.docx") is not None  # read_attachment reads it
            assert again.edit_last() == "And the codes again?"
            assert again.edit_last() == "What are the codes?"  # the typed words, not the file's text
        finally:
            await again.aclose()

    arun(main(), timeout=120)
