"""Keys in the environment, as the window shows and uses them: the Providers page says when a
provider's key comes from OPENAI_API_KEY (and the like), Test connection uses it with no click
(the scripted server checks the key), and first start still offers to copy it to the keyring."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.discovery import ProviderOffer
from jawad_desktop.core.llm.factory import client_for
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.secrets import provider_key_name
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.settings.providers_page import connection_hooks
from jawad_desktop.ui.window.first_start import adopt_offer
from tests.servers.scripted_model import ScriptedModel, text

ENV_KEY = "sk-env-page-key-9137"

pytestmark = pytest.mark.usefixtures("no_environment_keys")


@pytest.fixture
def dialog(qtbot: Any, keyring_ctx: AppContext, aio_loop: Any) -> Iterator[SettingsDialog]:
    dlg = SettingsDialog(keyring_ctx, **connection_hooks(keyring_ctx))  # the window's own Test connection
    qtbot.addWidget(dlg)
    dlg.open()
    yield dlg
    dlg.close()


def test_the_providers_page_says_where_the_key_comes_from_and_tests_with_it(
    dialog: SettingsDialog, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch, qtbot: Any
) -> None:
    keyring_ctx, page = dialog.ctx, dialog.providers
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    work = ProviderConfig(name="Work", kind=ProviderKind.OPENAI, base_url=scripted_model.base_url, model="scripted")
    keyring_ctx.settings.providers = [work]
    page.refresh(select="Work")
    assert page.api_key.placeholderText().startswith("Using OPENAI_API_KEY from the environment")

    scripted_model.require_key(ENV_KEY)
    scripted_model.script(text("ok"))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.test_button.isEnabled() and "Connected to Work" in page.status.text(),
                    timeout=15_000)

    keyring_ctx.secrets.set(provider_key_name("Work"), "sk-stored-key-5521")
    page.refresh(select="Work")
    assert page.api_key.placeholderText() == "A key is stored in the keyring"

    page.new_provider()  # a new provider of a kind whose variable is set says so too
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.ANTHROPIC))
    assert page.api_key.placeholderText() == "Paste your API key"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-page-key")
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.GEMINI))
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.ANTHROPIC))
    assert page.api_key.placeholderText().startswith("Using ANTHROPIC_API_KEY from the environment")


def test_first_start_copies_the_environment_key_to_the_keyring_on_the_users_click(
    keyring_ctx: AppContext, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch, arun: Any
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    offer = ProviderOffer(ProviderConfig(name="OpenAI", kind=ProviderKind.OPENAI, base_url=scripted_model.base_url,
                                         model="scripted"), "OPENAI_API_KEY is set", api_key_env="OPENAI_API_KEY")
    assert adopt_offer(keyring_ctx, offer) == "OpenAI"
    assert keyring_ctx.secrets.get(provider_key_name("OpenAI")) == ENV_KEY
    monkeypatch.delenv("OPENAI_API_KEY")  # started from the menu later: the keyring has it

    async def ask() -> str:
        async with client_for(keyring_ctx) as client:
            return (await client.chat([Message(role="user", content="hi")]).response()).content

    scripted_model.require_key(ENV_KEY)
    scripted_model.script(text("Still works."))
    assert arun(ask()) == "Still works."
