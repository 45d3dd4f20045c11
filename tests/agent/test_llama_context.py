"""The built-in model's real llama.cpp server and the agent's budget: a long conversation with a
long page open fits the context the server runs with.

The agent sizes the built-in provider's requests for the context its server is started with
(``core.llm.context_window``: the shared server's ``n_ctx``). Filling the app's whole 8,192 tokens
cost llama.cpp 110-134 CPU seconds (a ~7,000-token prompt), so the fit is proved on the same
model's server run with a 2,048-token context and made the built-in one (``built_in_small``): the
same path for about a sixth of the CPU, and the tighter case, as what does not grow with the
window (the rules, the tools, the page's smallest share) takes four times more of it. That the
app's server runs with the model's whole 8,192-token context is checked without filling it.

The controls show the tests would catch a budget that does not follow the server: budgeting for a
bigger window than the server runs with (as the fixed 24,000-token history and 12,000 characters
of page did) ends in the server's context-length error, which names the context it runs with.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from jawad_desktop.core import events
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm import local_server
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.context_window import ContextWindow, context_window
from jawad_desktop.core.llm.local_server import LOCAL_CONTEXT_TOKENS, LocalServer
from jawad_desktop.core.messages import Message
from jawad_desktop.core.tools.basic import basic_registry
from tests.agent.test_budget import OnePage
from tests.fixtures.llama_server import SMALL_CONTEXT_TOKENS

# llama.cpp reads the ~2,000-token prompt on one thread (tests/fixtures/cores.py): 12-22 CPU seconds, which on a
# machine busy with more than the tests can take minutes; the answer's first chunk comes once it is all read.
TURN_TIMEOUT_S = 240
pytestmark = [pytest.mark.slow, pytest.mark.timeout(TURN_TIMEOUT_S + 60)]
# The tests on the small server run on one worker of a parallel run, which starts it once.
on_the_small_server = pytest.mark.xdist_group("llama-small-context")


def _turn(provider: ProviderConfig, arun: Any) -> events.ChatResponse:
    """One turn after a long conversation (~60,000 characters) with a long page open."""
    settings = Settings()
    settings.agent.max_tokens = 32
    settings.agent.max_iterations = 1
    settings.agent.temperature = 0.0
    settings.network.max_retries = 0
    settings.network.read_timeout_s = TURN_TIMEOUT_S  # the answer's first chunk comes once the whole prompt is read
    client = LLMClient(provider, network=settings.network)
    session = AgentSession(client=client, registry=basic_registry(), settings=settings, bus=EventBus(),
                           browser=OnePage())  # type: ignore[arg-type]
    for i in range(60):
        session.history.commit([Message(role="user", content=f"Question {i}: " + "tell me more " * 40),
                                Message(role="assistant", content=f"Answer {i}: " + "here is more " * 40)])

    async def turn() -> events.ChatResponse:
        async with client:
            return await session.run("Say hello.")

    response: events.ChatResponse = arun(turn(), timeout=TURN_TIMEOUT_S)
    return response


def _built_in(context_window: int = 0) -> ProviderConfig:
    """The built-in provider (the app starts its server); ``context_window``: the user's setting, 0 none."""
    return ProviderConfig(name="built-in", kind=ProviderKind.LOCAL, context_window=context_window)


def _log_size(server: LocalServer) -> int:
    assert server._log_path is not None
    return server._log_path.stat().st_size


def _log_after(server: LocalServer, offset: int = 0) -> str:
    """What the server wrote to its log after ``offset`` bytes."""
    assert server._log_path is not None
    with server._log_path.open("rb") as written:
        written.seek(offset)
        return written.read().decode(errors="replace")


@pytest.fixture
def built_in_small(small_llama_server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> LocalServer:
    """The small server as the app's built-in one: the built-in provider's requests and budget use it."""
    monkeypatch.setattr(local_server, "_shared", small_llama_server)
    assert local_server.configure_local_server(None) is small_llama_server  # kept, not restarted
    return small_llama_server


@on_the_small_server
def test_a_long_conversation_and_a_page_fit_the_built_in_servers_context(
    built_in_small: LocalServer, arun: Any
) -> None:
    before = _log_size(built_in_small)
    response = _turn(_built_in(), arun)
    # The model may say little (it is tiny), but the server took the request.
    assert not response.is_error or response.metadata.get("iteration_limit"), response.content
    assert response.metadata["api_calls"] == 1 and response.metadata["provider_kind"] == "local"
    # And the request filled the context: its prompt took most of the 2,048 tokens (a budget that asked
    # for little would fit too, and prove nothing). llama.cpp logs the tokens it read, and those it kept
    # from the request before when it starts the same way.
    written = _log_after(built_in_small, before)
    [read] = re.findall(r"prompt eval time = .* / +(\d+) tokens", written)
    kept = re.findall(r"(\d+) prefix-match hit", written)
    prompt = int(read) + sum(int(k) for k in kept)
    assert SMALL_CONTEXT_TOKENS * 3 // 4 < prompt < SMALL_CONTEXT_TOKENS, prompt


@on_the_small_server
def test_control_budgeting_for_a_bigger_window_overflows_the_server(built_in_small: LocalServer, arun: Any) -> None:
    before = _log_size(built_in_small)
    response = _turn(_built_in(context_window=LOCAL_CONTEXT_TOKENS), arun)
    assert response.is_error, response.content
    # A streamed request that overflows is cut off by llama-cpp-python's server (the connection
    # breaks); its log says why, somewhere in what it wrote for this request (a disconnect's
    # traceback may follow it).
    assert f"exceed context window of {SMALL_CONTEXT_TOKENS}" in _log_after(built_in_small, before)


def test_the_built_in_server_runs_with_the_models_whole_context(llama_server: LocalServer, arun: Any) -> None:
    """The agent budgets the built-in provider for the context its server is started with: 8,192 tokens,
    the model's whole trained context; and the server started as the app starts it runs with all of it
    (its log says so when it loads the model), refusing more (cheap: a prompt over the context is
    refused before it is read)."""
    window = arun(context_window(LLMClient(_built_in())))
    assert window == ContextWindow(local_server.shared_local_server().n_ctx, "the built-in model's server")
    assert window.tokens == llama_server.n_ctx == LOCAL_CONTEXT_TOKENS == 8192
    loaded = _log_after(llama_server)
    assert re.search(r"n_ctx_train += 8192\b", loaded) and re.search(r"llama_context: n_ctx += 8192\b", loaded)
    before = _log_size(llama_server)
    response = _turn(ProviderConfig(name="built-in", kind=ProviderKind.OPENAI_COMPATIBLE, model="smollm2",
                                    base_url=llama_server.base_url, context_window=40_000), arun)
    assert response.is_error, response.content
    assert "exceed context window of 8192" in _log_after(llama_server, before)
