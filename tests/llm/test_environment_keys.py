"""Keys and addresses from the environment (spec 003), with no click: a provider with no key in
the keyring uses its kind's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or
GEMINI_KEY...), the keyring wins when both have one, ``OLLAMA_BASE_URL`` is the Ollama
providers' default address, and first start offers every kind's key for the keyring.

The servers check or record the key: the scripted model refuses a request without the right
``Authorization`` as OpenAI does (401 with its error body); the Anthropic and Gemini servers
record the ``x-api-key`` / ``x-goog-api-key`` headers their APIs take.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.environment import KEY_VARIABLES, key_in_environment, ollama_root
from jawad_desktop.core.config.providers import DEFAULT_BASE_URLS, ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.discovery import discover_providers
from jawad_desktop.core.llm.errors import AuthError
from jawad_desktop.core.llm.factory import ProviderKey, client_for, provider_key, resolve_provider
from jawad_desktop.core.llm.local_server import free_port
from jawad_desktop.core.messages import Message
from jawad_desktop.core.store.secrets import SecretStore, provider_key_name
from tests.servers.fault_server import OLLAMA_MODELS, FaultServer
from tests.servers.provider_servers import ANSWER as PROVIDER_ANSWER
from tests.servers.provider_servers import ProviderServer
from tests.servers.scripted_model import ScriptedModel, text

ENV_KEY = "sk-from-the-environment-4821"
STORED_KEY = "sk-from-the-keyring-7364"

pytestmark = pytest.mark.usefixtures("no_environment_keys")


async def ask(client: LLMClient) -> str:
    async with client:
        return (await client.chat([Message(role="user", content="hi")]).response()).content


def test_a_provider_with_no_stored_key_works_from_the_environment_and_the_keyring_wins(
    keyring_ctx: AppContext, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch, arun: Any
) -> None:
    work = ProviderConfig(name="Work", kind=ProviderKind.OPENAI, base_url=scripted_model.base_url, model="scripted")
    keyring_ctx.settings.providers = [work]
    scripted_model.require_key(ENV_KEY)

    with pytest.raises(JawadError) as info:  # neither: the error says both ways to give one
        client_for(keyring_ctx)
    assert info.value.message == "No API key is stored for 'Work' (OpenAI)."
    assert info.value.suggestions == ["Store the OpenAI API key for 'Work', or set OPENAI_API_KEY in the environment."]

    monkeypatch.setenv("OPENAI_API_KEY", f"  {ENV_KEY}\n")  # as a shell profile may leave it
    assert provider_key(keyring_ctx.secrets, work) == ProviderKey(ENV_KEY, "OPENAI_API_KEY")
    scripted_model.script(text("Hello from the environment's key."))
    assert arun(ask(client_for(keyring_ctx))) == "Hello from the environment's key."

    keyring_ctx.secrets.set(provider_key_name("Work"), STORED_KEY)  # both: the keyring's is used
    assert provider_key(keyring_ctx.secrets, work) == ProviderKey(STORED_KEY, "")
    scripted_model.script(text("Refused."))
    with pytest.raises(AuthError):  # the server wants the environment's key, and gets the keyring's
        arun(ask(client_for(keyring_ctx)))
    scripted_model.require_key(STORED_KEY)
    scripted_model.script(text("Hello from the keyring's key."))
    assert arun(ask(client_for(keyring_ctx))) == "Hello from the keyring's key."


def test_without_a_keyring_the_environment_key_still_works(
    profile_dir: Path, scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch, arun: Any
) -> None:
    keyring_ctx = AppContext.open(str(profile_dir), secrets=SecretStore(problem="No system keyring is available."))
    keyring_ctx.settings.providers = [ProviderConfig(name="Router", kind=ProviderKind.OPENROUTER,
                                             base_url=scripted_model.base_url, model="scripted")]
    with pytest.raises(JawadError, match="No system keyring"):
        resolve_provider(keyring_ctx)
    monkeypatch.setenv("OPENROUTER_API_KEY", ENV_KEY)
    scripted_model.require_key(ENV_KEY)
    scripted_model.script(text("Routed."))
    assert arun(ask(client_for(keyring_ctx))) == "Routed."


def test_every_cloud_kind_reads_its_variable(
    keyring_ctx: AppContext, provider_server: ProviderServer, monkeypatch: pytest.MonkeyPatch, arun: Any
) -> None:
    assert {kind: KEY_VARIABLES.get(kind.value, ()) for kind in ProviderKind if kind.needs_key} == {
        ProviderKind.OPENAI: ("OPENAI_API_KEY",), ProviderKind.OPENAI_RESPONSES: ("OPENAI_API_KEY",),
        ProviderKind.OPENROUTER: ("OPENROUTER_API_KEY",), ProviderKind.ANTHROPIC: ("ANTHROPIC_API_KEY",),
        ProviderKind.GEMINI: ("GEMINI_API_KEY", "GEMINI_KEY"),
    }
    monkeypatch.setenv("GEMINI_KEY", "gemini-spec-003-key")  # spec 003's name
    assert key_in_environment(ProviderKind.GEMINI) == ("GEMINI_KEY", "gemini-spec-003-key")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-sdk-key")  # Google's SDK name comes first
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-key")

    for kind, fmt, header, key in ((ProviderKind.ANTHROPIC, "anthropic", "x-api-key", "sk-ant-env-key"),
                                   (ProviderKind.GEMINI, "gemini", "x-goog-api-key", "gemini-sdk-key")):
        provider = ProviderConfig(name=kind.label, kind=kind, base_url=provider_server.url(fmt), model="ok")
        keyring_ctx.settings.providers = [provider]
        assert arun(ask(client_for(keyring_ctx))) == PROVIDER_ANSWER
        assert provider_server.last(fmt)["headers"][header] == key, kind

    # A kind that takes no key is never given one from another kind's variable.
    local = ProviderConfig(name="LM", kind=ProviderKind.OPENAI_COMPATIBLE, base_url="http://127.0.0.1:1/v1")
    assert provider_key(keyring_ctx.secrets, local) == ProviderKey(None)


def test_an_unsaved_provider_from_the_command_line_uses_the_environment(
    keyring_ctx: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(JawadError) as info:
        resolve_provider(keyring_ctx, kind="anthropic", base_url="http://127.0.0.1:1/anthropic/v1")
    assert info.value.suggestions == ["Pass --api-key-env VARIABLE with the key in that variable, "
                                      "or set ANTHROPIC_API_KEY."]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-key")
    _, key = resolve_provider(keyring_ctx, kind="anthropic", base_url="http://127.0.0.1:1/anthropic/v1")
    assert key == "sk-ant-env-key"


def test_ollama_base_url_is_the_ollama_default(
    scripted_model: ScriptedModel, monkeypatch: pytest.MonkeyPatch, arun: Any
) -> None:
    assert ProviderKind.OLLAMA.default_base_url == DEFAULT_BASE_URLS[ProviderKind.OLLAMA] == "http://localhost:11434/v1"
    root = scripted_model.base_url.removesuffix("/v1")
    for value in (root, root + "/", root + "/v1", root + "/v1/"):  # as users write it
        monkeypatch.setenv("OLLAMA_BASE_URL", value)
        assert ollama_root() == root
        assert ProviderKind.OLLAMA.default_base_url == root + "/v1"
        assert ProviderKind.OLLAMA_NATIVE.default_base_url == root
    scripted_model.script(text("Ollama elsewhere."))
    ollama = ProviderConfig(name="Ollama", kind=ProviderKind.OLLAMA, model="scripted")  # no base URL of its own
    assert arun(ask(LLMClient(ollama))) == "Ollama elsewhere."
    assert len(scripted_model.requests) == 1

    monkeypatch.setenv("OLLAMA_BASE_URL", "gpu-box:11434")  # not a URL: the usual default, said in the log
    assert ProviderKind.OLLAMA.default_base_url == "http://localhost:11434/v1"
    assert ProviderKind.OPENAI.default_base_url == "https://api.openai.com/v1"


def test_first_start_offers_every_environment_key_and_ollama_where_it_is(
    fault_server: FaultServer, arun: Any
) -> None:
    environ = {"ANTHROPIC_API_KEY": "sk-ant-secret-1234", "GEMINI_KEY": "gm-secret-5678", "OPENAI_API_KEY": " ",
               "OLLAMA_BASE_URL": fault_server.root}
    offers = arun(discover_providers(lmstudio_url=f"http://127.0.0.1:{free_port()}/v1", environ=environ,
                                     include_local=False))
    by_name = {offer.provider.name: offer for offer in offers}
    assert list(by_name) == ["Ollama", "Anthropic", "Google Gemini"]
    assert by_name["Ollama"].provider.base_url == f"{fault_server.root}/v1"
    assert by_name["Ollama"].models == OLLAMA_MODELS
    assert by_name["Anthropic"].api_key_env == "ANTHROPIC_API_KEY"
    assert by_name["Google Gemini"].api_key_env == "GEMINI_KEY"
    assert by_name["Google Gemini"].provider.kind is ProviderKind.GEMINI
    assert "keyring" in by_name["Anthropic"].description
    assert "secret" not in repr(offers)  # only the variables' names are offered


def test_the_jawad_command_uses_and_shows_the_environment_key(
    profile_dir: Path, secret_store: SecretStore, scripted_model: ScriptedModel
) -> None:
    def jawad(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(profile_dir), *args],
                              capture_output=True, text=True, timeout=60, env={**os.environ, **env}, check=False)

    added = jawad("providers", "add", "Work", "--kind", "openai", "--base-url", scripted_model.base_url,
                  "--model", "scripted", env={"OPENAI_API_KEY": ENV_KEY})  # no key asked for: it is there
    assert added.returncode == 0, added.stderr
    assert "its key comes from OPENAI_API_KEY in the environment" in added.stdout
    assert secret_store.get(provider_key_name("Work")) is None
    try:
        listed = json.loads(jawad("providers", "list", "--json", env={"OPENAI_API_KEY": ENV_KEY}).stdout)
        assert [(row["name"], row["key"]) for row in listed] == [("Work", "key from OPENAI_API_KEY")]
        assert json.loads(jawad("providers", "list", "--json", env={}).stdout)[0]["key"] == "key MISSING"

        scripted_model.require_key(ENV_KEY)
        scripted_model.script(text("ok"))
        tested = jawad("providers", "test", "Work", env={"OPENAI_API_KEY": ENV_KEY})
        assert tested.returncode == 0 and tested.stdout.startswith("OK: Work answered"), tested.stderr
    finally:
        secret_store.delete(provider_key_name("Work"))
