"""Settings → Network: the settings save as they are made (what is wrong is shown and not
saved), and "Test connection" reaches the active provider through them: a real proxy on
loopback and an HTTPS server whose certificate the test made (see tests/llm/
test_network_settings.py for why the provider is called ``provider.test``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding
from PySide6.QtWidgets import QFileDialog

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.local_server import free_port
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.settings.network_page import NetworkPage
from tests.fixtures.certificates import TestCA
from tests.fixtures.network import PROVIDER_HOST
from tests.servers.fault_server import FaultServer
from tests.servers.http_proxy import HttpProxy
from tests.ui.page_checks import assert_named_and_labelled

NAME = PROVIDER_HOST
pytestmark = pytest.mark.usefixtures("no_environment_proxy")


@pytest.fixture
def dialog(qtbot: Any, profile_dir: Path, secret_store: SecretStore, aio_loop: Any) -> Iterator[SettingsDialog]:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    dlg = SettingsDialog(ctx)
    qtbot.addWidget(dlg)
    dlg.open()
    dlg.show_page("Network")
    yield dlg
    dlg.close()


def saved_network(profile_dir: Path, secret_store: SecretStore) -> Any:
    """The network settings as the file on disk has them (a fresh load)."""
    return AppContext.open(str(profile_dir), secrets=secret_store).settings.network


def test_the_pages_the_messages_name_exist_and_every_control_is_named(dialog: SettingsDialog) -> None:
    titles = [dialog.pages.item(i).text() for i in range(dialog.pages.count())]
    assert titles[:4] == ["Providers", "Appearance", "Network", "Agent"]
    assert dialog.current_page() is dialog.network
    assert_named_and_labelled(dialog.network)


def test_settings_save_as_made_and_mistakes_are_shown_not_saved(
    dialog: SettingsDialog, profile_dir: Path, secret_store: SecretStore, provider_ca: TestCA, tmp_path: Path,
    qtbot: Any
) -> None:
    page: NetworkPage = dialog.network
    page.proxy.setText("proxy.corp:3128")
    page.proxy.editingFinished.emit()
    assert page.proxy.text() == "http://proxy.corp:3128"  # as saved
    assert saved_network(profile_dir, secret_store).proxy_url == "http://proxy.corp:3128"

    der = tmp_path / "company.cer"
    der.write_bytes(provider_ca.certificate.public_bytes(Encoding.DER))
    page.ca_bundle.setText(str(der))
    page.ca_bundle.editingFinished.emit()
    assert "is not a PEM file" in page.status.text()
    assert saved_network(profile_dir, secret_store).ca_bundle == ""
    page.connect_timeout.setValue(7)  # nothing is saved while the bundle is wrong
    assert saved_network(profile_dir, secret_store).connect_timeout_s == 10

    page.choose_ca_bundle()  # Browse…: a dialog that does not block; choosing a file saves it
    chooser = page.findChild(QFileDialog)
    assert chooser is not None and chooser.isVisible()
    chooser.fileSelected.emit(str(provider_ca.bundle))
    chooser.close()
    assert page.status.text() == ""
    page.read_timeout.setValue(45)
    page.total_timeout.setValue(300)
    page.retries.setValue(1)
    saved = saved_network(profile_dir, secret_store)
    assert (saved.ca_bundle, saved.connect_timeout_s, saved.read_timeout_s, saved.total_timeout_s,
            saved.max_retries) == (str(provider_ca.bundle), 7, 45, 300, 1)

    # A field still being typed in when the user moves to another page is saved too.
    page.proxy.setText("")
    dialog.show_page("Agent")
    qtbot.waitUntil(lambda: not page.isVisible())
    assert saved_network(profile_dir, secret_store).proxy_url == ""
    assert page.proxy.placeholderText() == "Empty: no proxy (the environment sets none)"


def test_test_connection_goes_through_the_proxy_and_trusts_the_ca_bundle(
    dialog: SettingsDialog, https_provider: FaultServer, provider_ca: TestCA, qtbot: Any
) -> None:
    page: NetworkPage = dialog.network
    port = int(https_provider.base_url.rsplit(":", 1)[1].split("/", 1)[0])
    page.test_button.click()  # no provider yet: where to add one
    assert "There is no provider" in page.status.text() and "Settings → Providers" in page.status.text()

    ctx = dialog.ctx
    ctx.settings.providers = [ProviderConfig(name="Secure", kind=ProviderKind.OPENAI_COMPATIBLE,
                                             base_url=f"https://{NAME}:{port}/v1", model="ok")]

    def test(expect: str) -> str:
        page.test_button.click()
        qtbot.waitUntil(lambda: page.test_button.isEnabled() and expect in page.status.text(), timeout=20_000)
        return page.status.text()

    with HttpProxy({NAME: "127.0.0.1"}) as proxy:
        page.proxy.setText(proxy.url)
        page.ca_bundle.setText(str(provider_ca.bundle))
        shown = test("Connected")
        assert shown.startswith(f"Connected to Secure through the proxy {proxy.url} in ")
        assert proxy.targets("CONNECT") == [f"{NAME}:{port}"]

        page.ca_bundle.setText("")  # the system's certificates do not know the test's CA
        shown = test("could not be verified")
        assert f"The secure connection to {NAME} failed: its certificate could not be verified." in shown
        assert shown.rstrip().endswith("Check the proxy, the CA bundle and the timeouts in Settings → Network.")

    dead = free_port()
    page.proxy.setText(f"http://127.0.0.1:{dead}")
    shown = test("Can't reach the proxy")
    assert f"Can't reach the proxy http://127.0.0.1:{dead}" in shown and "Settings → Network" in shown
