"""The Agent page of the Settings dialog: how the agent works through a message.

The step limit (``AgentSettings.max_iterations``: model answers and tool rounds in one turn),
the tool-call format, the temperature, the longest answer, plan-first mode (the agent proposes
the sites and the kinds of actions it will use, and waits for the user's approval before
acting: ``core.agent.plan_first``), whether the document library is searched by meaning with
the provider's embeddings (only a model on this computer by default), and the user's own standing
instructions, which the agent puts into its system prompt after the app's rules
(``core.agent.prompts``). Each setting says what it does under it (and in its tool tip).

Like the other pages it saves as changes are made; the instructions are saved a moment after
the typing stops, and when the page hides. The agent reads the settings at each turn, so the
next message uses them.
"""

from __future__ import annotations

import logging

from pydantic import ValidationError
from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QHideEvent
from PySide6.QtWidgets import QCheckBox, QFormLayout, QPlainTextEdit, QVBoxLayout, QWidget

from jawad_desktop.core.config.settings import SYSTEM_PROMPT_MAX_CHARS
from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.look.controls import (
    Field,
    add_explained_rows,
    combo,
    decimal_number,
    on_change,
    set_status,
    show_values,
    status_line,
    validation_message,
    values_of,
    whole_number,
)

log = logging.getLogger("jawad.ui.settings")

TOOL_FORMATS = (
    ("Automatic: native, or text for a model that needs it", "auto"),
    ("Native function calling", "native"),
    ("XML tags in the text (spec 000)", "xml"),
    ("JSON objects in the text (spec 004)", "json"),
)
LIBRARY_EMBEDDINGS = (
    ("Only with a model on this computer", "local"),
    ("With any provider (sends your documents' text to it)", "any"),
    ("Never: words only", "off"),
)
EXPLAINED = {  # what each setting does, under it and in its tool tip
    "max_steps": "How many steps (a model answer, then its tool calls) one message may take. When they run out, "
                 "Jawad stops and says what it has done so far.",
    "tool_format": "How the model asks for tools. Automatic uses the provider's function calling and switches to "
                   "text for a model that turns it down; choose XML or JSON for a model that calls tools badly.",
    "temperature": "How varied the answers are: 0 always gives the likeliest words, higher is more inventive.",
    "max_tokens": "The longest answer the model may write in one step (a token is about three quarters of a word).",
    "max_run_tokens": "The most tokens (sent and received) one message may use over all its steps; Jawad stops "
                      "when it is spent and says what it has done. 0 is no limit.",
    "max_run_cost": "The most one message may cost, estimated from the price table (prices.json in the config "
                    "folder); a model whose price is unknown is not held to it, and you are told. 0 is no limit.",
    "library_embeddings": "Besides their words, your document library can be searched by meaning with the "
                          "provider's embeddings. That sends the text of every indexed page to the provider (and "
                          "may cost): by default only a model running on this computer does it.",
    "plan_first": "Before acting, Jawad shows the sites it will use and the kinds of actions (read, navigate, click "
                  "and type, submit, download) for your approval; within the approved plan it does not ask again, "
                  "and anything outside it asks. Purchases and data sent to another site always ask.",
    "instructions": "Standing instructions for every conversation, given to the model after Jawad's own rules: "
                    "your language, tone, or facts about you. Leave empty for none.",
}
SAVE_DELAY_MS = 600  # the instructions are saved once the typing pauses this long


class AgentPage(QWidget):
    """Settings → Agent."""

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._loading = True

        self.max_steps = whole_number("Step limit", self, 1, 50)
        self.tool_format = combo("Tool format", self, TOOL_FORMATS)
        self.temperature = decimal_number("Temperature", self, 0.0, 2.0)
        self.max_tokens = whole_number("Maximum output tokens", self, 16, 200_000, step=256)
        self.max_run_tokens = whole_number("Token budget of a request", self, 0, 100_000_000, step=10_000,
                                           special="No limit")
        self.max_run_cost = decimal_number("Cost budget of a request, in US dollars", self, 0.0, 1000.0,
                                           step=0.05, prefix="$", special="No limit")
        self.library_embeddings = combo("Search documents by meaning", self, LIBRARY_EMBEDDINGS)
        self.plan_first = QCheckBox("Show me a plan before acting", self)
        self.plan_first.setAccessibleName("Plan first: show me a plan before acting")
        self.instructions = QPlainTextEdit(self)
        self.instructions.setAccessibleName("Your instructions for every conversation")
        self.instructions.setPlaceholderText("e.g. Answer in French. Keep answers short. I live in Lyon.")
        self.instructions.setTabChangesFocus(True)  # Tab leaves the field, as in a form
        self.status = status_line("Agent settings status", self)
        self._save_later = QTimer(self)
        self._save_later.setSingleShot(True)
        self._save_later.setInterval(SAVE_DELAY_MS)
        self._save_later.timeout.connect(self.save)

        form = QFormLayout()
        add_explained_rows(form, self, (
            ("&Step limit", self.max_steps, EXPLAINED["max_steps"]),
            ("Tool &format", self.tool_format, EXPLAINED["tool_format"]),
            ("T&emperature", self.temperature, EXPLAINED["temperature"]),
            ("Max output &tokens", self.max_tokens, EXPLAINED["max_tokens"]),
            ("Token &budget", self.max_run_tokens, EXPLAINED["max_run_tokens"]),
            ("C&ost budget", self.max_run_cost, EXPLAINED["max_run_cost"]),
            ("Documents by &meaning", self.library_embeddings, EXPLAINED["library_embeddings"]),
            ("&Plan first", self.plan_first, EXPLAINED["plan_first"]),
            ("Your &instructions", self.instructions, EXPLAINED["instructions"]),
        ))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)

        self.load()
        on_change([field for name, field in self._fields().items() if name != "system_prompt"], self.save)
        self.instructions.textChanged.connect(self._save_later.start)

    def _fields(self) -> dict[str, Field]:
        """The page's controls, by the agent setting each holds."""
        return {"max_iterations": self.max_steps, "tool_format": self.tool_format, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "max_run_tokens": self.max_run_tokens,
                "max_run_cost_usd": self.max_run_cost, "system_prompt": self.instructions,
                "plan_first": self.plan_first, "library_embeddings": self.library_embeddings}

    def load(self) -> None:
        """Show the saved settings."""
        self._loading = True
        show_values(self._fields(), self.ctx.settings.agent)
        self._loading = False

    def save(self) -> bool:
        """Save the page's settings; a value the settings refuse is shown and not saved."""
        self._save_later.stop()
        if self._loading:
            return True
        agent = self.ctx.settings.agent
        values = values_of(self._fields())
        prompt = str(values["system_prompt"])
        if len(prompt) > SYSTEM_PROMPT_MAX_CHARS:
            set_status(self.status, f"Your instructions are {len(prompt):,} characters long; "
                                    f"keep them under {SYSTEM_PROMPT_MAX_CHARS:,}. They were not saved.", error=True)
            return False
        if all(getattr(agent, name) == value for name, value in values.items()):
            return True
        try:
            # Validated as a whole first: one bad value leaves the saved settings as they were.
            updated = agent.model_validate({**agent.model_dump(), **values})
        except ValidationError as exc:
            set_status(self.status, validation_message(exc), error=True)
            return False
        self.ctx.settings.agent = updated
        self.ctx.save_settings()
        self.status.clear()
        log.info("agent settings saved (step limit %d, tool format %s, instructions: %d characters)",
                 updated.max_iterations, updated.tool_format, len(updated.system_prompt))
        self.changed.emit()
        return True

    def hideEvent(self, event: QHideEvent) -> None:
        if self._save_later.isActive():  # typed just before the page was left
            self.save()
        super().hideEvent(event)
