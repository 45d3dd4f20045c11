"""What one run of the agent used, and its budget: tokens and cost summed over its requests.

``RunUsage`` adds up each model request of a run (``AgentSession._request``): input, cached
input, reasoning and output tokens, and the cost: the provider's own figure where it reports
one (OpenRouter's ``usage.cost``, ``ChatResponse.metadata["cost_usd"]``), else the price table's
estimate (``core.llm.pricing``). One request of unknown price makes the run's cost unknown: it
is then never shown as $0.

The budget is the agent settings' ``max_run_tokens`` and ``max_run_cost_usd`` (0: no limit);
``exceeded`` says, in the user's words, which one a run went over and what to do. The session
stops after the request that crossed it (the step limit, ``max_iterations``, is the session's).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from jawad_desktop.core.config.settings import AgentSettings
from jawad_desktop.core.llm.pricing import ModelKey, PriceTable, format_cost
from jawad_desktop.core.llm.types import ChatResponse

log = logging.getLogger("jawad.agent")


def _count(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0


@dataclass
class RunUsage:
    """Tokens and cost of one run so far (see the module docstring)."""

    input_tokens: int = 0  # cached input included, as every provider counts it
    output_tokens: int = 0  # reasoning included
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0  # of the requests whose cost is known
    cost_known: bool = True
    model: str = ""  # the model that answered last
    warned: bool = False  # the user was told the cost budget cannot be checked

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add(self, response: ChatResponse, model: ModelKey, prices: PriceTable) -> None:
        """Count one request's usage and its cost (reported, else estimated for ``model``)."""
        meta = response.metadata
        input_tokens = _count(response.usage.input_tokens)
        output_tokens = _count(response.usage.output_tokens)
        cached = _count(meta.get("cached_input_tokens"))
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.cached_input_tokens += cached
        self.reasoning_tokens += _count(meta.get("reasoning_tokens"))
        name = meta.get("model")
        self.model = name if isinstance(name, str) and name else model[2]
        reported = meta.get("cost_usd")
        if isinstance(reported, int | float) and not isinstance(reported, bool) and reported >= 0:
            self.cost_usd += float(reported)
            return
        if not (input_tokens or output_tokens):
            return  # nothing used (a stopped request, a server that counts nothing): nothing to price
        estimate = prices.estimate_cost(model, input_tokens, output_tokens, cached)
        if estimate is None:
            if self.cost_known:
                log.info("no price for %s: the cost of this run is unknown", model[2] or "this model")
            self.cost_known = False
        else:
            self.cost_usd += estimate

    def metadata(self) -> dict[str, Any]:
        """The keys a turn's ``ChatResponse.metadata`` carries (spec 003's, and the cost)."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cost_usd": round(self.cost_usd, 8) if self.cost_known else None,
            "cost_known": self.cost_known,
            **({"model": self.model} if self.model else {}),
        }

    def budget_warning(self, agent: AgentSettings) -> str:
        """Once per run, when a cost budget is set but this run's cost is unknown: why it cannot
        be checked and what to do ("" otherwise)."""
        if self.warned or not agent.max_run_cost_usd or self.cost_known:
            return ""
        self.warned = True
        return (f"The cost budget of {format_cost(agent.max_run_cost_usd)} cannot be checked for this request: "
                f"the price of {self.model or 'this model'} is not known. Add it to the price table (prices.json "
                "in the config folder), or set a token budget instead.")

    def exceeded(self, agent: AgentSettings) -> tuple[str, str] | None:
        """(which budget, the message) when the run went over a budget of ``agent``; else None."""
        if agent.max_run_tokens and self.total_tokens > agent.max_run_tokens:
            return "tokens", (
                f"I stopped because this request has used {self.total_tokens:,} tokens, more than the budget of "
                f"{agent.max_run_tokens:,} tokens for one request, so it is not finished. Ask me to continue, "
                "make the request more specific, or raise the token budget."
            )
        if agent.max_run_cost_usd and self.cost_known and self.cost_usd > agent.max_run_cost_usd:
            return "cost", (
                f"I stopped because this request has cost about {format_cost(self.cost_usd)}, more than the "
                f"budget of {format_cost(agent.max_run_cost_usd)} for one request, so it is not finished. Ask me "
                "to continue, make the request more specific, or raise the cost budget."
            )
        return None
