"""AWS Bedrock Converse against a loopback server that checks every SigV4 signature and
streams AWS's binary event stream: text, tool use and its result, errors, credentials."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.bedrock import bedrock_region
from jawad_desktop.core.llm.client import LLMClient, RetryPolicy
from jawad_desktop.core.llm.errors import AuthError, LLMError, ModelNotFoundError, RateLimitedError
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.llm.types import ChatResponse
from jawad_desktop.core.messages import Message
from tests.providers.test_providers import HELLO, TOOLS
from tests.servers.provider_servers import (
    ANSWER,
    BEDROCK_CREDENTIALS,
    BEDROCK_REGION,
    WORDS,
    ProviderServer,
    weather_answer,
)

MODEL = "anthropic.claude-3-haiku-20240307-v1:0"


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    key, secret, token = BEDROCK_CREDENTIALS
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    monkeypatch.setenv("AWS_SESSION_TOKEN", token)
    monkeypatch.setenv("AWS_REGION", BEDROCK_REGION)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def bedrock(server: ProviderServer, model: str = MODEL, retries: int = 0) -> LLMClient:
    provider = ProviderConfig(name="AWS", kind=ProviderKind.BEDROCK, base_url=server.url("bedrock"), model=model)
    return make_client(provider, None, NetworkSettings(max_retries=retries),
                       retry=RetryPolicy(max_retries=retries, base_delay_s=0.01))


def test_streamed_text_signed(aws_env: None, provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> tuple[list[str], ChatResponse]:
        texts = []
        async with bedrock(provider_server) as c, c.chat(HELLO) as stream:
            async for delta in stream:
                texts.append(delta.text)
            return texts, await stream.response()

    texts, response = arun(run())
    assert texts == WORDS and response.content == ANSWER and response.finish_reason == "stop"
    assert response.metadata["input_tokens"] == 15 and response.metadata["total_tokens"] == 20
    request = provider_server.last("bedrock")
    assert request["path"] == "/bedrock/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream"
    assert request["body"]["system"] == [{"text": "Be brief."}]
    assert request["body"]["messages"] == [{"role": "user", "content": [{"text": "Hello?"}]}]
    assert request["body"]["inferenceConfig"] == {"maxTokens": 4096}
    assert f"/{BEDROCK_REGION}/bedrock/aws4_request" in request["headers"]["authorization"]


@pytest.mark.parametrize("stream", [True, False])
def test_tool_use_round_trip(stream: bool, aws_env: None, provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> tuple[ChatResponse, ChatResponse]:
        async with bedrock(provider_server, "tool.model") as c:
            first = await c.chat(HELLO, TOOLS, stream=stream).response()
            history = [*HELLO, first.to_message(),
                       Message(role="tool", content="sunny", tool_call_id=first.tool_calls[0].id)]
            return first, await c.chat(history, TOOLS, stream=stream).response()

    first, second = arun(run())
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("tooluse_1", "get_weather", {"city": "Paris"})]
    assert first.finish_reason == "tool_calls" and second.content == weather_answer("sunny")
    body = provider_server.last("bedrock")["body"]
    assert body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"] == {"json": TOOLS[0]["function"]["parameters"]}
    assert body["messages"][-2]["content"][-1] == {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather",
                                                               "input": {"city": "Paris"}}}
    assert body["messages"][-1] == {"role": "user", "content": [
        {"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "sunny"}]}}]}


@pytest.mark.parametrize(("model", "error", "words"), [
    ("status-403", AuthError, "don't have access"),
    ("status-404", ModelNotFoundError, "Model not found"),
    ("status-429", RateLimitedError, "Too many requests"),
])
def test_errors(model: str, error: type[LLMError], words: str, aws_env: None, provider_server: ProviderServer,
                arun: Any) -> None:
    async def run() -> LLMError:
        try:
            async with bedrock(provider_server, model) as c:
                await c.chat(HELLO).response()
        except LLMError as exc:
            return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert type(exc) is error and words in exc.user_text()


def test_exception_inside_the_stream(aws_env: None, provider_server: ProviderServer, arun: Any) -> None:
    async def run() -> LLMError:
        try:
            async with bedrock(provider_server, "stream-error") as c:
                await c.chat(HELLO).response()
        except LLMError as exc:
            return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert isinstance(exc, RateLimitedError) and "throttlingException" in exc.user_text()
    assert exc.partial is not None and exc.partial.content == "Hello from"


def test_wrong_secret_is_refused(aws_env: None, monkeypatch: pytest.MonkeyPatch, provider_server: ProviderServer,
                                 arun: Any) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")

    async def run() -> LLMError:
        try:
            async with bedrock(provider_server) as c:
                await c.chat(HELLO).response()
        except LLMError as exc:
            return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert isinstance(exc, AuthError) and "signature" in exc.message and "AWS credentials" in exc.user_text()


def test_missing_credentials(monkeypatch: pytest.MonkeyPatch, provider_server: ProviderServer, arun: Any,
                             tmp_path: Any) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))

    async def run() -> LLMError:
        try:
            async with bedrock(provider_server) as c:
                await c.chat(HELLO).response()
        except LLMError as exc:
            return exc
        raise AssertionError("no error")

    exc = arun(run())
    assert isinstance(exc, AuthError) and "No AWS credentials" in exc.message and "AWS_PROFILE" in exc.user_text()


def test_region_and_models(aws_env: None, monkeypatch: pytest.MonkeyPatch, provider_server: ProviderServer,
                           arun: Any) -> None:
    assert bedrock_region() == BEDROCK_REGION and bedrock_region("ap-south-1") == "ap-south-1"
    monkeypatch.delenv("AWS_REGION")
    assert bedrock_region() == "us-east-1"
    default = make_client(ProviderConfig(name="A", kind=ProviderKind.BEDROCK, model=MODEL, region="eu-west-1"))
    assert default.base_url == "https://bedrock-runtime.eu-west-1.amazonaws.com"

    async def run() -> list[str]:
        async with bedrock(provider_server) as c:
            return await c.list_models()

    assert arun(run()) == ["anthropic.claude-3-haiku-20240307-v1:0", "amazon.nova-lite-v1:0"]


def test_settings_page_has_bedrock_fields(qtbot: Any, profile_dir: Any, secret_store: Any) -> None:
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.ui.settings.dialog import SettingsDialog

    dialog = SettingsDialog(AppContext.open(str(profile_dir), secrets=secret_store))
    qtbot.addWidget(dialog)
    page = dialog.providers
    page.new_provider()
    assert not page.region.isEnabled()
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.BEDROCK))
    assert page.region.isEnabled() and not page.api_key.isEnabled()
    page.name.setText("AWS")
    page.model.setEditText(MODEL)
    page.region.setText("eu-west-3")
    page.aws_profile.setText("work")
    assert page.save(), page.status.text()
    saved = dialog.ctx.settings.provider("AWS")
    assert saved is not None
    assert (saved.kind, saved.region, saved.profile) == (ProviderKind.BEDROCK, "eu-west-3", "work")
