"""The network settings, end to end: requests to a provider go through a real proxy on
loopback (``tests/servers/http_proxy.py``), an HTTPS provider whose certificate was made by
the test is trusted only with the CA bundle setting, and a dead proxy or an untrusted
certificate is a clear error whose remedy is the Network settings.

The client never sends requests for a server on this computer through a proxy (a local Ollama
must keep working behind a company proxy). So the provider here is called ``provider.test``,
a name that is not loopback and that only the test proxy knows: it resolves it to 127.0.0.1,
where the loopback servers listen. Without the proxy the name does not resolve at all, which
also shows that the answers did come through the proxy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.serialization import Encoding

from jawad_desktop.core.config.network import check_ca_bundle, check_proxy_url, checked_network, proxy_shown
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError, Remedy
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.connection import test_connection
from jawad_desktop.core.llm.errors import LLMError, NetworkError
from jawad_desktop.core.llm.local_server import free_port
from jawad_desktop.core.messages import Message
from jawad_desktop.ui.base.remedies import error_text
from tests.fixtures.certificates import TestCA
from tests.fixtures.network import PROVIDER_HOST
from tests.servers.fault_server import ANSWER, FaultServer
from tests.servers.http_proxy import HttpProxy
from tests.servers.scripted_model import ScriptedModel, text

NAME = PROVIDER_HOST
pytestmark = pytest.mark.usefixtures("no_environment_proxy")
HELLO = [Message(role="user", content="Hello?")]


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


def network(**fields: Any) -> NetworkSettings:
    return NetworkSettings(**{"connect_timeout_s": 5, "read_timeout_s": 10, "total_timeout_s": 30, "max_retries": 0,
                              **fields})


async def ask(provider: ProviderConfig, settings: NetworkSettings, key: str | None = None) -> str:
    async with LLMClient(provider, key, settings) as client:
        return (await client.chat(HELLO).response()).content


async def failure(provider: ProviderConfig, settings: NetworkSettings) -> LLMError:
    try:
        await ask(provider, settings)
    except LLMError as exc:
        return exc
    raise AssertionError("the request should have failed")


def test_requests_to_a_provider_go_through_the_proxy(
    scripted_model: ScriptedModel, provider_proxy: HttpProxy, arun: Any
) -> None:
    port = port_of(scripted_model.base_url)
    provider = ProviderConfig(name="Remote", kind=ProviderKind.OPENAI, base_url=f"http://{NAME}:{port}/v1",
                              model="scripted")
    scripted_model.script(text("Through the proxy."), text("Again."))
    scripted_model.require_key("sk-remote-1234567890")

    answer = arun(ask(provider, network(proxy_url=provider_proxy.url), "sk-remote-1234567890"))
    assert answer == "Through the proxy."
    assert provider_proxy.targets("POST") == [f"http://{NAME}:{port}/v1/chat/completions"]
    assert len(scripted_model.requests) == 1

    # The same request without the proxy: the name means nothing outside the proxy.
    error = arun(failure(provider, network()))
    assert isinstance(error, NetworkError) and "does not resolve" in error.message
    assert len(provider_proxy.seen) == 1 and len(scripted_model.requests) == 1


def test_loopback_providers_never_use_the_proxy(
    scripted_model: ScriptedModel, provider_proxy: HttpProxy, arun: Any
) -> None:
    scripted_model.script(text("Direct."))
    assert arun(ask(scripted_model.provider(), network(proxy_url=provider_proxy.url))) == "Direct."
    assert provider_proxy.seen == []
    assert proxy_shown(provider_proxy.url, scripted_model.base_url) == ""


def test_https_provider_signed_by_the_ca_bundle_works_through_the_proxy(
    https_provider: FaultServer, provider_ca: TestCA, provider_proxy: HttpProxy, arun: Any
) -> None:
    port = port_of(https_provider.base_url)
    provider = ProviderConfig(name="Secure", kind=ProviderKind.OPENAI_COMPATIBLE,
                              base_url=f"https://{NAME}:{port}/v1", model="ok")

    assert arun(ask(provider, network(proxy_url=provider_proxy.url, ca_bundle=str(provider_ca.bundle)))) == ANSWER
    assert provider_proxy.targets("CONNECT") == [f"{NAME}:{port}"]  # a tunnel: the TLS is end to end

    # Without the bundle the certificate is nobody's the system trusts: a clear error, fixed in Network.
    error = arun(failure(provider, network(proxy_url=provider_proxy.url)))
    assert isinstance(error, NetworkError)
    assert error.message == f"The secure connection to {NAME} failed: its certificate could not be verified."
    assert error.remedy == Remedy("network")
    assert any("CA bundle" in tip for tip in error.suggestions)
    assert "Settings → Network" in error_text(error)  # how the window words it

    result = arun(test_connection(provider, None, network(proxy_url=provider_proxy.url)))
    assert not result.success and "certificate could not be verified" in result.error
    assert Remedy.from_json(result.remedy) == Remedy("network")
    trusted = network(proxy_url=provider_proxy.url, ca_bundle=str(provider_ca.bundle))
    assert arun(test_connection(provider, None, trusted)).success


def test_a_dead_proxy_is_named_and_not_retried(scripted_model: ScriptedModel, arun: Any) -> None:
    port = port_of(scripted_model.base_url)
    provider = ProviderConfig(name="Remote", kind=ProviderKind.OPENAI_COMPATIBLE,
                              base_url=f"http://{NAME}:{port}/v1", model="scripted")
    dead = free_port()
    settings = network(proxy_url=f"http://jo:s3cret-pass@127.0.0.1:{dead}", max_retries=3)

    error = arun(failure(provider, settings))
    assert isinstance(error, NetworkError)
    assert error.message == f"Can't reach the proxy http://127.0.0.1:{dead}: is it running and the address right?"
    assert error.remedy == Remedy("network") and not error.retryable  # nothing listens there: no waiting
    assert "s3cret" not in error_text(error) and "s3cret" not in error.detail
    assert scripted_model.requests == []


def test_the_checks_of_what_the_user_types(provider_ca: TestCA, tmp_path: Path) -> None:
    assert check_proxy_url("") == ""
    assert check_proxy_url(" proxy.corp:3128 ") == "http://proxy.corp:3128"
    assert check_proxy_url("https://u:p@proxy.corp:8443/") == "https://u:p@proxy.corp:8443"
    for bad, words in (("socks5://proxy:1080", "SOCKS"), ("ftp://proxy:21", "http://"),
                       ("http://proxy:99999", "not valid"), ("http://proxy:3128/path", "not valid")):
        with pytest.raises(JawadError, match=words) as info:
            check_proxy_url(bad)
        assert info.value.remedy == Remedy("network")

    assert check_ca_bundle(str(provider_ca.bundle)) == str(provider_ca.bundle)
    der = tmp_path / "ca.der"
    der.write_bytes(provider_ca.certificate.public_bytes(Encoding.DER))
    broken = tmp_path / "broken.pem"
    broken.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    for path, words in ((tmp_path / "missing.pem", "does not exist"), (tmp_path, "it is a folder"),
                        (der, "not a PEM file"), (broken, "could not be loaded")):
        with pytest.raises(JawadError, match=words):
            check_ca_bundle(str(path))

    with pytest.raises(JawadError, match="not a PEM file"):
        checked_network(proxy_url="", ca_bundle=str(der), connect_timeout_s=5, read_timeout_s=5,
                        total_timeout_s=5, max_retries=0)
    settings = checked_network(proxy_url="proxy:3128", ca_bundle=f" {provider_ca.bundle} ", connect_timeout_s=4,
                               read_timeout_s=50, total_timeout_s=500, max_retries=2)
    assert settings == NetworkSettings(proxy_url="http://proxy:3128", ca_bundle=str(provider_ca.bundle),
                                       connect_timeout_s=4, read_timeout_s=50, total_timeout_s=500, max_retries=2)
