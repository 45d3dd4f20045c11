"""The first-start offers: providers found on this computer or in the environment, one click
to use each (the click is the user's consent to copy an environment key into the keyring;
without a keyring the key keeps working from the environment, ``core.llm.factory.provider_key``).
The built-in local model's offer downloads its file first, with progress, then runs it."""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.catalog import catalog_entry, human_size
from jawad_desktop.core.llm.discovery import ProviderOffer, models_folder
from jawad_desktop.core.store.secrets import provider_key_name
from jawad_desktop.ui.base.background import run_in_thread
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.look.controls import failure_text

log = logging.getLogger("jawad.ui.first_start")


def adopt_offer(ctx: AppContext, offer: ProviderOffer) -> str:
    """Add the offered provider (and its environment key, to the keyring); returns its name."""
    provider = offer.provider
    name, n = provider.name, 2
    while ctx.settings.provider(name) is not None:
        name, n = f"{provider.name} {n}", n + 1
    provider = provider.model_copy(update={"name": name})
    if offer.api_key_env:
        key = os.environ.get(offer.api_key_env, "").strip()
        if not key:
            raise JawadError(f"{offer.api_key_env} is no longer set.", suggestions=["Add the key in Settings."])
        try:
            ctx.secrets.set(provider_key_name(name), key)
        except JawadError as exc:  # no keyring: the key keeps working from the environment
            log.warning("could not copy %s to the keyring: %s", offer.api_key_env, exc.message)
    ctx.settings.providers = [*ctx.settings.providers, provider]
    ctx.settings.active_provider = name
    ctx.save_settings()
    return name


class _Progress(QObject):
    """A download's progress from its worker thread to the GUI thread (a queued signal)."""

    download = Signal(object, object)


class OffersPanel(QFrame):
    """One button per offer. Emits ``adopted(name)`` once a provider was added."""

    adopted = Signal(str)

    def __init__(self, ctx: AppContext, offers: list[ProviderOffer], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setObjectName("firstStartOffers")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Providers found on this computer")
        layout = QVBoxLayout(self)
        title = QLabel("<b>Found on this computer</b> — pick one to start:", self)
        layout.addWidget(title)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.buttons: list[QPushButton] = []
        for offer in offers:
            model = f" ({offer.provider.model})" if offer.provider.model else ""
            button = QPushButton(f"Use {offer.provider.name}{model}", self)
            button.setAccessibleName(f"Use {offer.provider.name}")
            button.setToolTip(offer.description)
            button.clicked.connect(lambda _=False, o=offer: self._adopt(o))
            description = QLabel(offer.description, self)
            description.setWordWrap(True)
            layout.addWidget(button)
            layout.addWidget(description)
            self.buttons.append(button)
        layout.addWidget(self.status)
        self._progress = _Progress(self)
        self._progress.download.connect(self._on_progress)
        self._downloading = ""

    def _adopt(self, offer: ProviderOffer) -> None:
        if offer.download:
            self._download(offer)
            return
        try:
            name = adopt_offer(self.ctx, offer)
        except JawadError as exc:
            self.status.setText(error_text(exc))
            return
        self.adopted.emit(name)
        self.hide()

    def _download(self, offer: ProviderOffer) -> None:
        """Download the offered local model (checked against its pin) on a worker thread, then use it."""
        if self._downloading:
            return
        entry = catalog_entry(offer.download)
        self._downloading = entry.title if entry else offer.download
        for each in self.buttons:
            each.setEnabled(False)
        self.status.setText(f"Downloading {self._downloading}…")
        signal = self._progress.download
        folder, network = models_folder(self.ctx.paths.data), self.ctx.settings.network

        def report(done: int, total: int) -> None:
            with contextlib.suppress(RuntimeError):  # the window closed: the download ends with it
                signal.emit(done, total)

        def work() -> Path:
            from jawad_desktop.core.llm.local_models import download_model  # the downloader, with its first use

            return download_model(offer.download, folder, progress=report, network=network)

        def done(path: Path) -> None:
            self._downloading = ""
            provider = offer.provider.model_copy(update={"model_file": str(path)})
            self._adopt(replace(offer, provider=provider, download=""))

        def failed(exc: BaseException) -> None:
            what, self._downloading = self._downloading, ""
            for each in self.buttons:
                each.setEnabled(True)
            self.status.setText(error_text(exc) if isinstance(exc, JawadError)
                                else failure_text(f"downloading {what}", exc))

        run_in_thread(work, what=f"downloading {self._downloading}", bus=self.ctx.bus, on_done=done,
                      on_error=failed)

    def _on_progress(self, done: int, total: int) -> None:
        if self._downloading and total > 0:
            self.status.setText(f"Downloading {self._downloading}: {human_size(done)} of {human_size(total)} "
                                f"({done * 100 // total}%)…")
