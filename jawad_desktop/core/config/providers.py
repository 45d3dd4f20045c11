"""What a provider is, as the user configures it: kind, name, base URL, model.

The API key is never part of this model: it lives in the OS keyring under the provider's
name (see ``core.store.secrets``).
"""

from __future__ import annotations

import re
from enum import StrEnum
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from jawad_desktop.core.config.environment import ollama_root


class ProviderKind(StrEnum):
    """The kinds of provider the app knows how to talk to."""

    OPENAI = "openai"
    OPENROUTER = "openrouter"
    OLLAMA = "ollama"
    OPENAI_COMPATIBLE = "openai-compatible"
    LOCAL = "local"  # the built-in llama.cpp server with the bundled small model
    # Providers with their own wire format (core.llm.provider_clients):
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"
    OPENAI_RESPONSES = "openai-responses"
    OLLAMA_NATIVE = "ollama-native"
    BEDROCK = "bedrock"  # AWS credentials from the environment or a profile, never the keyring

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def default_base_url(self) -> str:
        """The kind's usual address; for Ollama, ``OLLAMA_BASE_URL`` when it is set (spec 003)."""
        if self in (ProviderKind.OLLAMA, ProviderKind.OLLAMA_NATIVE) and (root := ollama_root()):
            return root if self is ProviderKind.OLLAMA_NATIVE else f"{root}/v1"
        return DEFAULT_BASE_URLS[self]

    @property
    def needs_key(self) -> bool:
        return self in (ProviderKind.OPENAI, ProviderKind.OPENROUTER, ProviderKind.ANTHROPIC,
                        ProviderKind.GEMINI, ProviderKind.OPENAI_RESPONSES)


_LABELS: dict[ProviderKind, str] = {
    ProviderKind.OPENAI: "OpenAI",
    ProviderKind.OPENROUTER: "OpenRouter",
    ProviderKind.OLLAMA: "Ollama",
    ProviderKind.OPENAI_COMPATIBLE: "OpenAI-compatible server",
    ProviderKind.LOCAL: "Built-in local model",
    ProviderKind.ANTHROPIC: "Anthropic",
    ProviderKind.GEMINI: "Google Gemini",
    ProviderKind.OPENAI_RESPONSES: "OpenAI (Responses API)",
    ProviderKind.OLLAMA_NATIVE: "Ollama (native API)",
    ProviderKind.BEDROCK: "AWS Bedrock",
}

DEFAULT_BASE_URLS: dict[ProviderKind, str] = {
    ProviderKind.OPENAI: "https://api.openai.com/v1",
    ProviderKind.OPENROUTER: "https://openrouter.ai/api/v1",
    ProviderKind.OLLAMA: "http://localhost:11434/v1",
    ProviderKind.OPENAI_COMPATIBLE: "http://localhost:1234/v1",
    ProviderKind.LOCAL: "",
    ProviderKind.ANTHROPIC: "https://api.anthropic.com/v1",
    ProviderKind.GEMINI: "https://generativelanguage.googleapis.com/v1beta",
    ProviderKind.OPENAI_RESPONSES: "https://api.openai.com/v1",
    ProviderKind.OLLAMA_NATIVE: "http://localhost:11434",
    ProviderKind.BEDROCK: "",  # https://bedrock-runtime.{region}.amazonaws.com
}

# Spec 003's reasoning levels; "" leaves the model's default.
REASONING_LEVELS = ("", "none", "low", "medium", "high")

_NAME_RE = re.compile(r"^[\w][\w .@+-]{0,63}$")


def validate_base_url(url: str) -> str:
    """Return the URL without a trailing slash, or raise ValueError saying what is wrong."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ValueError("The base URL must start with http:// or https://")
    if not parts.hostname:
        raise ValueError("The base URL has no host name")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise ValueError("The base URL has an invalid port") from exc
    return url.rstrip("/")


class ProviderConfig(BaseModel):
    """One configured provider. Validation errors are phrased for the Settings dialog."""

    model_config = ConfigDict(extra="ignore", use_enum_values=False)

    name: str = Field(description="A name the user chooses, unique among providers")
    kind: ProviderKind
    base_url: str = ""
    model: str = ""
    reasoning: str = Field("", description="none, low, medium or high where the model supports it")
    embedding_model: str = ""  # for semantic search; empty: a common model of the kind
    region: str = ""  # Bedrock: empty means AWS_REGION, the profile's region, else us-east-1
    profile: str = ""  # Bedrock: an AWS profile in ~/.aws/credentials; empty means the environment
    # Kind "local": the .gguf file the built-in llama.cpp server runs; empty: the bundled SmolLM2
    # (core.llm.local_models chooses it, core.llm.local_server runs it).
    model_file: str = ""
    # The model's context window in tokens, as the user knows it; 0: found out (core.llm.context_window).
    context_window: int = Field(0, ge=0, le=10_000_000)

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("The name must not be empty")
        if not _NAME_RE.match(value):
            raise ValueError("Use up to 64 letters, digits, spaces or . @ + - _ in the name")
        return value

    @field_validator("reasoning")
    @classmethod
    def _check_reasoning(cls, value: str) -> str:
        value = value.strip().lower()
        if value == "med":
            value = "medium"
        if value not in REASONING_LEVELS:
            raise ValueError("The reasoning level must be none, low, medium or high")
        return value

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        if not value.strip():
            return ""
        return validate_base_url(value)

    def keeping_model_file(self, old: ProviderConfig | None) -> ProviderConfig:
        """This provider with ``old``'s chosen gguf when it is still the same local model (the
        provider forms do not show ``model_file``: an edit must not drop it)."""
        if (old is None or not old.model_file or self.model_file or self.kind is not ProviderKind.LOCAL
                or old.kind is not ProviderKind.LOCAL or self.model != old.model):
            return self
        return self.model_copy(update={"model_file": old.model_file})

    @property
    def effective_base_url(self) -> str:
        """The base URL to use: the configured one, else the kind's default."""
        return self.base_url or self.kind.default_base_url
