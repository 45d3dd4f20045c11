"""AWS Signature Version 4 for httpx, and AWS credentials as spec 003 reads them.

Small on purpose (botocore is 100 MB of service models we do not need): the signer covers
what the Bedrock Runtime API uses, JSON POSTs and GETs with a query string, and is tested
against AWS's published example signature.

Credentials come from the environment only (``AWS_ACCESS_KEY_ID`` and
``AWS_SECRET_ACCESS_KEY``, optional ``AWS_SESSION_TOKEN``) or from a named profile in
``~/.aws/credentials`` (``AWS_PROFILE`` or the provider's profile; the files named by
``AWS_SHARED_CREDENTIALS_FILE`` / ``AWS_CONFIG_FILE`` are honoured). Never from the app's
settings file.
"""

from __future__ import annotations

import configparser
import datetime
import hashlib
import hmac
import os
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx

__all__ = ["AwsCredentials", "SigV4Auth", "find_credentials", "signature_headers"]


@dataclass(frozen=True)
class AwsCredentials:
    access_key: str
    secret_key: str
    session_token: str = ""
    source: str = ""  # where they came from, for messages ("environment", "profile work")


def find_credentials(profile: str = "", environ: Mapping[str, str] | None = None) -> AwsCredentials | None:
    """Credentials from the environment, else from the profile; None when there are none."""
    env = os.environ if environ is None else environ
    if not profile and env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):
        return AwsCredentials(env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"],
                              env.get("AWS_SESSION_TOKEN", ""), "environment")
    name = profile or env.get("AWS_PROFILE", "")
    if not name:
        return None
    home = Path(env.get("HOME") or Path.home())
    files = [Path(env.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials"),
             Path(env.get("AWS_CONFIG_FILE") or home / ".aws" / "config")]
    for path, section in ((files[0], name), (files[1], name if name == "default" else f"profile {name}")):
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (OSError, configparser.Error):
            continue
        if parser.has_section(section) and parser.has_option(section, "aws_access_key_id"):
            return AwsCredentials(parser.get(section, "aws_access_key_id").strip(),
                                  parser.get(section, "aws_secret_access_key", fallback="").strip(),
                                  parser.get(section, "aws_session_token", fallback="").strip(),
                                  f"profile {name}")
    return None


def profile_region(profile: str, environ: Mapping[str, str] | None = None) -> str:
    """The ``region`` of a profile in ``~/.aws/config``, or ''."""
    env = os.environ if environ is None else environ
    name = profile or env.get("AWS_PROFILE", "")
    if not name:
        return ""
    path = Path(env.get("AWS_CONFIG_FILE") or Path(env.get("HOME") or Path.home()) / ".aws" / "config")
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error):
        return ""
    section = name if name == "default" else f"profile {name}"
    return parser.get(section, "region", fallback="").strip() if parser.has_section(section) else ""


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signature_headers(
    method: str, url: httpx.URL, headers: Mapping[str, str], body: bytes, credentials: AwsCredentials,
    region: str, service: str, now: datetime.datetime | None = None, *, payload_header: bool = True,
) -> dict[str, str]:
    """The headers that sign one request: ``x-amz-date``, ``x-amz-content-sha256``,
    ``x-amz-security-token`` when there is one, and ``Authorization``."""
    when = (now or datetime.datetime.now(datetime.UTC)).strftime("%Y%m%dT%H%M%SZ")
    day = when[:8]
    payload_hash = hashlib.sha256(body).hexdigest()
    added = {"x-amz-date": when}
    if payload_header:  # AWS's published example signs without it; every service accepts it
        added["x-amz-content-sha256"] = payload_hash
    if credentials.session_token:
        added["x-amz-security-token"] = credentials.session_token
    signed = {k.lower(): " ".join(str(v).split()) for k, v in headers.items()}
    signed.update(added)
    signed["host"] = url.netloc.decode()
    names = sorted(signed)
    # Every AWS service but S3 signs the path URI-encoded once more (botocore does the same).
    path = quote(url.raw_path.split(b"?", 1)[0].decode() or "/", safe="/~")
    query = "&".join(sorted(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in url.params.multi_items()))
    canonical = "\n".join([method.upper(), path, query, "".join(f"{n}:{signed[n]}\n" for n in names),
                           ";".join(names), payload_hash])
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", when, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(_hmac(_hmac(_hmac(f"AWS4{credentials.secret_key}".encode(), day), region), service), "aws4_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    added["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={credentials.access_key}/{scope}, "
                              f"SignedHeaders={';'.join(names)}, Signature={signature}")
    return added


class SigV4Auth(httpx.Auth):
    """Signs every request of an httpx client (bodies are JSON, so already in memory).

    The service is the first label of the host (``bedrock-runtime``, ``bedrock``), or
    ``default_service`` for an endpoint override such as a loopback test server.
    """

    requires_request_body = True

    def __init__(self, credentials: AwsCredentials, region: str, default_service: str = "bedrock") -> None:
        self.credentials = credentials
        self.region = region
        self.default_service = default_service

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        host = request.url.host
        service = host.split(".", 1)[0] if host.endswith(".amazonaws.com") else self.default_service
        signed_source = {k: v for k, v in request.headers.items()
                         if k.lower() in ("content-type", "accept")}
        request.headers.update(signature_headers(request.method, request.url, signed_source, request.content,
                                                 self.credentials, self.region, service))
        yield request
