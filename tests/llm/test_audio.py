"""A tool's sound (an MCP tool's audio) in each provider's documented request shape, only to models
that hear it (``core.llm.audio_input``): Chat Completions' ``input_audio`` checked by a loopback server that
answers OpenAI's 400s, Gemini's ``inlineData`` with an audio MIME type, and a note everywhere else."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.anthropic import anthropic_messages
from jawad_desktop.core.llm.audio_input import AUDIO_LEFT_OUT, for_model, known_hearing
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.gemini import gemini_contents
from jawad_desktop.core.llm.vision import chat_messages
from jawad_desktop.core.messages import Audio, Message, ToolCall
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.tools.registry import ToolRegistry, ToolResult
from tests.providers.test_providers import client
from tests.servers import openai_rules
from tests.servers.provider_servers import ProviderServer
from tests.servers.scripted_model import ScriptedModel, call, text

WAV = b"RIFF$\x00\x00\x00WAVEfmt fake"
B64 = base64.b64encode(WAV).decode()
SOUND = Audio(WAV, "audio/wav")


def _round(sound: Audio = SOUND) -> list[Message]:
    return [Message("user", "play it"), Message("assistant", "", [ToolCall("c1", "get_audio", {})]),
            Message("tool", "[audio audio/wav, 40 bytes base64]", tool_call_id="c1", name="get_audio",
                    audio=[sound])]


def _ask(scripted_model: ScriptedModel, arun: Callable[..., Any], model: str) -> dict[str, Any]:
    provider = scripted_model.provider().model_copy(update={"model": model})
    client = LLMClient(provider, facts=ModelFactsStore(None))
    scripted_model.script(text("A beep."))
    try:
        answer = arun(client.chat(_round(), stream=False).response())
    finally:
        arun(client.aclose())
    assert answer.content == "A beep."  # the fake took the request (it answers OpenAI's 400 otherwise)
    body: dict[str, Any] = scripted_model.requests[-1]
    return body


def test_an_audio_model_gets_the_sound_as_input_audio_after_the_tool_results(
        scripted_model: ScriptedModel, arun: Callable[..., Any]) -> None:
    body = _ask(scripted_model, arun, "gpt-4o-audio-preview")
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "user"]
    assert body["messages"][-1]["content"][-1] == {"type": "input_audio", "input_audio": {"data": B64, "format": "wav"}}
    assert openai_rules.refusal(body) is None
    # What OpenAI refuses: audio in a tool message, or for a model that does not hear.
    bad = [*body["messages"][:2], {"role": "tool", "tool_call_id": "c1", "content": body["messages"][-1]["content"]}]
    assert openai_rules.refusal({"model": "gpt-4o-audio-preview", "messages": bad}) is not None
    assert openai_rules.refusal({**body, "model": "gpt-4o"}) is not None


def test_a_model_that_does_not_hear_gets_the_note(scripted_model: ScriptedModel, arun: Callable[..., Any]) -> None:
    body = _ask(scripted_model, arun, "gpt-4o")
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool"]
    assert AUDIO_LEFT_OUT in body["messages"][-1]["content"] and B64 not in str(body)


def test_gemini_gets_inline_data_with_an_audio_mime_type() -> None:
    messages = for_model(("gemini", "https://generativelanguage.googleapis.com", "gemini-2.5-flash"), _round())
    _, contents = gemini_contents(messages)
    assert {"inlineData": {"mimeType": "audio/wav", "data": B64}} in contents[-1]["parts"]
    mp3 = for_model(("gemini", "", "gemini-2.5-flash"), _round(Audio(WAV, "audio/mpeg")))
    assert {"inlineData": {"mimeType": "audio/mp3", "data": B64}} in gemini_contents(mp3)[1][-1]["parts"]


def test_other_apis_formats_and_models_keep_the_note() -> None:
    for key in (("anthropic", "", "claude-sonnet-4-5"), ("gemini", "", "gemini-2.5-flash-preview-tts"),
                ("openai", "", "gpt-4o-audio-preview")):
        sound = Audio(WAV, "audio/ogg") if key[0] == "openai" else SOUND  # Chat Completions: WAV and MP3 only
        kept = for_model(key, _round(sound))
        assert not kept[-1].audio and kept[-1].content.endswith(AUDIO_LEFT_OUT), key
    _, turns = anthropic_messages(for_model(("anthropic", "", "claude-sonnet-4-5"), _round()))
    assert B64 not in str(turns)
    assert "input_audio" not in str(chat_messages(for_model(("openai", "", "gpt-4o"), _round())))


def test_hearing_from_the_model_name() -> None:
    for kind, model in (("openai", "gpt-4o-audio-preview"), ("openai", "gpt-4o-mini-audio-preview-2024-12-17"),
                        ("openai", "gpt-audio"), ("openai-compatible", "Qwen/Qwen2-Audio-7B-Instruct"),
                        ("local", "ultravox-v0_5"), ("gemini", "gemini-2.0-flash"), ("gemini", "gemini-1.5-pro")):
        assert known_hearing(kind, model), (kind, model)
    for kind, model in (("openai", "gpt-4o"), ("openai", "gpt-5"), ("anthropic", "claude-opus-4"),
                        ("gemini", "gemini-embedding-001"), ("openai-responses", "gpt-4o-audio-preview")):
        assert not known_hearing(kind, model), (kind, model)


def test_the_agent_passes_a_tool_s_sound_to_a_model_that_hears_it_and_only_the_newest(
        scripted_model: ScriptedModel, arun: Callable[..., Any]) -> None:
    registry = ToolRegistry()

    @registry.tool
    def get_audio() -> ToolResult:
        """A short sound."""
        return ToolResult(for_model="[audio audio/wav, 40 bytes base64]", audio=[SOUND])

    provider = scripted_model.provider().model_copy(update={"model": "gpt-4o-audio-preview"})
    scripted_model.script(call("get_audio"), call("get_audio"), text("Two beeps."))

    async def run() -> Any:
        async with LLMClient(provider, facts=ModelFactsStore(None)) as chat:
            return await AgentSession(client=chat, registry=registry, settings=Settings(), bus=EventBus()).run("Play")

    response = arun(run())
    assert response.content == "Two beeps.", response.content
    second, last = scripted_model.requests[-2:]
    assert second["messages"][-1]["content"][-1] == {"type": "input_audio",
                                                     "input_audio": {"data": B64, "format": "wav"}}
    sounds = [part for m in last["messages"] if isinstance(m["content"], list) for part in m["content"]
              if part.get("type") == "input_audio"]
    assert len(sounds) == 1 and "[an earlier sound, no longer sent]" in str(last["messages"])


def test_a_gemini_request_carries_the_sound_as_gemini_documents_it(provider_server: ProviderServer,
                                                                   arun: Callable[..., Any]) -> None:
    async def ask(model: str) -> str:
        async with client(provider_server, ProviderKind.GEMINI, model) as chat:
            answer = await chat.chat(_round(), stream=False).response()
        return answer.content

    assert arun(ask("gemini-2.5-flash"))  # the fake answered: it took the inline data (its 400 otherwise)
    parts = provider_server.last("gemini")["body"]["contents"][-1]["parts"]
    assert {"inlineData": {"mimeType": "audio/wav", "data": B64}} in parts
    arun(ask("gemini-2.5-flash-preview-tts"))  # a model that does not hear: the note, no sound
    parts = provider_server.last("gemini")["body"]["contents"][-1]["parts"]
    assert not any("inlineData" in part for part in parts) and AUDIO_LEFT_OUT in str(parts)
