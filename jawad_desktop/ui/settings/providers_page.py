"""Settings → Providers: the providers Jawad talks to, with their keys in the keyring.

Invalid input is shown inline and not saved. API keys go straight to the keyring and are never
put in the settings file. The page is a ``ListFormPage`` (``ui.settings.list_form``), like the
MCP servers page. ``connection_hooks(ctx)`` gives it Test connection and Fetch models on the
network settings.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QLineEdit,
    QToolButton,
    QWidget,
)

from jawad_desktop.core.config.environment import key_in_environment
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.factory import provider_key
from jawad_desktop.core.llm.local_models import models_folder, resolve_model_file
from jawad_desktop.core.store.secrets import provider_key_name
from jawad_desktop.ui.look.controls import (
    add_rows,
    button,
    combo,
    field_row,
    line_edit,
    row_of,
    status_line,
    validation_message,
    whole_number,
)
from jawad_desktop.ui.settings.list_form import Entry, ListFormPage, PageWords

log = logging.getLogger("jawad.ui.settings")

Tester = Callable[[ProviderConfig, str | None], Coroutine[Any, Any, tuple[bool, str]]]
ModelLister = Callable[[ProviderConfig, str | None], Coroutine[Any, Any, list[str]]]

# The model a new provider of each kind starts with (the user can fetch the list).
_FIRST_MODEL = {ProviderKind.OPENAI: "gpt-4o-mini",
                ProviderKind.OPENROUTER: "openai/gpt-4o-mini", ProviderKind.OPENAI_RESPONSES: "gpt-4o-mini",
                ProviderKind.ANTHROPIC: "claude-sonnet-4-5", ProviderKind.GEMINI: "gemini-2.5-flash"}
_NO_MODEL = "Enter the model to use (you can fetch the list)"
_REASONING = (("Model default", ""), ("None", "none"), ("Low", "low"), ("Medium", "medium"), ("High", "high"))


class ProvidersPage(ListFormPage[ProviderConfig]):
    """List, add, edit and remove providers. Keys are masked, with show/hide.

    ``tester`` backs "Test connection" and ``model_lister`` "Fetch models"; without them the
    buttons are hidden (the window passes both). "Test tool calling" (``core.agent.probe``)
    learns how the model calls tools, "Test image input" (``core.llm.vision_probe``) whether it
    sees images; below them, what was learned about the model
    (``ui.settings.learned_facts``) and "Forget what was learned".
    """

    WORDS = PageWords(
        noun="provider", new_name="OpenAI", list_name="Configured providers", add_name="Add a provider",
        remove_name="Remove the selected provider", name_field="Provider name", test_text="Test connection",
        test_name="Test the connection to this provider", save_text="Save provider",
        save_name="Save this provider", status_name="Provider status",
    )

    def __init__(
        self,
        ctx: AppContext,
        *,
        tester: Tester | None = None,
        model_lister: ModelLister | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(self.WORDS, ctx.bus, parent)
        self.ctx = ctx
        self._tester = tester
        self._model_lister = model_lister

        self._build_fields()
        self._build_learned()
        self._lay_out()
        self._connect()
        self.test_button.setVisible(tester is not None)
        self.models_button.setVisible(model_lister is not None)
        self._kind_changed()
        self.refresh()
        if not ctx.secrets.available:
            self.show_status(ctx.secrets.problem, error=True)
            self.session_button.show()

    def _build_fields(self) -> None:
        self.active_button = button("Use this provider", "Make the selected provider the active one", self)
        self.kind = combo("Provider kind", self, ((kind.label, kind) for kind in ProviderKind))
        self.base_url = line_edit("Base URL", self)
        self.model = combo("Model", self)
        self.model.setEditable(True)
        self.models_button = button("Fetch models", "Fetch the provider's model list", self)
        self.reasoning = combo("Reasoning level", self, _REASONING)
        self.reasoning.setToolTip("How much the model thinks before answering, where it supports it "
                                  "(OpenAI reasoning models, Anthropic, Gemini, Ollama thinking models)")
        self.embedding_model = line_edit("Embedding model", self,
                                         tooltip="The model that indexes conversations for semantic search")
        self.region = line_edit("AWS region", self, hint="AWS_REGION, else us-east-1")
        self.aws_profile = line_edit(
            "AWS profile", self, hint="credentials from the environment",
            tooltip="A profile in ~/.aws/credentials; empty: AWS_ACCESS_KEY_ID and "
                    "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) from the environment")
        self.api_key = line_edit("API key", self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.show_key = QToolButton(self)
        self.show_key.setText("Show")
        self.show_key.setCheckable(True)
        self.show_key.setAccessibleName("Show or hide the API key")
        self.session_button = button("Keep keys for this session only", "Keep API keys in memory until Jawad quits",
                                     self)
        self.session_button.hide()
        # 0: from the provider or the model's family
        self.context_window = whole_number("Context window", self, 0, 10_000_000, step=1024, suffix=" tokens",
                                           special="Automatic",
                                           tooltip="How many tokens the model reads at once. Automatic: what the "
                                                   "provider says, else what is known of the model's family")

    def _build_learned(self) -> None:
        self.tools_button = button("Test tool calling", "Test how this provider's model calls tools", self)
        self.vision_button = button("Test image input", "Test whether this provider's model sees images", self)
        self.forget_button = button("Forget what was learned", "Forget what Jawad learned about this model", self)
        self.learned = status_line("What Jawad learned about this model", self)

    def _lay_out(self) -> None:
        self.left.addWidget(self.active_button)
        add_rows(self.form, (
            ("&Kind", self.kind), ("Base &URL", self.base_url), ("&Model", field_row(self.model, self.models_button)),
            ("&Reasoning", self.reasoning), ("&Embedding model", self.embedding_model),
            ("AWS re&gion", self.region), ("AWS pro&file", self.aws_profile),
            ("API &key", field_row(self.api_key, self.show_key)), ("Con&text window", self.context_window),
        ))
        for bedrock_only in (self.region, self.aws_profile):  # shown for Bedrock only (_kind_changed)
            bedrock_only.setEnabled(False)
            self.form.setRowVisible(bedrock_only, False)
        learned_row = row_of(self.tools_button, self.vision_button)
        learned_row.addWidget(self.forget_button)
        self.right.addLayout(learned_row)
        self.right.addWidget(self.learned)
        self.right.addWidget(self.session_button)
        self.right.addStretch(1)

    def _connect(self) -> None:
        self.active_button.clicked.connect(self.make_active)
        self._kind_before: ProviderKind | None = None
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.show_key.toggled.connect(self._toggle_key)
        self.session_button.clicked.connect(self._use_session_memory)
        self.models_button.clicked.connect(self._fetch_models)
        self.tools_button.clicked.connect(self.test_tools)
        self.vision_button.clicked.connect(self.test_vision)
        self.forget_button.clicked.connect(self.forget_learned)

    # -- the entries (ListFormPage) ----------------------------------------------------------
    def entries(self) -> list[Entry]:
        active = self.ctx.settings.active()
        return [Entry(p.name, p.name + ("  (active)" if active and active.name == p.name else ""))
                for p in self.ctx.settings.providers]

    def entry_named(self, name: str) -> ProviderConfig | None:
        return self.ctx.settings.provider(name)

    def fill_form(self, entry: ProviderConfig) -> None:
        self.kind.setCurrentIndex(self.kind.findData(entry.kind))
        self.base_url.setText(entry.base_url)
        self.model.setEditText(entry.model)
        self.reasoning.setCurrentIndex(max(0, self.reasoning.findData(entry.reasoning)))
        self.embedding_model.setText(entry.embedding_model)
        self.region.setText(entry.region)
        self.aws_profile.setText(entry.profile)
        self.context_window.setValue(entry.context_window)
        self.show_learned(entry)
        self.api_key.clear()
        try:
            has_key = bool(self.ctx.secrets.get(provider_key_name(entry.name)))
        except JawadError:
            has_key = False
        self.api_key.setPlaceholderText("A key is stored in the keyring" if has_key
                                        else self._no_key_text(entry.kind, "No key stored"))

    def clear_form(self) -> None:
        self.kind.setCurrentIndex(self.kind.findData(ProviderKind.OPENAI))
        self.model.setEditText(_FIRST_MODEL[ProviderKind.OPENAI])
        self.reasoning.setCurrentIndex(0)
        self.context_window.setValue(0)
        self.learned.setText("")
        for field in (self.base_url, self.embedding_model, self.region, self.aws_profile, self.api_key):
            field.clear()
        self.api_key.setPlaceholderText(self._no_key_text(ProviderKind.OPENAI, "Paste your API key"))

    @staticmethod
    def _no_key_text(kind: ProviderKind, otherwise: str) -> str:
        """What the empty key field says: the environment's key in use, if there is one."""
        found = key_in_environment(kind)
        if found is None:
            return otherwise
        return f"Using {found[0]} from the environment (type a key to store one in the keyring)"

    new_provider = ListFormPage.new_entry  # the Add button, in the page's words

    def _kind_changed(self) -> None:
        from jawad_desktop.core.llm.embeddings import DEFAULT_EMBEDDING_MODELS, supports_embeddings

        kind = ProviderKind(self.kind.currentData())
        previous, self._kind_before = self._kind_before, kind
        # The model that came with the kind before is not one this kind's server offers.
        if previous is not None and previous != kind and self.model.currentText().strip() in (
                "", _FIRST_MODEL.get(previous, "")):
            self.model.setEditText(_FIRST_MODEL.get(kind, ""))
        self.base_url.setPlaceholderText(kind.default_base_url or "(started by Jawad)")
        if self.editing is None:
            self.api_key.setPlaceholderText(self._no_key_text(kind, "Paste your API key"))
        self.api_key.setEnabled(kind not in (ProviderKind.LOCAL, ProviderKind.BEDROCK))
        bedrock = kind is ProviderKind.BEDROCK
        for field in (self.region, self.aws_profile):
            field.setEnabled(bedrock)
            self.form.setRowVisible(field, bedrock)
        # A new provider still named after the default kind is renamed after the chosen one.
        if self.editing is None and kind != ProviderKind.OPENAI and self.name.text().startswith("OpenAI"):
            self.name.setText(self.free_name(kind.label.split()[0]))
        self.embedding_model.setEnabled(supports_embeddings(kind))
        self.embedding_model.setPlaceholderText(
            DEFAULT_EMBEDDING_MODELS.get(kind, "") if supports_embeddings(kind) else "(no embeddings API)")

    def _toggle_key(self, shown: bool) -> None:
        self.api_key.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_key.setText("Hide" if shown else "Show")

    # -- saving ------------------------------------------------------------------------------
    def form_config(self) -> ProviderConfig:
        """The provider in the form; raises ValueError with a message for the user."""
        try:
            config = ProviderConfig(
                name=self.name.text(),
                kind=ProviderKind(self.kind.currentData()),
                base_url=self.base_url.text(),
                model=self.model.currentText().strip(),
                reasoning=str(self.reasoning.currentData() or ""),
                embedding_model=self.embedding_model.text().strip(),
                region=self.region.text().strip(),
                profile=self.aws_profile.text().strip(),
                context_window=self.context_window.value(),
            )
        except ValidationError as exc:
            raise ValueError(validation_message(exc)) from None
        self.check_name_free(config.name)
        if not config.model and config.kind != ProviderKind.LOCAL:
            raise ValueError(_NO_MODEL)
        return config

    def _checked_config(self, *, for_model_list: bool = False) -> ProviderConfig | None:
        """The provider in the form, or None after showing what is wrong. The model list is
        fetched to choose the model, so for it a form without a model will do."""
        try:
            return self.form_config()
        except ValueError as exc:
            if for_model_list and str(exc) == _NO_MODEL:
                return ProviderConfig(name=self.name.text(), kind=ProviderKind(self.kind.currentData()),
                                      base_url=self.base_url.text())
            self.show_status(str(exc), error=True)
            return None

    def store(self) -> tuple[str, str]:
        """Save the provider in the form; the key goes to the keyring (moved with a rename)."""
        config = self.form_config()
        key = self.api_key.text().strip()
        old_name = self.editing
        config = config.keeping_model_file(self.entry_named(old_name) if old_name else None)
        config = resolve_model_file(config, models_folder(self.ctx.paths.data))  # a catalog name typed
        try:
            if key:
                self.ctx.secrets.set(provider_key_name(config.name), key)
            elif old_name and old_name != config.name:
                moved = self.ctx.secrets.get(provider_key_name(old_name))
                if moved:
                    self.ctx.secrets.set(provider_key_name(config.name), moved)
            if old_name and old_name != config.name:
                self.ctx.secrets.delete(provider_key_name(old_name))
        except JawadError:
            self.session_button.show()  # no keyring: offer to keep keys in memory instead
            raise
        providers = [p for p in self.ctx.settings.providers if old_name is None or p.name != old_name]
        index = next(
            (i for i, p in enumerate(self.ctx.settings.providers) if p.name == old_name), len(providers)
        )
        providers.insert(index, config)
        self.ctx.settings.providers = providers
        if not self.ctx.settings.active_provider or self.ctx.settings.active_provider == old_name:
            self.ctx.settings.active_provider = config.name
        self.ctx.save_settings()
        self.api_key.clear()
        saved = f"Saved {config.name}." + (" The key is in your system keyring." if key else "")
        if self.ctx.settings.active_provider != config.name:  # a second provider is not the one in use
            saved += (f" Jawad still answers with {self.ctx.settings.active_provider}: press “Use this provider”"
                      " (or choose it above the chat) to switch.")
        return config.name, saved

    def delete(self, name: str) -> str:
        self.ctx.secrets.delete(provider_key_name(name))
        self.ctx.settings.providers = [p for p in self.ctx.settings.providers if p.name != name]
        if self.ctx.settings.active_provider == name:
            self.ctx.settings.active_provider = (
                self.ctx.settings.providers[0].name if self.ctx.settings.providers else ""
            )
        self.ctx.save_settings()
        return f"Removed {name} and its key."

    def make_active(self) -> None:
        name = self.selected_name()
        if name is None:
            return
        self.ctx.settings.active_provider = name
        self.ctx.save_settings()
        self.refresh(select=name)
        self.changed.emit()

    def _use_session_memory(self) -> None:
        self.ctx.secrets.use_session_memory()
        self.session_button.hide()
        self.show_status("Keys will be kept in memory until you quit Jawad. Save the provider again.")

    # -- Test connection and the model list --------------------------------------------------
    def _key_for_test(self, config: ProviderConfig) -> str | None:
        typed = self.api_key.text().strip()
        if typed:
            return typed
        try:  # the saved key (under the name being edited), else the environment's
            return provider_key(self.ctx.secrets, config.model_copy(update={"name": self.editing or config.name})).key
        except JawadError:
            return None

    def run_test(self) -> None:
        if self._tester is None or (config := self._checked_config()) is None:
            return

        def show(result: tuple[bool, str]) -> None:
            ok, message = result
            self.show_status(message, error=not ok)

        self.run_busy(self.test_button, self._tester(config, self._key_for_test(config)),
                      what=f"testing the connection to {config.name}", busy_text=f"Testing {config.name}…",
                      on_done=show)

    def _fetch_models(self) -> None:
        if self._model_lister is None or (config := self._checked_config(for_model_list=True)) is None:
            return

        def fill(models: list[str]) -> None:
            current = self.model.currentText()
            self.model.clear()
            self.model.addItems(models)
            self.model.setEditText(current or (models[0] if models else ""))
            self.show_status(f"{len(models)} models available. You can also type a model the list lacks.")

        self.run_busy(self.models_button, self._model_lister(config, self._key_for_test(config)),
                      what="fetching the model list", busy_text="Fetching the model list…", on_done=fill)

    # -- tool calling and what was learned ---------------------------------------------------
    def test_tools(self) -> None:
        """Test tool calling: how the model in the form calls tools (native, XML, JSON or not at
        all), learned for the agent; the result on the status line."""
        if (config := self._checked_config()) is None:
            return
        from jawad_desktop.core.agent.probe import ProbeResult, probe_tool_format

        def show(result: ProbeResult) -> None:
            self.show_status(result.summary, error=not result.works)
            self.show_learned(config)

        work = probe_tool_format(config, self._key_for_test(config), self.ctx.settings.network, self.ctx.model_facts)
        self.run_busy(self.tools_button, work, what=f"testing tool calling on {config.name}",
                      busy_text=f"Testing how {config.model or config.name} calls tools…", on_done=show)

    def test_vision(self) -> None:
        """Test image input: whether the model in the form sees images (a small red picture),
        learned for the agent's ``look``; the result on the status line."""
        if (config := self._checked_config()) is None:
            return
        from jawad_desktop.core.llm.vision_probe import VisionResult, probe_vision

        def show(result: VisionResult) -> None:
            self.show_status(result.summary, error=not result.works)
            self.show_learned(config)

        work = probe_vision(config, self._key_for_test(config), self.ctx.settings.network, self.ctx.model_facts)
        self.run_busy(self.vision_button, work, what=f"testing image input on {config.name}",
                      busy_text=f"Testing whether {config.model or config.name} sees images…", on_done=show)

    def show_learned(self, config: ProviderConfig | None = None) -> None:
        """Show what was learned about the model of ``config`` (default: the form's)."""
        from jawad_desktop.ui.settings.learned_facts import learned_text

        if config is None and (config := self._checked_config()) is None:
            return
        self.learned.setText(learned_text(self.ctx.model_facts, config))

    def forget_learned(self) -> None:
        """Forget what was learned about the form's model; the next request learns again."""
        from jawad_desktop.ui.settings.learned_facts import forget_learned

        if (config := self._checked_config()) is None:
            return
        count = forget_learned(self.ctx.model_facts, config)
        self.show_learned(config)
        self.show_status(f"Forgot what was learned about {config.model or config.name}; the next request "
                         "learns again." if count else "Nothing was learned about this model yet.")


def connection_hooks(ctx: AppContext) -> dict[str, Any]:
    """Test connection and the model list, for the Providers page, on the network settings."""
    from jawad_desktop.core.errors import Remedy
    from jawad_desktop.core.llm.connection import list_models, test_connection
    from jawad_desktop.ui.base.remedies import with_remedy

    async def tester(provider: ProviderConfig, key: str | None) -> tuple[bool, str]:
        result = await test_connection(provider, key, ctx.settings.network)
        if result.success:
            return True, f"Connected to {provider.name} in {result.latency_ms:.0f} ms."
        return False, with_remedy(result.error, Remedy.from_json(result.remedy))

    async def lister(provider: ProviderConfig, key: str | None) -> list[str]:
        return await list_models(provider, key, ctx.settings.network)

    return {"tester": tester, "model_lister": lister}
