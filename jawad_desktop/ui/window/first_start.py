"""The first-start offers: providers found on this computer or in the environment, one click
to use each (the click is the user's consent to copy an environment key into the keyring;
without a keyring the key keeps working from the environment, ``core.llm.factory.provider_key``)."""

from __future__ import annotations

import logging
import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.connection import ProviderOffer
from jawad_desktop.core.store.secrets import provider_key_name
from jawad_desktop.ui.base.remedies import error_text

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

    def _adopt(self, offer: ProviderOffer) -> None:
        try:
            name = adopt_offer(self.ctx, offer)
        except JawadError as exc:
            self.status.setText(error_text(exc))
            return
        self.adopted.emit(name)
        self.hide()
