"""Our own OpenAI-compatible speech server on 127.0.0.1: ``POST /v1/audio/speech``, for real.

It answers as OpenAI's API reference documents the endpoint: a JSON body with ``model``,
``input`` (at most 4096 characters), ``voice`` (one of OpenAI's voices), optional
``response_format`` and ``speed`` (0.25 to 4.0); the audio comes back as the response body,
``wav`` as a WAV file, ``pcm`` as raw 16-bit little-endian mono at 24 kHz. The speech is real:
espeak-ng says the input, resampled to 24 kHz. The bearer key is checked, and a wrong one gets
OpenAI's 401 body (``invalid_api_key``); invalid fields get its 400 ``invalid_request_error``.
Every request is recorded; ``fail_next`` makes the next ones fail with a given status and body;
``delay_s`` adds latency before each answer.
"""

from __future__ import annotations

import io
import json
import subprocess
import time
import wave
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import numpy as np
import pytest

from jawad_desktop.core.voice.audio import decode_wav
from tests.servers.loopback import serving

OPENAI_VOICES = ("alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse")
FORMATS = ("mp3", "opus", "aac", "flac", "wav", "pcm")
RATE = 24_000


def _bad_request(message: str, param: str | None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def _wrong_key(given: str) -> dict[str, Any]:
    shown = f"{given[:3]}{'*' * max(0, len(given) - 7)}{given[-4:]}"
    return {"error": {"message": f"Incorrect API key provided: {shown}. You can find your API key at "
                                 "https://platform.openai.com/account/api-keys.",
                      "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}}


def espeak_pcm(text: str, speed: float = 1.0) -> bytes:
    """espeak-ng's speech of ``text`` as 16-bit PCM at 24 kHz."""
    done = subprocess.run(["espeak-ng", "--stdout", "-s", str(round(175 * speed))], input=text.encode(),
                          capture_output=True, check=True)
    spoken = decode_wav(done.stdout)
    count = max(1, round(spoken.samples.size * RATE / spoken.rate))
    samples = np.interp(np.linspace(0, spoken.samples.size - 1, count), np.arange(spoken.samples.size),
                        spoken.samples)
    return (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()


@dataclass
class SpeechServer:
    api_key: str = "sk-test-speech"
    requests: list[dict[str, Any]] = field(default_factory=list)
    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    delay_s: float = 0.0
    base_url: str = ""

    def fail_next(self, status: int, body: dict[str, Any], times: int = 1) -> None:
        self.failures.extend([(status, body)] * times)

    def answer(self, headers: Any, raw: bytes) -> tuple[int, str, bytes]:
        """(status, content type, body) for one request."""
        given = str(headers.get("Authorization") or "")
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return 400, "application/json", json.dumps(_bad_request(
                "We could not parse the JSON body of your request.", None)).encode()
        self.requests.append({"authorization": given, "body": body})
        if self.failures:
            status, error = self.failures.pop(0)
            return status, "application/json", json.dumps(error).encode()
        if given != f"Bearer {self.api_key}":
            return 401, "application/json", json.dumps(_wrong_key(given[7:] if given.startswith("Bearer ")
                                                                   else given)).encode()
        for name in ("model", "input", "voice"):
            if not body.get(name):
                return 400, "application/json", json.dumps(_bad_request(
                    f"Missing required parameter: '{name}'.", name, "missing_required_parameter")).encode()
        text, voice = str(body["input"]), str(body["voice"])
        if len(text) > 4096:
            return 400, "application/json", json.dumps(_bad_request(
                f"Invalid 'input': string too long. Expected a string with maximum length 4096, but got a string "
                f"with length {len(text)} instead.", "input", "string_above_max_length")).encode()
        if voice not in OPENAI_VOICES:
            return 400, "application/json", json.dumps(_bad_request(
                f"Invalid value: '{voice}'. Supported values are: "
                + ", ".join(f"'{v}'" for v in OPENAI_VOICES) + ".", "voice", "invalid_value")).encode()
        fmt = str(body.get("response_format") or "mp3")
        speed = float(body.get("speed", 1.0))
        if fmt not in FORMATS or not 0.25 <= speed <= 4.0:
            return 400, "application/json", json.dumps(_bad_request(
                "Invalid value for 'response_format' or 'speed'.", "response_format" if fmt not in FORMATS
                else "speed", "invalid_value")).encode()
        if fmt not in ("wav", "pcm"):
            # The formats this fake cannot encode: refused in words, not with wrong bytes.
            return 400, "application/json", json.dumps(_bad_request(
                f"This test server only produces wav and pcm, not {fmt}.", "response_format")).encode()
        pcm = espeak_pcm(text, speed)
        if self.delay_s:
            time.sleep(self.delay_s)
        if fmt == "pcm":
            return 200, "audio/pcm", pcm
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(pcm)
        return 200, "audio/wav", buffer.getvalue()


def serve() -> Iterator[SpeechServer]:
    state = SpeechServer()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.rstrip("/") != "/v1/audio/speech":
                status, kind, data = 404, "application/json", json.dumps({"error": {
                    "message": f"Invalid URL (POST {self.path})", "type": "invalid_request_error",
                    "param": None, "code": None}}).encode()
            else:
                status, kind, data = state.answer(self.headers, raw)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    with serving(Handler, "speech-server") as root:
        state.base_url = root + "/v1"
        yield state


@pytest.fixture
def speech_server() -> Iterator[SpeechServer]:
    yield from serve()
