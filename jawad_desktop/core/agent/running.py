"""The agent loop's acting phases (``core.agent.session``): the run's budget checked and the calls
validated, each call run (permission through the gate, the tool, the action log, the model's share
of its result), the page confirmed before a held answer, and the round recorded in the turn (the
turn ends when a call repeats with the same result, or the calls keep failing validation)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

from jawad_desktop.core import events
from jawad_desktop.core.agent.confirm import CONFIRM_TOOL, confirmation_message
from jawad_desktop.core.agent.ending import TurnEnding
from jawad_desktop.core.agent.loop_guard import Repeated
from jawad_desktop.core.agent.prompts import ToolMode, tool_results_message
from jawad_desktop.core.agent.step_words import describe_step
from jawad_desktop.core.agent.toolcalls import CheckedCall, RepairedCall, arguments_for_display, check_call, check_calls
from jawad_desktop.core.agent.turn import Step, Turn, from_page, remedy_metadata
from jawad_desktop.core.errors import Remedy
from jawad_desktop.core.events import ActionLogEntry, AgentStep
from jawad_desktop.core.harbor.gate import GateDecision, PermissionCheck
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.messages import Message
from jawad_desktop.core.tools.page import PageContext
from jawad_desktop.core.tools.registry import ToolResult
from jawad_desktop.core.tools.tool_context import ToolContext

log = logging.getLogger("jawad.agent")


class ToolRunning(TurnEnding):
    """Check, run and record the model's calls (mixed into ``AgentSession``)."""

    def _check(self, turn: Turn, calls: list[Any]) -> list[CheckedCall] | events.ChatResponse:
        """The run's budget before any call of the request that crossed it, then each call
        repaired and validated against its tool's schema."""
        over = turn.spent.exceeded(self.settings.agent)
        if over is not None:
            return self._finish(turn, self._with_shown(turn, over[1]), is_error=True,
                                metadata={"budget_exceeded": over[0], **remedy_metadata(Remedy("agent"))})
        return check_calls(calls, self.registry)

    async def _execute(self, turn: Turn, item: CheckedCall, page: PageContext | None) -> str:
        """Permission, run, action log; returns the text the model gets for this call."""
        turn.tool_calls += 1
        ctx, entry = self._call_context(turn, item, page)
        if not item.ok or item.tool is None or item.args is None:
            feedback = item.feedback()
            self._log(dataclasses.replace(entry, decision="invalid", result="error", details=feedback))
            return feedback
        tool, args = item.tool, item.args
        level = tool.permission_level(args)
        site = tool.site_for(ctx, args)
        entry = dataclasses.replace(entry, site=site, permission_level=level.value)
        self._log(entry)
        decision = await self._permission(turn, item, entry, level, page)
        if decision.stop_run:
            turn.deny_all = True
        if not decision.allowed:
            reason = decision.reason or "permission was denied"
            self._log(dataclasses.replace(entry, decision="denied", result="denied", details=reason))
            where = f" on {site}" if site else ""
            return (
                f"Permission denied: {tool.name}{where} was not run because {reason}. "
                "Do not try this action again; tell the user what you could not do."
            )
        self._log(dataclasses.replace(entry, decision=decision.decision))
        result = await self._run_tool(turn, item, ctx, dataclasses.replace(entry, decision=decision.decision))
        text = result.for_model
        record = getattr(self.gate, "record_result", None)  # the data-flow record (HarborGate's)
        if record is not None and result.ok:
            record(site or ctx.site, text)
        # The model's share, as characters of this text; tools that can shorten have done so.
        limit = self._chars_for(text, self.budget.tool_result_chars)
        if len(text) > limit:
            text = text[:limit] + f"\n[... {len(text) - limit} more characters cut]"
        return text

    def _call_context(self, turn: Turn, item: CheckedCall,
                      page: PageContext | None) -> tuple[ToolContext, ActionLogEntry]:
        """The context the call's tool runs with, and its action-log entry (pending)."""
        ctx = ToolContext(
            settings=self.settings,
            bus=self.bus,
            secrets=self.secrets,
            browser=self.browser,
            run_id=turn.run_id,
            call_id=item.call.id,
            site=page.site if page is not None else "",
            result_chars=self.budget.tool_result_chars,
            tokens=self.history.counter,
            extras=dict(self.extras),
        )
        entry = ActionLogEntry(
            id=events.new_id("log"),
            timestamp=events.now_ms(),
            tool_name=item.display_name,
            parameters=arguments_for_display(item.call),
            site=ctx.site,
            permission_level=item.tool.level.value if item.tool is not None else "",
            decision="pending",
            result="pending",
            run_id=turn.run_id,
            call_id=item.call.id,
        )
        return ctx, entry

    async def _permission(self, turn: Turn, item: CheckedCall, entry: ActionLogEntry, level: PermissionLevel,
                          page: PageContext | None) -> GateDecision:
        """The gate's decision on a valid call (``entry`` holds its site and level); denied without
        asking once the user denied every further action of this request."""
        if turn.deny_all:
            return GateDecision.denied("the user denied every further action of this request")
        assert item.tool is not None
        request = self.extras.get("user_request")
        check = PermissionCheck(
            tool=item.tool.name,
            call_id=item.call.id,
            arguments=entry.parameters,
            level=level,
            site=entry.site,
            current_site=page.site if page is not None else "",
            run_id=turn.run_id,
            from_page_content=from_page(entry.parameters, turn.user_text, page),
            user_texts=(turn.user_text, *([request] if isinstance(request, str) and request else [])),
        )
        try:
            return await self.gate.check(check)
        except asyncio.CancelledError:  # Stop while the user was being asked
            self._log(dataclasses.replace(entry, decision="denied", result="error", details="stopped by the user"))
            raise

    async def _run_tool(self, turn: Turn, item: CheckedCall, ctx: ToolContext, entry: ActionLogEntry) -> ToolResult:
        """Run an allowed call's tool (``entry`` holds the decision): the step shown, the result logged,
        its images kept for the result's message."""
        assert item.tool is not None and item.args is not None
        tool = item.tool
        reading = getattr(self.browser, "last_reading", None)  # the listing the model's [n] refers to
        listed = reading.elements if reading is not None else ()
        self.bus.emit(AgentStep(turn.run_id, "tool", turn.iterations, self.settings.agent.max_iterations,
                                tool_name=tool.name, doing=describe_step(tool.name, entry.parameters, listed)))
        try:
            result = await tool.run(ctx, item.args)
            turn.confirmation.saw(changed_page=result.ok and result.changed_page,
                                  observed_page=result.ok and result.observed_page)
        except asyncio.CancelledError:
            self._log(dataclasses.replace(entry, result="error", details="stopped by the user"))
            raise
        self._log(dataclasses.replace(entry, result="success" if result.ok else "error", details=result.for_log))
        if result.images:
            self._images[item.call.id] = list(result.images)
        if result.audio:
            self._audio[item.call.id] = list(result.audio)
        return result

    async def _confirm_page(self, turn: Turn, draft: str, page: PageContext | None) -> bool:
        """Read the page once with the registry's read_page and give it to the model in place of its
        draft answer (``core.agent.confirm``); False when the page could not be read (the draft stands)."""
        turn.confirmation.done = True
        item = check_call(RepairedCall(index=0, id=events.new_id("call"), name=CONFIRM_TOOL, arguments={}),
                          self.registry)
        if not item.ok:
            return False
        reading = await self._execute(turn, item, page)
        if turn.confirmation.changed:  # read_page failed or was refused
            return False
        turn.pending.append(Message(role="assistant", content=draft))
        turn.pending.append(Message(role="user", content=confirmation_message(reading)))
        return True

    @staticmethod
    def _repeated(turn: Turn, checked: list[CheckedCall], results: list[str]) -> Repeated | None:
        """The call of this round the model has now made with the same result too often, if any."""
        for item, result in zip(checked, results, strict=True):
            if item.ok and item.tool is not None:
                repeated = turn.repeats.note(item.tool.name, arguments_for_display(item.call), result)
                if repeated is not None:
                    return repeated
        return None

    def _record_round(self, turn: Turn, step: Step, checked: list[CheckedCall],
                      results: list[Any]) -> events.ChatResponse | None:
        """The round into the turn's messages; the turn's end when the same call keeps bringing
        the same result, or the model keeps sending calls that cannot run."""
        self._append_round(turn, step.response.content, checked, results, step.text_format)
        repeated = self._repeated(turn, checked, results)
        if repeated is not None:
            return self._finish(turn, self._with_shown(turn, repeated.message()), is_error=True,
                                metadata={"repeated_action": repeated.tool})
        if any(item.ok for item in checked):
            turn.invalid_rounds = 0
            return None
        turn.invalid_rounds += 1
        if turn.invalid_rounds <= self.settings.agent.max_tool_retries:
            return None
        problems = "; ".join(p for item in checked for p in item.problems)
        return self._finish(
            turn,
            self._with_shown(turn, f"The model kept sending tool calls that cannot run ({problems}). "
                                   "Try rephrasing the request, or choose a more capable model."),
            is_error=True,
            metadata=remedy_metadata(self._model_remedy()),
        )

    def _append_round(
        self, turn: Turn, content: str, checked: list[CheckedCall], results: list[str], text_format: bool
    ) -> None:
        images = {item.call.id: self._images.pop(item.call.id, []) for item in checked}
        audio = {item.call.id: self._audio.pop(item.call.id, []) for item in checked}
        if any(images.values()):
            # Only the newest screenshots go with each request: older ones are words by now.
            for message in turn.pending:
                if message.images:
                    message.images = []
                    message.content += "\n[an earlier screenshot, no longer shown]"
        if any(audio.values()):  # likewise the newest sounds
            for message in turn.pending:
                if message.audio:
                    message.audio = []
                    message.content += "\n[an earlier sound, no longer sent]"
        if text_format:
            turn.pending.append(Message(role="assistant", content=content))
            pairs = [(item.display_name, result) for item, result in zip(checked, results, strict=True)]
            mode: ToolMode = "json" if self.mode == "json" else "xml"
            turn.pending.append(Message(role="user", content=tool_results_message(pairs, mode),
                                        images=[image for shots in images.values() for image in shots],
                                        audio=[sound for sounds in audio.values() for sound in sounds]))
            return
        turn.pending.append(
            Message(role="assistant", content=content, tool_calls=[item.call.to_tool_call() for item in checked])
        )
        for item, result in zip(checked, results, strict=True):
            turn.pending.append(Message(role="tool", content=result, tool_call_id=item.call.id, name=item.display_name,
                                        images=images[item.call.id], audio=audio[item.call.id]))
