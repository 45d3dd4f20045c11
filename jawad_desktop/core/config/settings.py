"""The settings schema: what the user can set, as pydantic models (one JSON file on disk).

This is the vocabulary of the whole app's configuration: the providers (``providers``), the MCP
servers (``mcp``) and each section below. Loading and saving the file is ``core.store.settings_file``;
API keys are never part of it (see ``core.store.secrets``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from jawad_desktop.core.config.mcp import McpSettings
from jawad_desktop.core.config.providers import ProviderConfig

SETTINGS_VERSION = 1
SYSTEM_PROMPT_MAX_CHARS = 20_000  # the user's own instructions (AgentSettings.system_prompt)


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)


class NetworkSettings(_Section):
    """How the LLM client reaches providers."""

    proxy_url: str = ""  # empty: use the environment's proxy settings
    ca_bundle: str = ""  # empty: the system's certificate store
    connect_timeout_s: float = Field(10.0, gt=0, le=300)
    read_timeout_s: float = Field(120.0, gt=0, le=3600)  # longest wait between two chunks
    total_timeout_s: float = Field(600.0, gt=0, le=7200)
    max_retries: int = Field(3, ge=0, le=10)


class AgentSettings(_Section):
    """The agent loop."""

    max_iterations: int = Field(10, ge=1, le=50)
    # A run's budget besides its steps (core/agent/usage.py): stopped after the request that
    # goes over it. 0: no limit. The cost is the provider's figure, else the price table's.
    max_run_tokens: int = Field(0, ge=0, le=100_000_000)
    max_run_cost_usd: float = Field(0.0, ge=0.0, le=10_000.0)
    max_tool_retries: int = Field(2, ge=0, le=10)
    temperature: float = Field(0.3, ge=0.0, le=2.0)
    max_tokens: int = Field(4096, ge=16, le=200_000)
    history_max_messages: int = Field(100, ge=2, le=10_000)
    history_token_budget: int = Field(24_000, ge=512, le=2_000_000)
    tool_format: Literal["auto", "native", "xml", "json"] = "auto"
    # The user's standing instructions, put into the system prompt after the app's rules.
    system_prompt: str = Field("", max_length=SYSTEM_PROMPT_MAX_CHARS)
    # Plan-first mode (core/agent/plan_first.py): before acting, the agent proposes the sites and the
    # kinds of actions it will use; the user approves the plan, and anything outside it asks.
    plan_first: bool = False
    # The largest file attached to a message or indexed in the document library (core/tools/files).
    max_attachment_mb: int = Field(25, ge=1, le=2000)
    # Whether the document library also ranks by meaning with the provider's embeddings, which sends
    # the text of every indexed page to it: "local" only when the model runs on this computer
    # (the built-in server, Ollama, any loopback address), "any" with every provider, "off" never.
    library_embeddings: Literal["local", "any", "off"] = "local"


class MemorySettings(_Section):
    """What Jawad remembers across conversations (``core.store.memory``)."""

    enabled: bool = True  # facts the user asked Jawad to remember go to the model with each message
    budget_chars: int = Field(1200, ge=100, le=20_000)  # how much of the memory one request carries


class BrowserSettings(_Section):
    """The embedded browser."""

    home_url: str = "about:blank"
    search_engine: str = "https://html.duckduckgo.com/html/?q={query}"
    off_the_record: bool = False
    max_elements: int = Field(150, ge=10, le=2000)  # elements read_page indexes (and again in the site's navigation)
    permission_timeout_s: float = Field(120.0, ge=5.0, le=3600.0)  # no answer in time means deny
    highlight_ms: int = Field(350, ge=0, le=5000)  # how long the target shows before an action


class VoiceSettings(_Section):
    """Microphone capture and transcription."""

    backend: Literal["local", "api"] = "local"
    fallback: bool = False
    input_device: str = ""  # empty: the system default
    mode: Literal["toggle", "push_to_talk"] = "toggle"
    model_size: str = "tiny.en"
    compute_type: str = "int8"
    # Local Whisper's beam search width: 1 is greedy decoding (benchmarks/bench_beam.py measured the default).
    beam_size: int = Field(2, ge=1, le=10)
    language: str = ""  # empty: automatic (a multilingual model detects it; the .en models are English)
    api_provider: str = ""  # a provider name whose key and base URL are used for the Whisper API
    api_model: str = "whisper-1"
    # The longest pause that ends a turn: after an unfinished sentence ("I'd like to..."); a finished
    # one ends after 0.5 s, and without a transcript (Whisper API) halfway (core.voice.vad.turn_wait_s).
    silence_stop_s: float = Field(1.5, ge=0.3, le=10.0)
    max_length_s: float = Field(60.0, ge=2.0, le=600.0)
    no_speech_timeout_s: float = Field(8.0, ge=1.0, le=120.0)  # stop when nothing is said at all
    partial_results: bool = True  # live transcripts while speaking (local backend)
    auto_send: bool = False
    speak_replies: bool = False
    # Spoken replies and conversation mode (core.voice.tts, core.voice.conversation).
    tts_backend: Literal["auto", "api", "piper", "espeak"] = "auto"  # auto: Piper if set up, else espeak-ng
    tts_provider: str = ""  # a provider whose base URL and key serve /audio/speech; empty: the active one
    tts_model: str = "tts-1"
    tts_voice: str = "alloy"  # the speech API's voice
    piper_voice: str = ""  # a Piper voice file (.onnx, with its .onnx.json beside it)
    espeak_voice: str = ""  # an espeak-ng voice name; empty: its default
    speech_rate: float = Field(1.0, ge=0.25, le=4.0)  # 1.0 is each engine's normal speed
    output_device: str = ""  # empty: the system default
    announce_tools: bool = True  # say "Reading the page" when the agent starts a tool
    conversation_timeout_s: float = Field(20.0, ge=3.0, le=600.0)  # silence that ends conversation mode
    barge_in: bool = True  # speaking over a reply stops it
    echo_cancel: bool = True  # use the sound server's echo cancellation when it offers it
    # "Hey Jawad" heard while the window is hidden (core.voice.wake): off unless the user turns it on,
    # since it keeps the microphone open (the tray shows it).
    wake_word: bool = False


class UISettings(_Section):
    """How the window looks and what it restores."""

    theme: Literal["system", "light", "dark", "high-contrast"] = "system"
    accent: str = "#2f6fed"  # the accent colour, #rrggbb (ui.theme adjusts it per theme for contrast)
    font_size: int = Field(11, ge=7, le=32)
    window_geometry: str = ""  # base64 of QWidget.saveGeometry()
    splitter_sizes: dict[str, list[int]] = Field(default_factory=dict)
    browser_detached: bool = False  # the browser in its own window (ui.window.browser_detach)
    browser_window_geometry: str = ""  # base64 of that window's QWidget.saveGeometry()
    last_conversation_id: str = ""

    @field_validator("accent", mode="before")
    @classmethod
    def _accent_colour(cls, value: object) -> str:
        """A malformed accent is the default one, not a settings file that fails to load."""
        text = value.strip().lower() if isinstance(value, str) else ""
        hex_ok = len(text) == 7 and text[0] == "#" and all(ch in "0123456789abcdef" for ch in text[1:])
        return text if hex_ok else "#2f6fed"


class DesktopSettings(_Section):
    """The tray icon, the global hotkeys and desktop notifications (``ui.desktop.shell``)."""

    keep_in_tray: bool = False  # closing the window hides it to the tray instead of quitting
    quick_ask_hotkey: str = "Ctrl+Alt+Space"  # Qt key-sequence text ("" or disabled: none)
    quick_ask_enabled: bool = True
    talk_hotkey: str = "Ctrl+Alt+M"  # push-to-talk: held on X11, a toggle elsewhere
    talk_enabled: bool = True
    notifications: bool = True  # a long turn ended or the agent waits, while the window is hidden
    notify_after_s: float = Field(10.0, ge=0.0, le=3600.0)


class Settings(BaseModel):
    """Everything the user can set. Unknown keys from newer versions are ignored on read."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    version: int = SETTINGS_VERSION
    providers: list[ProviderConfig] = Field(default_factory=list)
    active_provider: str = ""
    network: NetworkSettings = Field(default_factory=lambda: NetworkSettings())
    agent: AgentSettings = Field(default_factory=lambda: AgentSettings())
    browser: BrowserSettings = Field(default_factory=lambda: BrowserSettings())
    memory: MemorySettings = Field(default_factory=lambda: MemorySettings())
    voice: VoiceSettings = Field(default_factory=lambda: VoiceSettings())
    ui: UISettings = Field(default_factory=lambda: UISettings())
    desktop: DesktopSettings = Field(default_factory=lambda: DesktopSettings())
    mcp: McpSettings = Field(default_factory=lambda: McpSettings())

    @model_validator(mode="after")
    def _unique_names(self) -> Settings:
        seen: set[str] = set()
        for provider in self.providers:
            key = provider.name.casefold()
            if key in seen:
                raise ValueError(f"Two providers are named {provider.name!r}")
            seen.add(key)
        return self

    def provider(self, name: str) -> ProviderConfig | None:
        """The provider called ``name`` (case-insensitive), if any."""
        key = name.casefold()
        return next((p for p in self.providers if p.name.casefold() == key), None)

    def active(self) -> ProviderConfig | None:
        """The provider in use: the active one, else the first configured."""
        if self.active_provider:
            found = self.provider(self.active_provider)
            if found is not None:
                return found
        return self.providers[0] if self.providers else None
