"""The reader: a loopback OpenAI-compatible model that answers with the planted phrases it was given.

A ``ScriptedModel`` (the same server and wire) whose reply is decided from each request: it reads
every message's text (plain ``content`` or its ``text`` parts) and every picture (``image_url``
parts: the ``data:`` URL decoded to the file's bytes), finds the phrases ``PLANTED-<WORD>-7Q4`` in them, and
answers "I read: PHRASE, PHRASE." (or "I read nothing planted."). So a test sees whether a file's
content reached the model, not just whether a request was made. A reply put in its script is sent
first (a tool call, say); then it reads.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.servers.scripted_model import Reply, ScriptedModel, text

PLANTED = re.compile(r"PLANTED-[A-Z0-9]+-7Q4")  # as tests/files/samples.py plants them


def _seen(body: dict[str, Any]) -> Iterator[str]:
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            for part in content:
                if part.get("type") == "text":
                    yield str(part.get("text") or "")
                elif part.get("type") == "image_url":
                    url = str((part.get("image_url") or {}).get("url") or "")
                    if url.startswith("data:") and "," in url:
                        yield base64.b64decode(url.split(",", 1)[1]).decode("latin-1")


def planted_in(body: dict[str, Any]) -> list[str]:
    """The planted phrases in a chat request, in order, each once."""
    return list(dict.fromkeys(p for chunk in _seen(body) for p in PLANTED.findall(chunk)))


class ReaderModel(ScriptedModel):
    def reply_for(self, body: dict[str, Any], path: str) -> Reply | None:
        if self._replies:
            return self._replies.pop(0)
        found = planted_in(body)
        return text(f"I read: {', '.join(found)}." if found else "I read nothing planted.")


@pytest.fixture(scope="session")
def _reader_model_server() -> Iterator[ReaderModel]:
    server = ReaderModel().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def reader_model(_reader_model_server: ReaderModel) -> Iterator[ReaderModel]:
    """The session's reader model, with an empty script and no recorded requests."""
    _reader_model_server.script()
    yield _reader_model_server
    _reader_model_server.script()
