"""Images in each provider's documented request shape, and a refused image learned (issue 18, vision)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from jawad_desktop.core.llm.anthropic import anthropic_messages
from jawad_desktop.core.llm.bedrock import bedrock_messages
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.gemini import gemini_contents
from jawad_desktop.core.llm.ollama_native import ollama_messages
from jawad_desktop.core.llm.responses import responses_input
from jawad_desktop.core.llm.vision import IMAGES_LEFT_OUT, chat_messages, known_vision
from jawad_desktop.core.messages import Image, Message, ToolCall
from jawad_desktop.core.store.model_facts import ModelFactsStore
from tests.servers import openai_rules
from tests.servers.scripted_model import ScriptedModel, text

PNG = b"\x89PNG\r\n\x1a\nfake"
B64 = base64.b64encode(PNG).decode()
SHOT = Image(PNG)


def _round() -> list[Message]:
    calls = [ToolCall("c1", "look", {}), ToolCall("c2", "read_page", {})]
    return [Message("user", "look"), Message("assistant", "", calls),
            Message("tool", "listing", tool_call_id="c1", name="look", images=[SHOT]),
            Message("tool", "page", tool_call_id="c2", name="read_page")]


def test_chat_completions_images_follow_the_tool_results_in_a_user_message() -> None:
    wire = chat_messages(_round())
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "tool", "user"]
    assert wire[2]["content"] == "listing"
    assert wire[4]["content"][1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}
    assert openai_rules.image_refusal({"model": "gpt-4o", "messages": wire}) is None
    # What OpenAI refuses: an image in a tool message.
    bad = [*wire[:2], {"role": "tool", "tool_call_id": "c1", "content": wire[4]["content"]}]
    assert openai_rules.image_refusal({"model": "gpt-4o", "messages": bad}) is not None


def test_anthropic_gemini_ollama_responses_bedrock_shapes() -> None:
    _, turns = anthropic_messages(_round())
    result = turns[-1]["content"][0]
    assert result["type"] == "tool_result" and result["content"][1] == {
        "type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}}
    _, contents = gemini_contents(_round())
    assert {"inlineData": {"mimeType": "image/png", "data": B64}} in contents[-1]["parts"]
    ollama = ollama_messages(_round())
    assert ollama[-1]["role"] == "user" and ollama[-1]["images"] == [B64]
    assert "images" not in ollama[2]
    items = responses_input(_round())
    assert items[-1]["role"] == "user"
    assert {"type": "input_image", "image_url": f"data:image/png;base64,{B64}"} in items[-1]["content"]
    _, bedrock = bedrock_messages(_round())
    assert {"image": {"format": "png", "source": {"bytes": B64}}} in bedrock[-1]["content"][0]["toolResult"]["content"]


def test_vision_from_the_model_name() -> None:
    for model in ("gpt-4o", "gpt-4.1-mini", "gpt-5", "o3", "claude-3-5-sonnet-20241022", "claude-sonnet-4-5",
                  "gemini-2.5-flash", "llava:13b", "llama3.2-vision", "qwen2.5vl:7b", "anthropic/claude-opus-4"):
        assert known_vision("openai", model) is True, model
    for model in ("gpt-3.5-turbo", "o3-mini", "gpt-oss:20b", "deepseek-chat", "qwen2.5:7b", "llama3.1:8b"):
        assert known_vision("openai", model) is False, model
    assert known_vision("openai_compatible", "scripted") is None


def test_a_refused_image_is_learned_and_never_sent_again(scripted_model: ScriptedModel,
                                                         arun: Callable[..., Any]) -> None:
    facts = ModelFactsStore(None)
    provider = scripted_model.provider().model_copy(update={"model": "text-only-model"})
    client = LLMClient(provider, facts=facts)
    scripted_model.script(text("I cannot see it."), text("Still text."))
    messages = [Message("user", "What is this?", images=[SHOT])]
    try:
        answer = arun(client.chat(messages, stream=False).response())
        assert answer.content == "I cannot see it."
        first, second = scripted_model.requests[-2:]
        assert isinstance(first["messages"][0]["content"], list)  # sent, refused with OpenAI's 400
        assert IMAGES_LEFT_OUT in second["messages"][0]["content"]
        assert facts.get(client.model_key).vision is False
        arun(client.chat(messages, stream=False).response())
        assert isinstance(scripted_model.requests[-1]["messages"][0]["content"], str)  # not sent again
    finally:
        arun(client.aclose())
