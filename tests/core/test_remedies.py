"""Core errors speak to no face: their text names what to change, never a window's menu or a
command's flag, and where the fix is a setting they carry a ``Remedy`` for the face to word.

The bug this guards: "Pass --api-key-env VARIABLE" reached the window and "Check the provider
in Settings" reached the terminal, because the core wrote one face's words into its errors.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.connection import missing_key_error
from jawad_desktop.core.llm.embeddings import Embedder
from jawad_desktop.core.llm.errors import classify_status, classify_transport
from jawad_desktop.core.llm.factory import resolve_provider
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.voice.errors import from_portaudio, no_input_device
from jawad_desktop.core.voice.pack import not_installed_error
from jawad_desktop.core.voice.transcribers import api_transcriber

# Words of one face: the window's menus, the terminal's commands and flags.
FACE_WORDS = ("Settings", "jawad ", "--", "Ctrl+")

WORK = ProviderConfig(name="Work", kind=ProviderKind.OPENAI)
LOCAL = ProviderConfig(name="Box", kind=ProviderKind.OPENAI_COMPATIBLE, base_url="http://127.0.0.1:9/v1")
URL = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")


def _raised(call: object) -> JawadError:
    assert callable(call)
    with pytest.raises(JawadError) as caught:
        call()
    return caught.value


def _no_keyring_ctx(profile_dir: Path, *providers: ProviderConfig, voice_provider: str = "") -> AppContext:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore(problem="No system keyring is available"))
    ctx.settings.providers = list(providers)
    ctx.settings.voice.api_provider = voice_provider
    return ctx


def _cases(profile_dir: Path) -> list[tuple[str, JawadError, Remedy | None]]:
    empty = _no_keyring_ctx(profile_dir / "empty")
    saved = _no_keyring_ctx(profile_dir / "saved", WORK)
    gone = _no_keyring_ctx(profile_dir / "gone", voice_provider="Gone")
    key, model, provider = (Remedy("provider-key", "Work"), Remedy("provider-model", "Work"),
                            Remedy("provider", "Work"))
    network = Remedy("network")
    return [
        ("missing key", missing_key_error(WORK), key),
        ("first start", _raised(lambda: resolve_provider(empty)), Remedy("add-provider")),
        ("unknown name", _raised(lambda: resolve_provider(saved, "Home")), Remedy("add-provider", "Home")),
        ("no keyring", _raised(lambda: resolve_provider(saved)), key),
        ("401", classify_status(WORK, "gpt", 401, '{"error": {"message": "bad key"}}'), key),
        ("403 openai", classify_status(WORK, "gpt", 403, ""), key),
        ("403 other", classify_status(LOCAL, "m", 403, ""), Remedy("provider-key", "Box")),
        ("404 model", classify_status(WORK, "gpt-9", 404, '{"error": "model not found"}'), model),
        ("404 address", classify_status(WORK, "gpt", 404, "nothing here"), provider),
        ("400", classify_status(WORK, "gpt", 400, "no"), provider),
        ("500 invalid", classify_status(WORK, "gpt", 500, "1 validation error"), provider),
        ("timeout", classify_transport(WORK, httpx.ConnectTimeout("slow", request=URL)), network),
        ("dns", classify_transport(WORK, httpx.ConnectError("Name or service not known", request=URL)), provider),
        ("refused", classify_transport(LOCAL, httpx.ConnectError("refused", request=URL)), Remedy("provider", "Box")),
        ("proxy", classify_transport(WORK, httpx.ProxyError("no", request=URL)), network),
        ("broken", classify_transport(WORK, httpx.RemoteProtocolError("cut", request=URL)), network),
        ("no embedding model", _raised(lambda: Embedder(LLMClient(LOCAL, None))), Remedy("provider", "Box")),
        ("no microphone", no_input_device(), Remedy("voice")),
        ("that microphone", no_input_device("USB"), Remedy("voice")),
        ("busy microphone", from_portaudio(OSError("Device unavailable")), Remedy("voice")),
        ("no voice pack", not_installed_error(None), Remedy("voice")),
        ("no whisper provider", _raised(lambda: api_transcriber(empty)), Remedy("add-provider")),
        ("whisper provider gone", _raised(lambda: api_transcriber(gone)), Remedy("voice")),
    ]


def test_core_errors_are_neutral_and_say_where_they_are_fixed(profile_dir: Path) -> None:
    for what, error, remedy in _cases(profile_dir):
        text = error.user_text()
        assert not [w for w in FACE_WORDS if w in text], f"{what}: {text}"
        assert error.remedy == remedy, what


def test_a_remedy_travels_as_plain_json() -> None:
    remedy = Remedy("provider-key", "Work AI")
    assert remedy.as_json() == {"place": "provider-key", "provider": "Work AI"}
    assert Remedy.from_json(remedy.as_json()) == remedy
    assert Remedy.from_json({"place": "agent"}) == Remedy("agent")
    # An old saved response, or anything else, is no remedy.
    for junk in (None, {}, {"place": "nowhere"}, "agent", ["agent"]):
        assert Remedy.from_json(junk) is None
    assert Remedy.from_json({"place": "voice", "provider": 3}) == Remedy("voice")  # a bad name is dropped
