"""The tool-calling test: how a model calls tools, found with a few short requests and remembered.

``probe_tool_format(provider, key, network, facts)`` (Settings → Providers → Test tool calling,
``jawad providers test NAME --tools``) asks the model to call one trivial tool, ``get_time``,
with the agent's own system prompt for each format, and stops at the first that works:

1. **native**: the tool is offered through the API. A native call: "native". A call written
   in the answer's text: "xml" (the agent reads calls in text, and would switch to it).
   A rejection of ``tools`` or a plain answer: on to 2.
2. **xml**: the tool and its arguments' schema described in the prompt with the XML
   instructions; a call the agent can parse (``parse_text_reply``): "xml".
3. **json**: the same with spec 004's JSON contract; a parsed call: "json".
4. Otherwise "none": the model cannot call tools, and the result says what it did instead.

The format is learned into the profile's model facts under the client's ``model_key`` with a
note, so the agent starts the next conversation with it (``AgentSession``). A failure that is
not about tools (no key, offline, unknown model) is raised as the ``JawadError`` it is.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass
from typing import Any, Literal

from jawad_desktop.core.agent.prompts import ToolMode, build_system_prompt
from jawad_desktop.core.agent.textcalls import parse_text_reply
from jawad_desktop.core.config.providers import ProviderConfig
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.connection import on_own_client
from jawad_desktop.core.llm.errors import ToolsRejectedError
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.model_facts import ModelFactsStore, ModelKey
from jawad_desktop.core.tools.registry import ToolRegistry

log = logging.getLogger("jawad.agent.probe")

__all__ = ["PROBE_QUESTION", "ProbeResult", "ToolFormat", "probe_client", "probe_tool_format"]

ToolFormat = Literal["native", "xml", "json", "none"]

PROBE_QUESTION = "What time is it now? Call the get_time tool to find out; do not guess."
_MAX_TOKENS = 512  # enough for a call, or a short refusal, from a model that thinks first
_QUOTE = 160  # characters of a reply quoted in the result

_SUMMARIES: dict[str, str] = {
    "native": "Native tool calls work.",
    "xml": "Uses the XML format: Jawad describes the tools in the prompt and reads the calls from the text.",
    "json": "Uses the JSON format: Jawad describes the tools in the prompt and reads JSON calls from the text.",
}


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What the test found: the format, why (``detail``), for which model, at what cost."""

    provider: str
    model: str
    tool_format: ToolFormat
    detail: str
    key: ModelKey
    requests: int
    latency_ms: float

    @property
    def works(self) -> bool:
        return self.tool_format != "none"

    @property
    def summary(self) -> str:
        """One line for the Providers page and the terminal."""
        if self.tool_format == "none":
            return f"Could not call a tool: {self.detail}"
        return _SUMMARIES[self.tool_format]


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def get_time() -> str:
        """Get the current date and time."""
        return dt.datetime.now().isoformat(timespec="seconds")

    return registry


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "an empty answer"
    return f'"{flat[:_QUOTE]}{"…" if len(flat) > _QUOTE else ""}"'


async def _ask(client: Any, registry: ToolRegistry, mode: ToolMode) -> ChatResponse:
    system = Message(role="system", content=build_system_prompt(registry, mode))
    messages = [system, Message(role="user", content=PROBE_QUESTION)]
    tools = registry.openai_tools() if mode == "native" else None
    response: ChatResponse = await client.chat(messages, tools, stream=False, temperature=0,
                                               max_tokens=_MAX_TOKENS).response()
    return response


async def probe_client(client: Any, facts: ModelFactsStore | None = None, *, provider: str = "") -> ProbeResult:
    """Test ``client``'s model (see the module docstring) and learn the result into ``facts``."""
    registry = _registry()
    names = frozenset(registry.all_names())
    started = time.monotonic()
    requests = 0
    seen: list[str] = []  # what happened at each step, for a model that cannot call tools

    def result(found: ToolFormat, detail: str) -> ProbeResult:
        key = getattr(client, "model_key", ("", "", ""))
        outcome = ProbeResult(provider=provider, model=key[2], tool_format=found, detail=detail, key=key,
                              requests=requests, latency_ms=round((time.monotonic() - started) * 1000, 1))
        log.info("tool-calling test of %s: %s (%s)", key[2] or provider, found, detail)
        if facts is not None and key[2]:
            facts.learn(key, lambda f: setattr(f, "tool_format", found),
                        note=f"Tool-calling test: {outcome.summary}")
        return outcome

    requests += 1
    try:
        native = await _ask(client, registry, "native")
    except ToolsRejectedError as exc:
        seen.append(f"it refuses native tools ({exc.detail or exc.message})")
    else:
        if native.tool_calls:
            return result("native", f"it called {native.tool_calls[0].name} through the API")
        if parse_text_reply(native.content, names).calls:
            return result("xml", "it writes its tool calls in the text even when tools are offered natively")
        seen.append(f"offered the tool natively, it answered {_quote(native.content)}")
    for mode in ("xml", "json"):
        requests += 1
        reply = await _ask(client, registry, mode)
        if parse_text_reply(reply.content, names).calls:
            return result(mode, f"it wrote a {mode.upper()} call when the tool was described in the prompt")
        seen.append(f"with the {mode.upper()} instructions it answered {_quote(reply.content)}")
    return result("none", "; ".join(seen) + ". Choose a model that supports tools for browsing and actions.")


async def probe_tool_format(
    provider: ProviderConfig,
    api_key: str | None,
    network: NetworkSettings | None = None,
    facts: ModelFactsStore | None = None,
) -> ProbeResult:
    """Test ``provider``'s model on a client of its own (no retries: the user is waiting)."""
    # Each of up to three requests: a connection test's time.
    return await on_own_client(provider, api_key, network, facts,
                               lambda client: probe_client(client, facts, provider=provider.name),
                               requests=3, what="tool-calling test")
