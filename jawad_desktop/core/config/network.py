"""The network settings as the user gives them, checked before they are used, and the one place
that says how every HTTP connection of Jawad's uses them.

``checked_network(...)`` returns ``NetworkSettings`` or raises a ``JawadError`` that says what
is wrong, with neutral suggestions and ``Remedy("network")``: the Settings page shows it inline
and saves nothing. ``client_options(network, url)`` are the httpx options of every client Jawad
builds (the chat and its dialects, speech to text and text to speech APIs, model and voice
downloads, MCP over HTTP): a server on this computer directly, any other through the proxy the
user set (else the environment's), trusting the user's CA bundle (else the system's), with the
user's timeouts. The chat client adds its retries (``core.llm.client``).
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.errors import JawadError, Remedy

if TYPE_CHECKING:  # httpx and urllib.request load with the first connection, not with the window
    import ssl

    import httpx

__all__ = ["check_ca_bundle", "check_proxy_url", "checked_network", "client_options", "is_loopback",
           "proxy_shown", "proxy_without_password", "tls_verify"]

_NETWORK = Remedy("network")
_PEM_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"
_MAX_BUNDLE_BYTES = 16 * 1024 * 1024  # the system's whole store is well under 1 MB


def check_proxy_url(text: str) -> str:
    """The proxy URL to save ("" for none); "proxy.corp:3128" gets the ``http://`` it lacks."""
    url = text.strip()
    if not url:
        return ""
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme.startswith("socks"):
        raise JawadError("SOCKS proxies are not supported.",
                         suggestions=["Use the proxy's HTTP address (http://host:port)."], remedy=_NETWORK)
    if parts.scheme not in ("http", "https"):
        raise JawadError(f"The proxy address {text.strip()!r} must start with http:// or https://.",
                         suggestions=["Enter it as http://host:port."], remedy=_NETWORK)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname or port == -1 or parts.path not in ("", "/"):
        raise JawadError(f"The proxy address {text.strip()!r} is not valid.",
                         suggestions=["Enter it as http://host:port (with user:password@ before the host "
                                      "if the proxy needs a login)."], remedy=_NETWORK)
    return url.rstrip("/")


def check_ca_bundle(text: str) -> str:
    """The CA bundle's path to save ("" for the system's certificates): it must be a readable
    PEM file with at least one certificate that Python's TLS accepts."""
    raw = text.strip()
    if not raw:
        return ""
    path = Path(raw).expanduser()
    if not path.is_file():
        raise JawadError(f"The CA bundle {path} does not exist" + (" (it is a folder)." if path.is_dir() else "."),
                         suggestions=["Choose the PEM file with the certificates, or clear the field."],
                         remedy=_NETWORK)
    try:
        with path.open("rb") as file:
            head = file.read(_MAX_BUNDLE_BYTES + 1)
    except OSError as exc:
        raise JawadError(f"The CA bundle {path} could not be read: {exc.strerror or exc}.",
                         suggestions=["Check that the file is readable."], remedy=_NETWORK) from None
    if len(head) > _MAX_BUNDLE_BYTES or _PEM_CERTIFICATE not in head:
        raise JawadError(f"The CA bundle {path} is not a PEM file of certificates.",
                         suggestions=["Choose a file with '-----BEGIN CERTIFICATE-----' blocks (.pem or .crt); "
                                      "convert a DER (.cer) file with `openssl x509 -inform der`."],
                         remedy=_NETWORK)
    import ssl

    try:
        ssl.create_default_context(cafile=str(path))
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise JawadError(f"The certificates in {path} could not be loaded: {exc}.",
                         suggestions=["Choose a PEM file with valid certificates."], remedy=_NETWORK) from None
    return str(path)


def checked_network(
    *,
    proxy_url: str,
    ca_bundle: str,
    connect_timeout_s: float,
    read_timeout_s: float,
    total_timeout_s: float,
    max_retries: int,
) -> NetworkSettings:
    """The settings the user entered, checked; a ``JawadError`` says what is wrong."""
    proxy, bundle = check_proxy_url(proxy_url), check_ca_bundle(ca_bundle)
    try:
        return NetworkSettings(proxy_url=proxy, ca_bundle=bundle, connect_timeout_s=connect_timeout_s,
                               read_timeout_s=read_timeout_s, total_timeout_s=total_timeout_s,
                               max_retries=max_retries)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]).removesuffix("_s").replace("_", " ") if first.get("loc") else "value"
        raise JawadError(f"The {field} is out of range: {first.get('msg', 'invalid')}.", remedy=_NETWORK) from None


def proxy_without_password(url: str) -> str:
    """``url`` as it may be shown: scheme, host and port, never a user name or password."""
    parts = urlsplit(url if "://" in url else "http://" + url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{parts.scheme}://{parts.hostname or ''}" + (f":{port}" if port else "")


def is_loopback(url: str) -> bool:
    """True for a server on this computer (localhost, 127.x, ::1): reached without a proxy."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def proxy_shown(configured: str, url: str) -> str:
    """The proxy a request to ``url`` goes through, as a message may name it (no password):
    none for a server on this computer, else the setting's, else the environment's
    (``HTTPS_PROXY``..., unless ``NO_PROXY`` covers the host); "" for none."""
    if is_loopback(url):
        return ""
    proxy = configured
    if not proxy:
        import urllib.request

        found = urllib.request.getproxies()
        parts = urlsplit(url)
        if parts.hostname and urllib.request.proxy_bypass(parts.hostname):  # NO_PROXY
            return ""
        proxy = found.get(parts.scheme) or found.get("all", "")
    return proxy_without_password(proxy) if proxy else ""


def tls_verify(network: NetworkSettings) -> ssl.SSLContext | bool:
    """Python's TLS with the user's CA bundle, else the system's certificates; a bundle that
    cannot be used raises the ``JawadError`` that says why."""
    import ssl

    bundle = check_ca_bundle(network.ca_bundle)
    return ssl.create_default_context(cafile=bundle) if bundle else True


def client_options(network: NetworkSettings | None, url: str,
                   timeout: httpx.Timeout | float | None = None) -> dict[str, Any]:
    """The options of an ``httpx`` client that talks to ``url`` (keyword arguments of
    ``httpx.Client``/``AsyncClient``): loopback servers never go through a proxy and ignore the
    environment's; others use the proxy setting, else the environment's, and the CA bundle.
    ``timeout`` overrides the settings' connect/read timeouts. ``None``: the defaults."""
    import httpx

    net = network if network is not None else NetworkSettings()
    loopback = is_loopback(url)
    if timeout is None:
        timeout = httpx.Timeout(connect=net.connect_timeout_s, read=net.read_timeout_s,
                                write=net.connect_timeout_s, pool=net.connect_timeout_s)
    return {
        "proxy": (net.proxy_url or None) if not loopback else None,
        "trust_env": not loopback,
        "verify": tls_verify(net),
        "timeout": timeout,
    }
