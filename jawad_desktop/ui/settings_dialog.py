"""The Settings dialog: Providers (with keys in the keyring), Appearance, and pages that other
parts of the app add (voice, site permissions).

It is opened with ``open()`` and reports through signals; it never runs a nested event loop
(``exec()`` inside a coroutine breaks qasync, PLATFORM.md). Invalid input is shown inline and
not saved. API keys go straight to the keyring and are never put in the settings file.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.config import ProviderConfig, ProviderKind
from jawad_desktop.core.store.secrets import provider_key_name

log = logging.getLogger("jawad.ui.settings")

ERROR_STYLE = "color: #c01c28;"
OK_STYLE = "color: #26a269;"


def validation_message(exc: ValidationError) -> str:
    """The first problem of a pydantic error, in plain words."""
    first = exc.errors()[0]
    message = str(first.get("msg", "Invalid value"))
    return message.removeprefix("Value error, ")


class ProvidersPage(QWidget):
    """List, add, edit and remove providers. Keys are masked, with show/hide."""

    changed = Signal()

    def __init__(
        self,
        ctx: AppContext,
        *,
        tester: Callable[[ProviderConfig, str | None], Coroutine[Any, Any, tuple[bool, str]]] | None = None,
        model_lister: Callable[[ProviderConfig, str | None], Coroutine[Any, Any, list[str]]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._tester = tester
        self._model_lister = model_lister
        self._editing: str | None = None  # name of the provider shown in the form, None: new
        self._tasks: set[asyncio.Task[Any]] = set()

        self.list = QListWidget(self)
        self.list.setAccessibleName("Configured providers")
        self.add_button = QPushButton("Add", self)
        self.add_button.setAccessibleName("Add a provider")
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setAccessibleName("Remove the selected provider")
        self.active_button = QPushButton("Use this provider", self)
        self.active_button.setAccessibleName("Make the selected provider the active one")

        self.name = QLineEdit(self)
        self.name.setAccessibleName("Provider name")
        self.kind = QComboBox(self)
        self.kind.setAccessibleName("Provider kind")
        for kind in ProviderKind:
            self.kind.addItem(kind.label, kind)
        self.base_url = QLineEdit(self)
        self.base_url.setAccessibleName("Base URL")
        self.model = QComboBox(self)
        self.model.setEditable(True)
        self.model.setAccessibleName("Model")
        self.models_button = QPushButton("Fetch models", self)
        self.reasoning = QComboBox(self)
        self.reasoning.setAccessibleName("Reasoning level")
        for label, level in (("Model default", ""), ("None", "none"), ("Low", "low"), ("Medium", "medium"),
                             ("High", "high")):
            self.reasoning.addItem(label, level)
        self.reasoning.setToolTip("How much the model thinks before answering, where it supports it "
                                  "(OpenAI reasoning models, Anthropic, Gemini, Ollama thinking models)")
        self.embedding_model = QLineEdit(self)
        self.embedding_model.setAccessibleName("Embedding model")
        self.embedding_model.setToolTip("The model that indexes conversations for semantic search")
        self.region = QLineEdit(self)
        self.region.setAccessibleName("AWS region")
        self.region.setPlaceholderText("AWS_REGION, else us-east-1")
        self.aws_profile = QLineEdit(self)
        self.aws_profile.setAccessibleName("AWS profile")
        self.aws_profile.setPlaceholderText("credentials from the environment")
        self.aws_profile.setToolTip("A profile in ~/.aws/credentials; empty: AWS_ACCESS_KEY_ID and "
                                    "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) from the environment")
        self.models_button.setAccessibleName("Fetch the provider's model list")
        self.api_key = QLineEdit(self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setAccessibleName("API key")
        self.show_key = QToolButton(self)
        self.show_key.setText("Show")
        self.show_key.setCheckable(True)
        self.show_key.setAccessibleName("Show or hide the API key")
        self.test_button = QPushButton("Test connection", self)
        self.test_button.setAccessibleName("Test the connection to this provider")
        self.save_button = QPushButton("Save provider", self)
        self.save_button.setAccessibleName("Save this provider")
        self.session_button = QPushButton("Keep keys for this session only", self)
        self.session_button.setAccessibleName("Keep API keys in memory until Jawad quits")
        self.session_button.hide()
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Provider status")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        left = QVBoxLayout()
        left.addWidget(self.list, 1)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        left.addLayout(row)
        left.addWidget(self.active_button)

        form = QFormLayout()
        form.addRow("&Name", self.name)
        form.addRow("&Kind", self.kind)
        form.addRow("Base &URL", self.base_url)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.models_button)
        form.addRow("&Model", model_row)
        form.addRow("&Reasoning", self.reasoning)
        form.addRow("&Embedding model", self.embedding_model)
        form.addRow("AWS re&gion", self.region)
        form.addRow("AWS pro&file", self.aws_profile)
        self._form = form
        for field in (self.region, self.aws_profile):  # shown for Bedrock only (_kind_changed)
            field.setEnabled(False)
            form.setRowVisible(field, False)
        key_row = QHBoxLayout()
        key_row.addWidget(self.api_key, 1)
        key_row.addWidget(self.show_key)
        form.addRow("API &key", key_row)
        buttons = QHBoxLayout()
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        right = QVBoxLayout()
        right.addLayout(form)
        right.addLayout(buttons)
        right.addWidget(self.status)
        right.addWidget(self.session_button)
        right.addStretch(1)

        layout = QHBoxLayout(self)
        layout.addLayout(left, 1)
        layout.addLayout(right, 2)

        self.list.currentItemChanged.connect(self._selected)
        self.add_button.clicked.connect(self.new_provider)
        self.remove_button.clicked.connect(self.remove_selected)
        self.active_button.clicked.connect(self.make_active)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.show_key.toggled.connect(self._toggle_key)
        self.save_button.clicked.connect(self.save)
        self.session_button.clicked.connect(self._use_session_memory)
        self.test_button.clicked.connect(self._test)
        self.models_button.clicked.connect(self._fetch_models)
        self.test_button.setVisible(tester is not None)
        self.models_button.setVisible(model_lister is not None)
        self.refresh()
        if not ctx.secrets.available:
            self._show(ctx.secrets.problem, error=True)
            self.session_button.show()

    # Listing
    def refresh(self, select: str | None = None) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        active = self.ctx.settings.active()
        for provider in self.ctx.settings.providers:
            label = provider.name + ("  (active)" if active and active.name == provider.name else "")
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, provider.name)
            self.list.addItem(item)
        self.list.blockSignals(False)
        target = select or (self._editing if self._editing else None)
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == target:
                self.list.setCurrentRow(row)
                return
        if self.list.count():
            self.list.setCurrentRow(0)
        else:
            self.new_provider()

    def _selected(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is None:
            return
        provider = self.ctx.settings.provider(current.data(Qt.ItemDataRole.UserRole))
        if provider is not None:
            self.load(provider)

    def load(self, provider: ProviderConfig) -> None:
        self._editing = provider.name
        self.name.setText(provider.name)
        self.kind.setCurrentIndex(self.kind.findData(provider.kind))
        self.base_url.setText(provider.base_url)
        self.model.setEditText(provider.model)
        self.reasoning.setCurrentIndex(max(0, self.reasoning.findData(provider.reasoning)))
        self.embedding_model.setText(provider.embedding_model)
        self.region.setText(provider.region)
        self.aws_profile.setText(provider.profile)
        self.api_key.clear()
        has_key = False
        try:
            has_key = bool(self.ctx.secrets.get(provider_key_name(provider.name)))
        except JawadError:
            has_key = False
        self.api_key.setPlaceholderText("A key is stored in the keyring" if has_key else "No key stored")
        self._show("")

    def new_provider(self) -> None:
        self._editing = None
        self.list.clearSelection()
        self.name.setText(self._free_name("OpenAI"))
        self.kind.setCurrentIndex(self.kind.findData(ProviderKind.OPENAI))
        self.base_url.clear()
        self.model.setEditText("gpt-4o-mini")
        self.reasoning.setCurrentIndex(0)
        self.embedding_model.clear()
        self.region.clear()
        self.aws_profile.clear()
        self.api_key.clear()
        self.api_key.setPlaceholderText("Paste your API key")
        self._show("")
        self.name.setFocus()
        self.name.selectAll()

    def _free_name(self, base: str) -> str:
        name, n = base, 2
        while self.ctx.settings.provider(name) is not None:
            name, n = f"{base} {n}", n + 1
        return name

    def _kind_changed(self) -> None:
        kind = ProviderKind(self.kind.currentData())
        self.base_url.setPlaceholderText(kind.default_base_url or "(started by Jawad)")
        self.api_key.setEnabled(kind not in (ProviderKind.LOCAL, ProviderKind.BEDROCK))
        bedrock = kind is ProviderKind.BEDROCK
        for field in (self.region, self.aws_profile):
            field.setEnabled(bedrock)
            self._form.setRowVisible(field, bedrock)
        if self._editing is None and kind != ProviderKind.OPENAI and self.name.text().startswith("OpenAI"):
            self.name.setText(self._free_name(kind.label.split()[0]))
            self.model.setEditText({ProviderKind.OPENROUTER: "openai/gpt-4o-mini",
                                    ProviderKind.OPENAI_RESPONSES: "gpt-4o-mini",
                                    ProviderKind.ANTHROPIC: "claude-sonnet-4-5",
                                    ProviderKind.GEMINI: "gemini-2.5-flash"}.get(kind, ""))
        from jawad_desktop.core.llm.embeddings import DEFAULT_EMBEDDING_MODELS, supports_embeddings

        self.embedding_model.setEnabled(supports_embeddings(kind))
        self.embedding_model.setPlaceholderText(
            DEFAULT_EMBEDDING_MODELS.get(kind, "") if supports_embeddings(kind) else "(no embeddings API)")

    def _toggle_key(self, shown: bool) -> None:
        self.api_key.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_key.setText("Hide" if shown else "Show")

    def _show(self, text: str, *, error: bool = False) -> None:
        self.status.setStyleSheet(ERROR_STYLE if error else OK_STYLE)
        self.status.setText(text)

    # Editing
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
            )
        except ValidationError as exc:
            raise ValueError(validation_message(exc)) from None
        clash = self.ctx.settings.provider(config.name)
        if clash is not None and (self._editing is None or clash.name.casefold() != self._editing.casefold()):
            raise ValueError(f"Another provider is already named {config.name!r}")
        if not config.model and config.kind != ProviderKind.LOCAL:
            raise ValueError("Enter the model to use (you can fetch the list)")
        return config

    def save(self) -> bool:
        """Validate and save the provider in the form; the key goes to the keyring."""
        try:
            config = self.form_config()
        except ValueError as exc:
            self._show(str(exc), error=True)
            return False
        key = self.api_key.text().strip()
        old_name = self._editing
        try:
            if key:
                self.ctx.secrets.set(provider_key_name(config.name), key)
            elif old_name and old_name != config.name:
                moved = self.ctx.secrets.get(provider_key_name(old_name))
                if moved:
                    self.ctx.secrets.set(provider_key_name(config.name), moved)
            if old_name and old_name != config.name:
                self.ctx.secrets.delete(provider_key_name(old_name))
        except JawadError as exc:
            self._show(exc.user_text(), error=True)
            self.session_button.show()
            return False
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
        self._editing = config.name
        self.refresh(select=config.name)
        self._show(f"Saved {config.name}." + (" The key is in your system keyring." if key else ""))
        self.changed.emit()
        return True

    def remove_selected(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        name = item.data(Qt.ItemDataRole.UserRole)
        try:
            self.ctx.secrets.delete(provider_key_name(name))
        except JawadError as exc:
            self._show(exc.user_text(), error=True)
            return
        self.ctx.settings.providers = [p for p in self.ctx.settings.providers if p.name != name]
        if self.ctx.settings.active_provider == name:
            self.ctx.settings.active_provider = (
                self.ctx.settings.providers[0].name if self.ctx.settings.providers else ""
            )
        self.ctx.save_settings()
        self._editing = None
        self.refresh()
        self._show(f"Removed {name} and its key.")
        self.changed.emit()

    def make_active(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        self.ctx.settings.active_provider = item.data(Qt.ItemDataRole.UserRole)
        self.ctx.save_settings()
        self.refresh(select=self.ctx.settings.active_provider)
        self.changed.emit()

    def _use_session_memory(self) -> None:
        self.ctx.secrets.use_session_memory()
        self.session_button.hide()
        self._show("Keys will be kept in memory until you quit Jawad. Save the provider again.")

    def _key_for_test(self, config: ProviderConfig) -> str | None:
        typed = self.api_key.text().strip()
        if typed:
            return typed
        try:
            return self.ctx.secrets.get(provider_key_name(self._editing or config.name))
        except JawadError:
            return None

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _test(self) -> None:
        if self._tester is None:
            return
        try:
            config = self.form_config()
        except ValueError as exc:
            self._show(str(exc), error=True)
            return
        self.test_button.setEnabled(False)
        self._show(f"Testing {config.name}…")
        tester = self._tester

        async def run() -> None:
            try:
                ok, message = await tester(config, self._key_for_test(config))
            except Exception as exc:  # the tester reports failures; this is a last guard
                ok, message = False, str(exc)
            self.test_button.setEnabled(True)
            self._show(message, error=not ok)

        self._spawn(run())

    def _fetch_models(self) -> None:
        if self._model_lister is None:
            return
        try:
            config = self.form_config()
        except ValueError as exc:
            if "model" not in str(exc).lower():
                self._show(str(exc), error=True)
                return
            config = ProviderConfig(
                name=self.name.text() or "new",
                kind=ProviderKind(self.kind.currentData()),
                base_url=self.base_url.text(),
            )
        self.models_button.setEnabled(False)
        self._show("Fetching the model list…")
        lister = self._model_lister

        async def run() -> None:
            try:
                models = await lister(config, self._key_for_test(config))
            except JawadError as exc:
                self._show(exc.user_text(), error=True)
                return
            except Exception as exc:
                self._show(f"Could not fetch the model list: {exc}", error=True)
                return
            finally:
                self.models_button.setEnabled(True)
            current = self.model.currentText()
            self.model.clear()
            self.model.addItems(models)
            self.model.setEditText(current or (models[0] if models else ""))
            self._show(f"{len(models)} models available. You can also type a model the list lacks.")

        self._spawn(run())


class AppearancePage(QWidget):
    """Theme and font size."""

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.theme = QComboBox(self)
        self.theme.setAccessibleName("Theme")
        for value, label in (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")):
            self.theme.addItem(label, value)
        self.theme.setCurrentIndex(self.theme.findData(ctx.settings.ui.theme))
        self.font_size = QSpinBox(self)
        self.font_size.setAccessibleName("Font size")
        self.font_size.setRange(7, 32)
        self.font_size.setValue(ctx.settings.ui.font_size)
        form = QFormLayout(self)
        form.addRow("&Theme", self.theme)
        form.addRow("&Font size", self.font_size)
        self.theme.currentIndexChanged.connect(self._apply)
        self.font_size.valueChanged.connect(self._apply)

    def _apply(self) -> None:
        self.ctx.settings.ui.theme = self.theme.currentData()
        self.ctx.settings.ui.font_size = self.font_size.value()
        self.ctx.save_settings()
        self.changed.emit()


class SettingsDialog(QDialog):
    """Pages on the left, the page on the right. Changes save as they are made."""

    settings_changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, **provider_hooks: Any) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        self.resize(820, 520)
        self.ctx = ctx
        self.pages = QListWidget(self)
        self.pages.setAccessibleName("Settings pages")
        self.pages.setMaximumWidth(180)
        self.stack = QStackedWidget(self)
        self.providers = ProvidersPage(ctx, parent=self, **provider_hooks)
        self.appearance = AppearancePage(ctx, self)
        self.add_page("Providers", self.providers)
        self.add_page("Appearance", self.appearance)
        self.providers.changed.connect(self.settings_changed)
        self.appearance.changed.connect(self.settings_changed)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        body = QHBoxLayout()
        body.addWidget(self.pages)
        body.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(buttons)
        self.pages.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.pages.setCurrentRow(0)

    def add_page(self, title: str, widget: QWidget) -> None:
        self.pages.addItem(title)
        self.stack.addWidget(widget)

    def show_page(self, title: str) -> None:
        for row in range(self.pages.count()):
            if self.pages.item(row).text() == title:
                self.pages.setCurrentRow(row)
                return
