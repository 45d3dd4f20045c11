"""Sampling: an MCP server asks the user's model for an answer (``sampling/createMessage``).

A server asking our model is an action like any other the agent takes: it passes Harbor's gate
(``PermissionGate``) as the action ``mcp_sampling`` on the server's site (``mcp.<server>``) at the
``submit`` level, so the user sees the request (the system prompt, the messages, the token cap) and
answers it with Harbor's five decisions: once, always for this server, for the session, deny, deny
all. Nobody to ask (a terminal without a person) means denied, as for every action that asks.

The user may edit the request before allowing it: ``revise(sample, text)`` (the window's permission
panel) replaces the text of its last user message; ``sample`` is the request's id, given in the
question's arguments. The model is chosen before asking, and shown in the question: the provider named in
``McpSettings.sampling_provider``, else a saved provider whose model matches one of the server's
hints (``modelPreferences.hints``: parts of model names, in the server's order), else the one the
assistant uses. Once allowed, the request goes to that model under the run's budgets: the answer's
length is capped at ``agent.max_tokens``, and the tokens sampling used count against
``agent.max_run_tokens`` for as long as the sampler lives (a request over it is refused).
The server gets the model's text, the model's name and why it stopped. A refusal is the
error the specification gives (code -1, "User rejected sampling request").
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import Any, Protocol

from jawad_desktop.core.config.mcp import McpSettings
from jawad_desktop.core.config.settings import AgentSettings
from jawad_desktop.core.events import new_id
from jawad_desktop.core.harbor.gate import PermissionCheck, PermissionGate
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.messages import Audio, Image, Message
from jawad_desktop.core.sites import mcp_site

log = logging.getLogger("jawad.mcp.sampling")

__all__ = ["SAMPLING_TOOL", "Sampler"]

SAMPLING_TOOL = "mcp_sampling"  # the action Harbor decides on (grants are kept per server under it)
_REJECTED = -1  # the specification's error code for a request the user rejected


class ModelClient(Protocol):
    """What sampling needs of the model client (``core.llm.client.LLMClient``; the agent's ``ChatClient``)."""

    def chat(self, messages: list[Message], tools: list[dict[str, Any]] | None = None, *, stream: bool = True,
             temperature: float | None = None, max_tokens: int | None = 4096,
             tool_choice: str | dict[str, Any] | None = None) -> Any: ...


def _site(server: str) -> str:
    return mcp_site(server)


class Sampler:
    """Answers servers' sampling requests with the model, after Harbor's gate allowed them.

    ``client(provider)`` gives the model client of a saved provider ("": the one the assistant uses);
    ``providers()`` the saved providers as (name, model); ``settings()`` the MCP settings as they are
    now (the chosen sampling provider).
    """

    def __init__(self, gate: PermissionGate, client: Callable[[str], ModelClient], agent: AgentSettings, *,
                 settings: Callable[[], McpSettings] = McpSettings,
                 providers: Callable[[], list[tuple[str, str]]] = list) -> None:
        self.gate = gate
        self.client = client
        self.agent = agent
        self.settings = settings
        self.providers = providers
        self.used_tokens = 0  # what sampling has cost so far, against agent.max_run_tokens
        self._asking: set[str] = set()  # requests waiting for the user's answer
        self._revised: dict[str, str] = {}  # the user's text for a request's last user message

    def revise(self, sample: str, text: str) -> bool:
        """The user's own text for the last user message of request ``sample``, while it is being
        asked about; False when that request is not waiting (any more)."""
        if sample not in self._asking:
            return False
        self._revised[sample] = text
        return True

    async def create_message(self, server: str, params: Any) -> Any:
        """The ``CreateMessageResult`` for ``params`` (``CreateMessageRequestParams``), or ``ErrorData``."""
        from mcp import types

        messages = _messages(params)
        max_tokens = min(int(params.maxTokens), self.agent.max_tokens)
        budget = self.agent.max_run_tokens
        if budget and self.used_tokens + max_tokens > budget:
            log.info("sampling for %s refused: over the run's token budget", server)
            return types.ErrorData(code=_REJECTED, message=(
                f"Sampling refused: it would go over the token budget ({budget} tokens, {self.used_tokens} used)."))
        shown: dict[str, Any] = {"server": server, "max_tokens": max_tokens}
        if params.systemPrompt:
            shown["system_prompt"] = params.systemPrompt
        shown["messages"] = [f"{m.role}: {m.content}" + (f" [+{len(m.images)} picture(s)]" if m.images else "")
                             for m in messages if m.role != "system"]
        hints = [str(h.name) for h in (params.modelPreferences.hints or []) if h.name] \
            if params.modelPreferences else []
        if hints:
            shown["model_hints"] = hints
        provider = self.choose_provider(hints)
        shown["provider"] = provider or "the one in use"
        sample = shown["sample"] = new_id("sample")
        self._asking.add(sample)
        try:
            decision = await self.gate.check(PermissionCheck(
                tool=SAMPLING_TOOL, call_id=sample, arguments=shown, level=PermissionLevel.SUBMIT,
                site=_site(server)))
        finally:
            self._asking.discard(sample)
            revised = self._revised.pop(sample, None)
        if decision.allowed and revised is not None:
            last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
            if last is not None:
                log.info("sampling for %s: the user edited the request", server)
                messages[last] = Message(role="user", content=revised, images=messages[last].images)
        if not decision.allowed:
            log.info("sampling for %s not allowed: %s", server, decision.reason)
            return types.ErrorData(code=_REJECTED, message="User rejected sampling request")
        client = self.client(provider)
        try:
            response = await client.chat(messages, stream=False, temperature=params.temperature,
                                         max_tokens=max_tokens).response()
        except Exception as exc:  # the provider's error, said to the server (our own log has the details)
            log.warning("sampling for %s failed: %s", server, exc)
            return types.ErrorData(code=types.INTERNAL_ERROR, message=f"The model could not answer: {exc}")
        usage = response.usage
        self.used_tokens += (usage.total_tokens or (usage.input_tokens or 0) + (usage.output_tokens or 0)
                             or max_tokens)
        model = str(response.metadata.get("model") or getattr(client, "model", "") or "unknown")
        stop = {"length": "maxTokens", "stop": "endTurn"}.get(response.finish_reason, "endTurn")
        log.info("sampling for %s answered by %s (%d characters)", server, model, len(response.content))
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text",
                                                                                      text=response.content),
                                         model=model, stopReason=stop)


    def choose_provider(self, hints: list[str]) -> str:
        """The saved provider to answer with ("": the one in use); see the module docstring."""
        chosen = self.settings().sampling_provider
        if chosen:
            return chosen
        saved = self.providers()
        for hint in hints:
            for name, model in saved:
                if hint.casefold() in model.casefold():
                    return name
        return ""


def _messages(params: Any) -> list[Message]:
    """The request as chat messages: its system prompt first, then each message's text, pictures and
    sounds (a sound reaches only a model that hears it, ``core.llm.audio_input``; others get a note)."""
    messages: list[Message] = []
    if params.systemPrompt:
        messages.append(Message(role="system", content=str(params.systemPrompt)))
    for item in params.messages:
        blocks = item.content if isinstance(item.content, list) else [item.content]
        texts: list[str] = []
        images: list[Image] = []
        sounds: list[Audio] = []
        for block in blocks:
            kind = getattr(block, "type", "")
            if kind == "text":
                texts.append(str(block.text))
            elif kind == "image":
                images.append(Image(base64.b64decode(str(block.data)), str(block.mimeType)))
            elif kind == "audio":
                sounds.append(Audio(base64.b64decode(str(block.data)), str(block.mimeType)))
            else:
                texts.append(f"[{kind} left out]")
        messages.append(Message(role=item.role, content="\n".join(texts), images=images, audio=sounds))
    return messages
