"""The agent loop's asking phases (``core.agent.session``): the tool format and the context's size
for the model, the system prompt, one request streamed as ``ChatDelta`` (a provider that rejects
tools is asked again at once in text), the calls read from the answer (native, else written in
text, which switches the format and is remembered for the model), and plan-first mode's plan."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from jawad_desktop.core import events
from jawad_desktop.core.agent.budget import ContextBudget
from jawad_desktop.core.agent.confirm import CONFIRM_TOOL
from jawad_desktop.core.agent.ending import TurnEnding
from jawad_desktop.core.agent.plan_first import ask_for_plan
from jawad_desktop.core.agent.prompts import ToolMode, build_system_prompt
from jawad_desktop.core.agent.textcalls import StreamSanitizer, clean_response, parse_text_reply
from jawad_desktop.core.agent.turn import ChatClient, OfferedTools, Step, Turn, model_key, page_state, remedy_metadata
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import ChatDelta, Notice
from jawad_desktop.core.llm.context_window import context_window
from jawad_desktop.core.llm.errors import ToolsRejectedError
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message
from jawad_desktop.core.tokens import counter_for
from jawad_desktop.core.tools.page import PageContext
from jawad_desktop.core.tools.registry import ToolRegistry

log = logging.getLogger("jawad.agent")


class ModelAsking(TurnEnding):
    """Prepare a request, ask the model, read its calls (mixed into ``AgentSession``)."""

    def _choose_mode(self, client: ChatClient) -> None:
        """This run's tool format: the settings', else what this model is known to need."""
        self._client_used = client
        self._model = model_key(client)
        chosen = self.settings.agent.tool_format
        known = self.facts.get(self._model).tool_format if self._model[2] else ""
        if chosen in ("xml", "json"):
            self.mode = chosen
        elif chosen == "auto" and known == "xml":
            self.mode = "xml"
        elif chosen == "auto" and known == "json":
            self.mode = "json"
        else:
            self.mode = "native"

    async def _size_for(self, client: ChatClient) -> None:
        """This run's budget, from the model's context window (learned once, then remembered)."""
        agent = self.settings.agent
        window = await context_window(client, self.facts)
        self.budget = ContextBudget.for_window(window.tokens, agent.max_tokens, agent.history_token_budget)
        self.history.token_budget = self.budget.history
        self.history.counter = counter_for(self._model[2])
        await asyncio.to_thread(self.history.counter.load)  # an encoding's file, read off the loop once
        log.debug("context window of %s: %d tokens (%s); budget %s", self._model[2] or "the model",
                  window.tokens, window.source, self.budget)

    def _system_message(self, page: PageContext | None, last_product: dict[str, Any] | None,
                        names: frozenset[str], offered: ToolRegistry) -> Message:
        """The system prompt of one request, in the current tool format and the run's budget;
        ``offered``: the tools this model is given (the text formats describe them in the prompt)."""
        return Message(
            role="system",
            content=build_system_prompt(
                offered,
                self.mode,
                page=page,
                last_product=last_product,
                previous_answer=clean_response(self.history.last_answer(), names),
                extra="\n\n".join(part for part in (self.system_extra, self._plan_note) if part),
                user_instructions=self.settings.agent.system_prompt,  # the user's own, from Settings
                memories=self._memories,
                # The budgets' characters as characters of this page (fewer where they cost more tokens).
                page_chars=self._chars_for(page.markdown if page else "", self.budget.page_chars),
                elements_chars=self._chars_for(page.interactive_elements if page else "",
                                               self.budget.elements_chars),
            ),
        )

    async def _ask_model(self, turn: Turn, client: ChatClient, tools: OfferedTools) -> Step:
        """One request: the page read into the system prompt, the history that fits, the tools in
        the format of the mode; a provider that rejects tools is asked again at once in text."""
        agent = self.settings.agent
        names, offered = tools.names, tools.offered
        page, last_product = await page_state(self.browser)
        system = self._system_message(page, last_product, names, offered)
        reserve = self.history.tokens([system]) + self.history.counter.count(str(tools.spec))
        messages = [system, *self.history.for_request(turn.pending, reserve_tokens=reserve)]
        native = self.mode == "native" and bool(tools.spec)
        tool_choice: dict[str, Any] | None = None
        forced = self.registry.get(turn.force_tool) if turn.force_tool and turn.iterations == 1 else None
        if native and forced is not None:
            tool_choice = {"type": "function", "function": {"name": forced.name}}
        # After an action the model has not looked at, its answer waits for the page's check.
        hold = turn.confirmation.due and turn.iterations < agent.max_iterations and CONFIRM_TOOL in self.registry
        try:
            response = await self._request(
                turn, client, messages, tools.spec if native else None, names, tool_choice=tool_choice, hold=hold,
            )
        except ToolsRejectedError:
            if not self._switch_mode("xml", "the provider does not accept native tool calls"):
                raise
            # Asked again at once in the text format, with its instructions and the tools'
            # schemas in the system prompt: a bare retry without tools could call none.
            system = self._system_message(page, last_product, names, offered)
            messages = [system, *self.history.for_request(turn.pending,
                                                          reserve_tokens=self.history.tokens([system]))]
            response = await self._request(turn, client, messages, None, names, hold=hold)
        if response.tool_calls and self.mode == "native":
            self._learn_format("native", "Native tool calls work (seen in a conversation).")
        if response.interrupted:
            raise asyncio.CancelledError
        return Step(page, response, hold)

    def _repair_calls(self, turn: Turn, step: Step, tools: OfferedTools) -> list[Any]:
        """The calls of the answer: native ones, else those written in its text (which switches
        the mode to text); ``step.clean`` is the answer's text without them."""
        response = step.response
        calls: list[Any] = list(response.tool_calls)
        reply = parse_text_reply(response.content, tools.names) if not calls else None
        if reply is not None and reply.calls:
            calls = list(reply.calls)
            if self.mode == "native":
                self._switch_mode("xml", "the model writes its tool calls as text")
        step.clean = clean_response(response.content, tools.names, reply)
        step.text_format = not response.tool_calls
        return calls

    async def _request(
        self,
        turn: Turn,
        client: ChatClient,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        names: frozenset[str],
        *,
        tool_choice: dict[str, Any] | None = None,
        hold: bool = False,
    ) -> ChatResponse:
        """One request, its text streamed as it comes; ``hold`` streams none of it (an answer that may
        be replaced after the page's check: ``_show_rest`` shows what stays)."""
        agent = self.settings.agent
        estimated = self.history.tokens(messages)
        stream = client.chat(
            messages,
            tools,
            stream=True,
            temperature=agent.temperature,
            max_tokens=self.budget.answer,  # the setting, within the model's window
            tool_choice=tool_choice,
        )
        sanitizer = StreamSanitizer(names)
        self._sanitizer = sanitizer
        separator_pending = bool(turn.shown_text())
        async for delta in stream:
            if not delta.text or hold:
                continue
            out = sanitizer.feed(delta.text)
            if out:
                if separator_pending:
                    out = "\n\n" + out
                    separator_pending = False
                self.bus.emit(ChatDelta(run_id=turn.run_id, text=out))
        response: ChatResponse = await stream.response()
        self.history.record_usage(estimated, response.usage.input_tokens)
        turn.usage_in += response.usage.input_tokens or 0
        turn.usage_out += response.usage.output_tokens or 0
        turn.spent.add(response, model_key(client), self.prices)
        warning = turn.spent.budget_warning(agent)
        if warning:
            self.bus.emit(Notice(level="warning", text=warning))
        calls_so_far = turn.llm_metadata.get("api_calls", 0), turn.llm_metadata.get("retries", 0)
        turn.llm_metadata = dict(response.metadata)
        for key, before in zip(("api_calls", "retries"), calls_so_far, strict=True):
            if isinstance(turn.llm_metadata.get(key), int):
                turn.llm_metadata[key] += before
        return response

    def _show_rest(self, turn: Turn, clean: str) -> None:
        """Emit what the stream held back, and remember this iteration's shown text."""
        sanitizer = self._sanitizer
        shown_before = sanitizer.shown
        rest = sanitizer.finish(clean)
        if rest:
            prefix = "\n\n" if not shown_before and turn.shown_text() else ""
            self.bus.emit(ChatDelta(run_id=turn.run_id, text=prefix + rest))
        if not clean.startswith(shown_before.rstrip()):
            log.debug("streamed text and cleaned reply differ; the final response carries the clean text")
        if clean.strip():
            turn.shown.append(clean)

    def _switch_mode(self, mode: ToolMode, why: str) -> bool:
        """Use ``mode`` from now on and remember it for the model; False when the settings fix
        the format (nothing changes)."""
        if self.settings.agent.tool_format != "auto":
            return False
        if self.mode == mode:
            return True
        log.info("switching to the %s tool format for %s: %s", mode, self._model[2] or "this model", why)
        self.mode = mode
        self._learn_format(mode, f"Uses the {mode.upper()} tool format: {why}.")
        self.bus.emit(
            Notice(
                level="info",
                text=f"This model does not use native tool calls ({why}); Jawad switched to its text tool format.",
            )
        )
        return True

    def _learn_format(self, mode: str, note: str) -> None:
        """Remember ``mode`` as the model's tool format (in the profile when the session has it)."""
        # Read again: a client learns its model and address with its first answer (the built-in
        # model's server, a provider whose model is picked from its list).
        self._model = model_key(self._client_used)
        if not self._model[2] or self.facts.get(self._model).tool_format == mode:
            return
        self.facts.learn(self._model, lambda facts: setattr(facts, "tool_format", mode), note=note)

    async def _agree_on_plan(self, turn: Turn, client: ChatClient, names: frozenset[str],
                             offered: ToolRegistry) -> events.ChatResponse | None:
        """Plan-first mode: the model's plan, approved by the user through the gate's round trip
        (``core.harbor.plan_approval``); the turn's end when it is not approved, else None (the run goes on
        with the plan in its system prompt, and the gate lets what is within it through)."""
        plans = getattr(self.gate, "plans", None)  # HarborGate's; a gate without one cannot ask
        if plans is None:
            raise JawadError("Plan-first mode cannot ask for the plan's approval here, so nothing was done.",
                             remedy=Remedy("plan-first"))
        page, last_product = await page_state(self.browser)
        system = self._system_message(page, last_product, names, offered)
        history = self.history.for_request([], reserve_tokens=self.history.tokens([system]))

        async def ask(messages: list[Message], tools: list[dict[str, Any]] | None,
                      choice: dict[str, Any] | None) -> ChatResponse:
            return await self._request(turn, client, messages, tools, names, tool_choice=choice, hold=True)

        try:
            plan = await ask_for_plan(ask, system, history, turn.user_text, native=self.mode == "native")
        except ToolsRejectedError:
            if not self._switch_mode("xml", "the provider does not accept native tool calls"):
                raise
            system = self._system_message(page, last_product, names, offered)
            plan = await ask_for_plan(ask, system, history, turn.user_text, native=False)
        answer = await plans.propose(plan, run_id=turn.run_id, request=turn.user_text)
        if answer.approved:
            self._plan_note = ("THE PLAN THE USER APPROVED for this request (stay within it; anything outside it "
                               "asks the user first):\n" + plan.describe())
            return None
        if answer.outcome == "rejected" and answer.asked:
            text = ("You rejected the plan, so nothing was done. Ask again with what to change (the sites, or "
                    "what to do there), or turn plan-first mode off.")
            turn.pending.append(Message(role="assistant", content=text))
            return self._finish(turn, text, metadata={"plan": answer.outcome})
        text = f"Nothing was done: {answer.reason}."
        turn.pending.append(Message(role="assistant", content=text))
        return self._finish(turn, text, is_error=True,
                            metadata={"plan": answer.outcome, **remedy_metadata(Remedy("plan-first"))})
