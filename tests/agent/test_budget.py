"""The context budget scales with the model's window: a small-context model gets a smaller
answer, history, page text and tool results than a big one, and its requests fit its window.
Through the real client against the scripted model server, the window given as the
provider's setting (``ProviderConfig.context_window``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from jawad_desktop.core.agent.budget import ContextBudget
from jawad_desktop.core.agent.history import estimate_tokens
from jawad_desktop.core.agent.session import AgentSession
from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.messages import Message
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.browser.reading import PageReading
from jawad_desktop.core.tools.page import PageContext
from jawad_desktop.core.tools.registry import ToolRegistry
from tests.servers.scripted_model import ScriptedModel, call, text

PAGE = "\n".join(f"Paragraph {i}: the kettle boils water in {i % 7 + 2} minutes and costs {i} euros."
                 for i in range(600))  # ~40,000 characters


class OnePage:
    """What the session asks of a browser session for its prompt: always this page."""

    page = None

    async def page_context(self) -> PageContext:
        return PageContext(title="Kettles", url="https://shop.example/kettles", markdown=PAGE,
                           interactive_elements="\n".join(f'[{i}] BUTTON "Buy {i}" -> #buy{i}' for i in range(150)))

    async def last_product(self) -> None:
        return None


def test_the_shares_grow_with_the_window() -> None:
    small = ContextBudget.for_window(4_096, 4_096, 24_000)
    local = ContextBudget.for_window(8_192, 4_096, 24_000)
    big = ContextBudget.for_window(200_000, 4_096, 24_000)
    for field in ("answer", "history", "page_chars", "elements_chars", "tool_result_chars"):
        assert getattr(small, field) <= getattr(local, field) <= getattr(big, field), field
    assert small.page_chars < big.page_chars and small.history < big.history
    assert small.answer == 1_024 and big.answer == 4_096  # a quarter of a small window at most
    assert big.history == 24_000  # the user's setting caps the history whatever the window
    assert big.page_chars > 12_000 and big.tool_result_chars > 20_000  # more than the old fixed sizes
    for budget in (small, local, big):  # what is spent on a request and its answer fits the window
        assert budget.answer + budget.input <= budget.window


@pytest.fixture
def tools() -> ToolRegistry:
    registry = basic_registry()

    @registry.tool
    def long_report() -> str:
        """Return a very long report."""
        return "report line\n" * 20_000

    return registry


def _run(model: ScriptedModel, window: int, tools: ToolRegistry, arun: Any) -> tuple[dict[str, Any], ...]:
    """One turn on a model with a ``window``-token context, after a long conversation, with a
    long page open: the requests the model received."""
    settings = Settings()
    settings.network.max_retries = 0
    provider = model.provider().model_copy(update={"context_window": window})
    client = LLMClient(provider, network=settings.network)
    session = AgentSession(client=client, registry=tools, settings=settings, bus=EventBus(), browser=OnePage())  # type: ignore[arg-type]
    for i in range(80):
        session.history.commit([Message(role="user", content=f"Question {i}: " + "tell me more " * 120),
                                Message(role="assistant", content=f"Answer {i}: " + "here is more " * 120)])
    model.script(call("long_report", {}), text("Done."))

    async def turn() -> None:
        async with client:
            await session.run("Summarise the report.")

    arun(turn())
    return tuple(model.requests)


def _tokens(request: dict[str, Any]) -> int:
    messages = [Message(role=m["role"], content=m.get("content") or "") for m in request["messages"]]
    return estimate_tokens(messages) + sum(len(str(t)) for t in request.get("tools", [])) // 4


def test_a_small_model_gets_less_of_everything_and_its_requests_fit(
    scripted_model: ScriptedModel, tools: ToolRegistry, arun: Any
) -> None:
    small = _run(scripted_model, 8_192, tools, arun)
    big = _run(scripted_model, 128_000, tools, arun)
    for name, requests, window in (("small", small, 8_192), ("big", big, 128_000)):
        for request in requests:
            assert _tokens(request) + request["max_tokens"] <= window, name
    assert small[0]["max_tokens"] == 2_048 and big[0]["max_tokens"] == 4_096
    small_system, big_system = small[0]["messages"][0]["content"], big[0]["messages"][0]["content"]
    assert len(small_system) < 10_000 < 20_000 < len(big_system)  # the page text in the prompt
    assert "more characters not shown" in small_system
    assert len(small[0]["messages"]) < len(big[0]["messages"])  # fewer messages of history
    small_result, big_result = small[1]["messages"][-1]["content"], big[1]["messages"][-1]["content"]
    assert small_result.endswith("more characters cut]") and len(small_result) < 6_000
    assert len(big_result) > 40_000


def test_read_page_text_is_shortened_to_fit_keeping_its_end() -> None:
    elements = "\n".join(f'[{i}] LINK "Item {i}" -> a.item{i}' for i in range(150))
    reading = PageReading(title="Shop", url="https://shop.example/", markdown=PAGE, product=None,
                          interactive_elements=elements, notes=["The page is long."])
    whole = reading.for_model()  # the first part of the content, saying how to read the others
    assert "Part 1 of 8 of the content. read_page(part=K) reads another part" in whole
    assert "Paragraph 0:" in whole and "Paragraph 599:" not in whole and "[149] LINK" in whole
    short = reading.for_model(4_000)  # smaller parts, and the elements shortened to fit
    assert len(short) <= 4_000
    assert short.endswith("Notes: The page is long.") and "</untrusted_page_content id=" in short
    assert "more of the elements not listed" in short and "Part 1 of 30 of the content" in short
    assert "Paragraph 0:" in short and "[0] LINK" in short
    tiny = reading.for_model(2_000)  # the last resort: the part cut too, saying where the rest is
    assert len(tiny) <= 2_000 and tiny.endswith("Notes: The page is long.")
    assert "of part 1 of the content not shown; read_page(part=1) shows this whole part" in tiny
    def same(text: str) -> str:  # each read has its own fence marker
        return re.sub(r'(untrusted_page_content id="|untrusted content )[0-9a-f]{10}', r"\1X", text)

    assert same(reading.for_model(100_000)) == same(whole)


# -- budgets in Chinese and Japanese --------------------------------------------------------------


def _cjk_corpus() -> str:
    """Real Traditional Chinese, Japanese and Chinese articles (../shared/corpora, Apache-2.0)."""
    from benchmarks.bench_tokens import CORPORA, _page_text

    return "\n".join(_page_text(CORPORA / "articles" / "pages" / name / "expected.html")
                     for name in ("pixnet", "yahoo-4", "qq"))


class CjkPage(OnePage):
    """A long Chinese page with Chinese and Japanese element labels."""

    def __init__(self, text: str) -> None:
        self.text = (text * 20)[:40_000]

    async def page_context(self) -> PageContext:
        return PageContext(title="楓紅", url="https://blog.example/maple", markdown=self.text,
                           interactive_elements="\n".join(f'[{i}] BUTTON "{self.text[i * 7:i * 7 + 12]}" -> #b{i}'
                                                          for i in range(300)))


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4", "qwen2.5-7b-instruct"])
def test_a_long_chinese_and_japanese_conversation_fits_the_window_as_the_model_counts_it(
    model: str, scripted_model: ScriptedModel, arun: Any
) -> None:
    """80 turns of Chinese and Japanese, a 40,000-character Chinese page in the prompt and a
    100,000-character Chinese tool result: every request fits the window as OpenAI's tokenizer
    counts it (for a model whose tokenizer is not known, as the costlier of o200k and cl100k,
    which the estimate is calibrated to cover). Counted as characters / 4 it overflowed them
    more than twice over."""
    from jawad_desktop.core.tokens import counter_for

    corpus = _cjk_corpus()
    window = 16_000
    registry = basic_registry()

    @registry.tool
    def long_report() -> str:
        """Return a very long report."""
        return (corpus * 30)[:100_000]

    settings = Settings()
    settings.network.max_retries = 0
    provider = scripted_model.provider().model_copy(update={"context_window": window, "model": model})
    client = LLMClient(provider, network=settings.network)
    session = AgentSession(client=client, registry=registry, settings=settings, bus=EventBus(),
                           browser=CjkPage(corpus))  # type: ignore[arg-type]
    for i in range(80):
        start = (i * 397) % (len(corpus) - 700)
        session.history.commit([Message(role="user", content=f"問題 {i}：" + corpus[start:start + 300]),
                                Message(role="assistant", content=f"回答 {i}：" + corpus[start + 300:start + 700])])
    scripted_model.script(call("long_report", {}), text("完成。"))

    async def turn() -> None:
        async with client:
            await session.run("報告をまとめてください。")

    arun(turn())
    requests = list(scripted_model.requests)
    assert len(requests) == 2
    counters = [counter_for(model)] if counter_for(model).exact else [counter_for("gpt-4o"), counter_for("gpt-4")]
    for request in requests:
        for counter in counters:
            messages = [Message(role=m["role"], content=m.get("content") or "") for m in request["messages"]]
            tokens = estimate_tokens(messages, counter) + counter.count(str(request.get("tools", [])))
            assert tokens + request["max_tokens"] <= window, (model, counter, tokens)
    system, result = requests[0]["messages"][0]["content"], requests[1]["messages"][-1]["content"]
    assert "楓" in system and "more characters not shown" in system  # the page, cut to its share
    assert result.endswith("more characters cut]") or "not shown" in result  # the report, cut to its share
    assert len(requests[0]["messages"]) > 6  # some of the conversation is still there
