"""The window words the core's remedies as its Settings pages, never as ``jawad`` commands or
flags: in its own wording table, in a turn's error answer (a provider of kind OpenAI with no
key in the keyring: the bug was "Pass --api-key-env VARIABLE" in the chat), in the Providers
page's connection test and on the voice button."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest
from PySide6.QtCore import Qt

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import Remedy, RemedyPlace
from jawad_desktop.core.events import VoiceState
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from jawad_desktop.ui.base.remedies import remedy_text, with_remedy
from jawad_desktop.ui.chat.voice_button import VoiceButton
from jawad_desktop.ui.settings.providers_page import connection_hooks
from jawad_desktop.ui.window.main_window import MainWindow

TERMINAL_WORDS = ("jawad ", "--", "`")


def _no_terminal_words(text: str) -> bool:
    return not [w for w in TERMINAL_WORDS if w in text]


@pytest.mark.parametrize("place", get_args(RemedyPlace))
def test_every_remedy_has_window_words(place: RemedyPlace) -> None:
    for provider in ("Work AI", ""):
        text = remedy_text(Remedy(place, provider))
        assert "Settings → " in text and _no_terminal_words(text), text
        if place.startswith("provider") and provider:
            assert "Settings → Providers" in text and "'Work AI'" in text
    assert remedy_text(None) == "" and with_remedy("Nothing to fix.", None) == "Nothing to fix."


def _keyless_window(make_window: Any, profile_dir: Path, secret_store: SecretStore) -> MainWindow:
    ctx = AppContext.open(str(profile_dir))
    ctx.settings.providers = [ProviderConfig(name="Work", kind=ProviderKind.OPENAI)]
    ctx.settings.active_provider = "Work"
    ctx.save_settings()
    secret_store.delete(provider_key_name("Work"))
    window: MainWindow = make_window(profile_dir)
    return window


def test_a_missing_key_is_answered_with_the_settings_page(
    make_window: Any, profile_dir: Path, secret_store: SecretStore, qtbot: Any
) -> None:
    window = _keyless_window(make_window, profile_dir, secret_store)
    window.chat.input.setPlainText("Hello?")
    qtbot.keyClick(window.chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy and len(window.chat.view.chat_model.items()) == 2,
                    timeout=30_000)
    answer = window.chat.view.chat_model.items()[-1]
    assert answer.role == "error", answer.text
    assert answer.text.startswith("No API key is stored for 'Work' (OpenAI).")
    assert "Settings → Providers (Ctrl+,) and check the key of 'Work'" in answer.text
    assert _no_terminal_words(answer.text), answer.text


def test_the_connection_test_and_the_voice_button_say_where(
    make_window: Any, profile_dir: Path, secret_store: SecretStore, arun: Any
) -> None:
    window = _keyless_window(make_window, profile_dir, secret_store)
    tester = connection_hooks(window.ctx)["tester"]
    ok, text = arun(tester(ProviderConfig(name="Work", kind=ProviderKind.OPENAI), None))
    assert not ok and "check the key of 'Work'" in text and _no_terminal_words(text), text

    button = window.voice_button
    assert isinstance(button, VoiceButton)
    button.handle_voice_state(VoiceState(state="error", error="No microphone was found.",
                                         remedy=Remedy("voice").as_json()))
    assert button.error_text.startswith("No microphone was found.\n  - Open Settings → Voice")
    assert _no_terminal_words(button.error_text)
