"""The Network page of the Settings dialog: how Jawad reaches providers.

The proxy (empty: the environment's), a CA bundle for a company proxy that inspects HTTPS
(a file chooser beside the path), the connect / read / total time limits and the retries:
``NetworkSettings``, which every ``LLMClient`` is built on. Like the other pages it saves as
changes are made (a text field when it is left, and when the page hides), after
``core.config.network`` checked them; what is wrong is shown on the page and not saved.

"Test connection" sends spec 000's "Say ok" to the active provider through the settings on
the page (``core.llm.connection.test_connection``) and says what happened. Requests to a
provider on this computer never go through a proxy (``core.llm.client``), and the page says so.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtGui import QHideEvent
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.config.network import checked_network, proxy_shown, proxy_without_password
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.events import TestResult
from jawad_desktop.core.llm.connection import test_connection
from jawad_desktop.core.llm.factory import provider_key
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.base.remedies import error_text, with_remedy
from jawad_desktop.ui.look.controls import (
    Field,
    add_explained_rows,
    add_form_row,
    button,
    decimal_number,
    failure_text,
    field_row,
    help_line,
    line_edit,
    on_change,
    set_status,
    show_values,
    status_line,
    values_of,
    whole_number,
)
from jawad_desktop.ui.look.file_dialogs import make_roomy

log = logging.getLogger("jawad.ui.settings")

_PROBE_URL = "https://provider.example"  # a remote HTTPS address: which proxy the environment gives it


def _seconds(name: str, parent: QWidget, low: float, high: float) -> QDoubleSpinBox:
    return decimal_number(name, parent, low, high, decimals=1, suffix=" s")


class NetworkPage(QWidget):
    """Settings → Network."""

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._loading = True
        self._problem_shown = False  # a check's message is on the status line
        self._file_dialog: QFileDialog | None = None

        self.proxy = line_edit("Proxy URL", self)
        self.ca_bundle = line_edit("CA bundle file", self, hint="Empty: the system's certificates")
        self.browse = button("&Browse…", "Choose the CA bundle file", self)
        # The ranges are NetworkSettings' own (a spin box cannot hold a value it would refuse).
        self.connect_timeout = _seconds("Connect timeout, in seconds", self, 0.5, 300)
        self.read_timeout = _seconds("Read timeout, in seconds", self, 1, 3600)
        self.total_timeout = _seconds("Total time limit of one answer, in seconds", self, 1, 7200)
        self.retries = whole_number("Retries", self, 0, 10)
        self.test_button = button("&Test connection", "Test the connection to the active provider with these "
                                  "network settings", self)
        self.status = status_line("Network status", self)

        form = QFormLayout()
        add_explained_rows(form, self, (
            ("&Proxy", self.proxy,
             "The proxy requests to providers go through, as http://host:port (user:password@host if it needs a "
             "login). Providers on this computer are always reached directly."),
        ))
        add_form_row(form, "C&A bundle", field_row(self.ca_bundle, self.browse))
        form.addRow("", help_line(
            "A PEM file of certificates to trust besides the system's, for a company proxy that inspects "
            "HTTPS or a server with its own certificate authority.", self, describes=self.ca_bundle))
        add_explained_rows(form, self, (
            ("&Connect timeout", self.connect_timeout, "How long to wait for a connection to the provider."),
            ("&Read timeout", self.read_timeout,
             "The longest silence between two pieces of an answer before it counts as lost."),
            ("Total time &limit", self.total_timeout, "The longest one answer may take from start to end."),
            ("Retr&ies", self.retries,
             "How many times a request is tried again after a network error, a time-out or a busy server, "
             "waiting longer each time."),
        ))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.test_button)
        layout.addWidget(self.status)
        layout.addStretch(1)

        self.load()
        on_change(self._fields().values(), self.save)
        self.browse.clicked.connect(self.choose_ca_bundle)
        self.test_button.clicked.connect(self.run_test)

    def _fields(self) -> dict[str, Field]:
        """The page's controls, by the network setting each holds."""
        return {"proxy_url": self.proxy, "ca_bundle": self.ca_bundle, "connect_timeout_s": self.connect_timeout,
                "read_timeout_s": self.read_timeout, "total_timeout_s": self.total_timeout,
                "max_retries": self.retries}

    # -- the form and the settings ----------------------------------------------------------------
    def load(self) -> None:
        """Show the saved settings."""
        self._loading = True
        show_values(self._fields(), self.ctx.settings.network)
        from_environment = proxy_shown("", _PROBE_URL)
        self.proxy.setPlaceholderText(f"Empty: the environment's proxy, {from_environment}" if from_environment
                                      else "Empty: no proxy (the environment sets none)")
        self._loading = False

    def form_settings(self) -> NetworkSettings:
        """The settings on the page, checked; a ``JawadError`` says what is wrong."""
        return checked_network(**values_of(self._fields()))

    def save(self) -> bool:
        """Save the page's settings if they are valid (else say what is wrong); True if saved
        or unchanged."""
        if self._loading:
            return True
        try:
            network = self.form_settings()
        except JawadError as exc:
            self.show_status(exc.user_text(), error=True)
            return False
        for field, saved in ((self.proxy, network.proxy_url), (self.ca_bundle, network.ca_bundle)):
            if field.text() != saved:  # as saved: "proxy:3128" gains its http://
                field.setText(saved)
        if self._problem_shown:
            self.show_status("")
        if network == self.ctx.settings.network:
            return True
        self.ctx.settings.network = network
        self.ctx.save_settings()
        log.info("network settings saved (proxy %s, CA bundle %s)",
                 proxy_without_password(network.proxy_url) if network.proxy_url else "from the environment",
                 "set" if network.ca_bundle else "the system's")
        self.changed.emit()
        return True

    def choose_ca_bundle(self) -> None:
        """Ask for the CA bundle file (a non-blocking dialog); it is checked and saved when chosen."""
        dialog = QFileDialog(self, "Choose the CA bundle (PEM certificates)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters(["Certificates (*.pem *.crt *.cer *.ca-bundle)", "All files (*)"])
        dialog.fileSelected.connect(self._bundle_chosen)
        self._file_dialog = dialog
        make_roomy(dialog).open()

    def _bundle_chosen(self, path: str) -> None:
        self.ca_bundle.setText(path)
        self.save()

    def show_status(self, text: str, *, error: bool = False) -> None:
        set_status(self.status, text, error=error)
        self._problem_shown = error

    def hideEvent(self, event: QHideEvent) -> None:
        # A field still being edited when the dialog closes or the page changes is saved too.
        self.save()
        super().hideEvent(event)

    # -- Test connection ------------------------------------------------------------------------
    def run_test(self) -> None:
        """Send "Say ok" to the active provider through the settings on the page."""
        provider = self.ctx.settings.active()
        if provider is None:
            self.show_status(with_remedy("There is no provider to test the connection with.",
                                         Remedy("add-provider")), error=True)
            return
        try:
            network = self.form_settings()
        except JawadError as exc:
            self.show_status(exc.user_text(), error=True)  # the fix is on this page
            return
        try:
            key = provider_key(self.ctx.secrets, provider).key
        except JawadError as exc:  # a locked keyring
            self.show_status(error_text(exc), error=True)
            return
        route = proxy_shown(network.proxy_url, provider.effective_base_url)
        self.test_button.setEnabled(False)
        self.show_status(f"Testing {provider.name}" + (f" through {route}" if route else "") + "…")

        def done(result: TestResult) -> None:
            self.test_button.setEnabled(True)
            if result.success:
                self.show_status(f"Connected to {provider.name}" + (f" through the proxy {route}" if route else "")
                                 + f" in {result.latency_ms:.0f} ms.")
            else:
                self.show_status(with_remedy(result.error, Remedy.from_json(result.remedy)), error=True)

        def failed(exc: BaseException) -> None:
            self.test_button.setEnabled(True)
            log.warning("testing the network settings failed", exc_info=exc)
            self.show_status(failure_text("testing the connection", exc), error=True)

        run_async(test_connection(provider, key, network), what="testing the connection", bus=self.ctx.bus,
                  on_done=done, on_error=failed)
