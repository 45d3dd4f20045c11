"""Our own OpenAI-compatible transcription server on 127.0.0.1, for the Whisper API backend.

It implements ``POST /v1/audio/transcriptions`` for real: it parses the multipart upload,
checks the bearer key, decodes the WAV and transcribes it with the real tiny.en model. Every
request is recorded (headers, form fields, file name and type) so tests can check the
upload; ``fail_next`` makes the next requests answer with a given status and body, to test
how errors are mapped.
"""

from __future__ import annotations

import io
import json
import threading
import wave
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from typing import Any

import numpy as np

from jawad_desktop.core.voice.models import bundled_model_path
from tests.servers.loopback import serving


@dataclass
class Upload:
    authorization: str
    content_type: str
    fields: dict[str, str]
    file_name: str
    file_type: str
    file_bytes: bytes


@dataclass
class WhisperServer:
    api_key: str = "sk-test-voice"
    uploads: list[Upload] = field(default_factory=list)
    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    base_url: str = ""
    _model: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail_next(self, status: int, body: dict[str, Any], times: int = 1) -> None:
        self.failures.extend([(status, body)] * times)

    def transcribe(self, wav_data: bytes) -> str:
        with wave.open(io.BytesIO(wav_data)) as reader:
            assert reader.getframerate() == 16000 and reader.getnchannels() == 1
            pcm = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2")
        audio = pcm.astype(np.float32) / 32768.0
        with self._lock:
            if self._model is None:
                from faster_whisper import WhisperModel

                self._model = WhisperModel(str(bundled_model_path()), device="cpu", compute_type="int8")
            segments, _ = self._model.transcribe(audio, language="en", beam_size=1)
            return "".join(s.text for s in segments).strip()


def _handler(state: WhisperServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if self.path != "/v1/audio/transcriptions":
                self._reply(404, {"error": {"message": "not found"}})
                return
            content_type = self.headers.get("Content-Type", "")
            message = BytesParser(policy=HTTP).parsebytes(
                f"Content-Type: {content_type}\r\n\r\n".encode() + body
            )
            fields: dict[str, str] = {}
            file_name = file_type = ""
            file_bytes = b""
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                filename = part.get_filename()
                payload = part.get_payload(decode=True) or b""
                if filename:
                    file_name, file_type, file_bytes = filename, part.get_content_type(), payload
                elif name:
                    fields[str(name)] = payload.decode()
            state.uploads.append(
                Upload(self.headers.get("Authorization", ""), content_type, fields, file_name, file_type, file_bytes)
            )
            if state.failures:
                status, reply = state.failures.pop(0)
                self._reply(status, reply)
                return
            if self.headers.get("Authorization", "") != f"Bearer {state.api_key}":
                self._reply(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
                return
            if not file_bytes or "model" not in fields:
                self._reply(400, {"error": {"message": "file and model are required"}})
                return
            self._reply(200, {"text": state.transcribe(file_bytes)})

    return Handler


def serve() -> Iterator[WhisperServer]:
    state = WhisperServer()
    with serving(_handler(state), "whisper-server") as root:
        state.base_url = root + "/v1"
        yield state
