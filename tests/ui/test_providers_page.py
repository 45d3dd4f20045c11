"""The Providers page: keys go to the real keyring and never into a file; bad input is shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from jawad_desktop.ui.settings.dialog import SettingsDialog

KEY = "sk-test-Zq8vW3nT5yR1uP0oLk7Jh2Gf"


@pytest.fixture
def dialog(qtbot: Any, profile_dir: Path, secret_store: SecretStore) -> SettingsDialog:
    ctx = AppContext.open(str(profile_dir), secrets=secret_store)
    dlg = SettingsDialog(ctx)
    qtbot.addWidget(dlg)
    dlg.open()
    return dlg


def _all_bytes_under(root: Path) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in root.rglob("*") if p.is_file()]


def test_saved_key_is_in_keyring_and_in_no_file(dialog: SettingsDialog, profile_dir: Path) -> None:
    page = dialog.providers
    page.new_provider()
    page.name.setText("My OpenAI")
    page.model.setEditText("gpt-4o-mini")
    page.api_key.setText(KEY)
    assert page.save(), page.status.text()
    ctx = dialog.ctx
    assert ctx.settings.provider("My OpenAI") is not None
    assert ctx.settings.active_provider == "My OpenAI"
    assert ctx.secrets.get(provider_key_name("My OpenAI")) == KEY
    assert page.api_key.text() == "", "the key must not stay in the form after saving"
    for path, data in _all_bytes_under(profile_dir):
        assert KEY.encode() not in data, f"the API key was written to {path}"
        assert KEY[8:20].encode() not in data, f"part of the API key was written to {path}"
    settings_text = (profile_dir / "config" / "settings.json").read_text()
    assert "My OpenAI" in settings_text


def test_rename_moves_the_key_and_remove_deletes_it(dialog: SettingsDialog) -> None:
    page, ctx = dialog.providers, dialog.ctx
    page.new_provider()
    page.name.setText("Work")
    page.api_key.setText(KEY)
    assert page.save()
    page.name.setText("Work 2")
    assert page.save(), page.status.text()
    assert ctx.secrets.get(provider_key_name("Work")) is None
    assert ctx.secrets.get(provider_key_name("Work 2")) == KEY
    assert [p.name for p in ctx.settings.providers] == ["Work 2"]
    page.remove_selected()
    assert ctx.settings.providers == []
    assert ctx.secrets.get(provider_key_name("Work 2")) is None


@pytest.mark.parametrize(
    ("name", "url", "message"),
    [
        ("", "", "must not be empty"),
        ("ok", "not a url", "http:// or https://"),
        ("ok", "http://", "no host"),
        ("bad/name", "", "letters, digits"),
    ],
)
def test_invalid_input_is_shown_inline_and_not_saved(
    dialog: SettingsDialog, name: str, url: str, message: str
) -> None:
    page = dialog.providers
    page.new_provider()
    page.name.setText(name)
    page.base_url.setText(url)
    assert not page.save()
    assert message in page.status.text()
    assert dialog.ctx.settings.providers == []
    assert not (Path(dialog.ctx.paths.settings_file)).exists()


def test_duplicate_name_is_refused(dialog: SettingsDialog) -> None:
    page = dialog.providers
    page.new_provider()
    page.name.setText("Ollama")
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OLLAMA))
    page.model.setEditText("llama3.1")
    assert page.save()
    page.new_provider()
    page.name.setText("ollama")
    page.model.setEditText("x")
    assert not page.save()
    assert "already named" in page.status.text()
    assert len(dialog.ctx.settings.providers) == 1


def test_key_is_masked_with_show_hide(dialog: SettingsDialog, qtbot: Any) -> None:
    from PySide6.QtWidgets import QLineEdit

    page = dialog.providers
    assert page.api_key.echoMode() == QLineEdit.EchoMode.Password
    page.show_key.click()
    assert page.api_key.echoMode() == QLineEdit.EchoMode.Normal
    page.show_key.click()
    assert page.api_key.echoMode() == QLineEdit.EchoMode.Password


def test_without_keyring_the_user_can_keep_keys_for_the_session(qtbot: Any, profile_dir: Path) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore(problem="No system keyring is available"))
    dlg = SettingsDialog(ctx)
    qtbot.addWidget(dlg)
    dlg.open()
    page = dlg.providers
    assert not page.session_button.isHidden()
    page.new_provider()
    page.api_key.setText(KEY)
    assert not page.save()
    assert "keyring" in page.status.text().lower()
    page.session_button.click()
    page.api_key.setText(KEY)
    assert page.save(), page.status.text()
    assert ctx.secrets.get(provider_key_name(page.name.text())) == KEY
    for _path, data in _all_bytes_under(profile_dir):
        assert KEY.encode() not in data


def test_no_label_shows_a_stray_ampersand(dialog: SettingsDialog) -> None:
    """A label with a mnemonic ("&Model") moves focus to its field; without a buddy Qt would
    show the "&" itself, as it did for the rows that hold a field and a button."""
    from PySide6.QtWidgets import QLabel

    page = dialog.providers
    for label in page.findChildren(QLabel):
        text = label.text().replace("&&", "")
        if "&" in text and not text.lstrip().startswith("<"):
            assert label.buddy() is not None, f"{label.text()!r} would show its ampersand"
    model_label = next(lb for lb in page.findChildren(QLabel) if lb.text() == "&Model")
    assert model_label.buddy() is page.model


def test_settings_opened_again_shows_no_old_status(dialog: SettingsDialog, qtbot: Any) -> None:
    """Settings reopened with the last visit's lines ("Saved Scripted.", an old error)."""
    page = dialog.providers
    page.new_provider()
    page.name.setText("Work")
    assert page.save()
    assert page.status.text()
    dialog.models.status.setText("An old download failed.")
    dialog.close()
    dialog.open()
    qtbot.waitUntil(dialog.isVisible)
    assert page.status.text() == "" and dialog.models.status.text() == ""


def test_a_new_provider_says_it_is_not_saved_and_the_kind_brings_its_own_model(dialog: SettingsDialog) -> None:
    """With no provider the form looked like a saved "OpenAI / gpt-4o-mini"; switching the kind kept a
    model the new server does not offer; a second provider saved was silently not the one in use."""
    page = dialog.providers
    assert page.list.count() == 0 and "not saved yet" in page.status.text()
    assert page.model.currentText() == "gpt-4o-mini"
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.ANTHROPIC))
    assert page.model.currentText() == "claude-sonnet-4-5"
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OLLAMA))
    assert page.model.currentText() == ""  # Ollama's models are the user's own: fetch the list
    page.model.setEditText("qwen3:1.7b")
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OPENAI_COMPATIBLE))
    assert page.model.currentText() == "qwen3:1.7b"  # typed by the user: kept
    page.name.setText("Home")
    assert page.save(), page.status.text()
    assert "Jawad still answers" not in page.status.text()  # the first one is the one in use
    page.new_provider()
    page.name.setText("Work")
    assert page.save(), page.status.text()
    assert "Jawad still answers with Home" in page.status.text() and "Use this provider" in page.status.text()
    assert dialog.ctx.settings.active_provider == "Home"
