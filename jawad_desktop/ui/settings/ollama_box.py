"""Settings → Models' Ollama section: the models of the first Ollama provider, listed, and one
pulled by name with progress and Cancel (``core.llm.ollama_native``), in the background.
"""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QGroupBox, QLabel, QListWidget, QProgressBar, QVBoxLayout, QWidget

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.catalog import human_size
from jawad_desktop.core.llm.ollama_native import PullProgress, ollama_client
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.look.controls import button, failure_text, label_for, line_edit, row_of, set_status, status_line


def ollama_provider(providers: list[ProviderConfig]) -> ProviderConfig | None:
    """The first configured Ollama provider (either kind), if any."""
    return next((p for p in providers if p.kind in (ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE)), None)


class OllamaBox(QGroupBox):
    """The Ollama group of Settings → Models."""

    def __init__(self, ctx: AppContext, parent: QWidget) -> None:
        super().__init__("Ollama", parent)
        self.ctx = ctx
        self._pull_task: asyncio.Task[None] | None = None
        self.where = QLabel(self)
        self.where.setWordWrap(True)
        self.models = QListWidget(self)
        self.models.setAccessibleName("Ollama's models")
        self.models.setMaximumHeight(120)
        self.refresh_button = button("&Refresh", "Refresh the list of Ollama's models", self,
                                     tooltip="Ask Ollama which models it has")
        self.pull_name = line_edit("Model to pull", self, hint="e.g. qwen2.5:1.5b",
                                   tooltip="The name of a model in Ollama's library, with its size tag")
        pull_label = label_for("&Name:", self.pull_name, self)
        self.pull = button("&Pull", "Pull the named model into Ollama", self,
                           tooltip="Ollama downloads the model; a stopped pull goes on where it stopped")
        self.cancel_pull = button("Cancel", "Cancel the pull", self,
                                  tooltip="Stop the pull; Ollama keeps what it downloaded")
        self.cancel_pull.hide()
        self.pull_progress = QProgressBar(self)
        self.pull_progress.setAccessibleName("Ollama pull progress")
        self.pull_progress.hide()
        self.status = status_line("Ollama status", self)
        ollama = QVBoxLayout(self)
        ollama.addWidget(self.where)
        ollama.addWidget(self.models)
        ollama.addLayout(row_of(pull_label, self.pull_name, self.pull, self.cancel_pull, self.refresh_button,
                              stretch=False))
        ollama.addWidget(self.pull_progress)
        ollama.addWidget(self.status)

        self.refresh_button.clicked.connect(lambda: self.refresh())
        self.pull.clicked.connect(self.start_pull)
        self.pull_name.returnPressed.connect(self.start_pull)
        self.cancel_pull.clicked.connect(self.stop_pull)
        self.show_provider()

    def provider(self) -> ProviderConfig | None:
        return ollama_provider(self.ctx.settings.providers)

    def show_provider(self) -> None:
        provider = self.provider()
        for widget in (self.refresh_button, self.pull_name, self.pull, self.models):
            widget.setEnabled(provider is not None)
        if provider is None:
            self.where.setText("No Ollama provider is set up. Add one on the Providers page to list and "
                                      "pull its models here.")
            return
        self.where.setText(f"The models of {provider.name!r} ({provider.effective_base_url}).")

    def refresh(self, *, then: str = "") -> None:
        """List the Ollama provider's models (in the background); ``then``: what to say before the count."""
        provider = self.provider()
        self.show_provider()
        if provider is None:
            return
        self.refresh_button.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText("Asking Ollama…")

        async def work() -> list[str]:
            client = ollama_client(provider, None, self.ctx.settings.network)
            async with client:
                models = await client.installed_models()
            return [f"{m.name}  ({human_size(m.size)}{', ' + m.parameter_size if m.parameter_size else ''})"
                    for m in models]

        def shown(names: list[str]) -> None:
            self.refresh_button.setEnabled(True)
            self.models.clear()
            self.models.addItems(names)
            count = f"Ollama has {len(names)} model{'s' if len(names) != 1 else ''}."
            set_status(self.status, f"{then} {count}" if then else count)

        def failed(exc: BaseException) -> None:
            self.refresh_button.setEnabled(True)
            set_status(self.status, failure_text("listing Ollama's models", exc), error=True)

        run_async(work(), what="listing Ollama's models", bus=self.ctx.bus, on_done=shown, on_error=failed)

    def start_pull(self) -> None:
        """Pull the named model into Ollama, with progress and Cancel."""
        provider, name = self.provider(), self.pull_name.text().strip()
        if provider is None or self._pull_task is not None:
            return
        if not name:
            set_status(self.status, "Type the name of a model to pull, e.g. qwen2.5:1.5b.", error=True)
            self.pull_name.setFocus()
            return
        self.pull.setEnabled(False)
        self.cancel_pull.show()
        self.cancel_pull.setEnabled(True)
        self.pull_progress.setRange(0, 0)
        self.pull_progress.show()
        self.status.setStyleSheet("")
        self.status.setText(f"Pulling {name}…")
        layers: dict[str, tuple[int, int]] = {}

        async def work() -> None:
            client = ollama_client(provider, None, self.ctx.settings.network)
            async with client:
                async for event in client.pull(name):
                    self._pull_event(name, event, layers)

        self._pull_task = run_async(work(), what=f"pulling {name}", bus=self.ctx.bus,
                                    on_done=lambda _: self._pull_done(name, None),
                                    on_error=lambda exc: self._pull_done(name, exc))
        self._pull_task.add_done_callback(lambda t: self._pull_done(name, None) if t.cancelled() else None)

    def _pull_event(self, name: str, event: PullProgress, layers: dict[str, tuple[int, int]]) -> None:
        if event.digest and event.total:
            layers[event.digest] = (event.completed, event.total)
            done, total = sum(c for c, _ in layers.values()), sum(t for _, t in layers.values())
            self.pull_progress.setRange(0, 1000)
            self.pull_progress.setValue(int(done * 1000 / total))
            self.pull_progress.setFormat(f"{human_size(done)} of {human_size(total)}")
        self.status.setText(f"{name}: {event.status}")

    def stop_pull(self) -> None:
        if self._pull_task is not None:
            self._pull_task.cancel()
            self.cancel_pull.setEnabled(False)

    def _pull_done(self, name: str, exc: BaseException | None) -> None:
        task, self._pull_task = self._pull_task, None
        if task is None:
            return  # already told
        self.cancel_pull.hide()
        self.pull_progress.hide()
        self.pull.setEnabled(True)
        if task.cancelled():
            self.status.setStyleSheet("")
            self.status.setText(f"The pull of {name} was cancelled; Ollama keeps what it downloaded.")
            return
        if exc is not None:
            set_status(self.status, failure_text(f"pulling {name}", exc), error=True)
            return
        self.refresh(then=f"{name} is ready in Ollama.")
