"""What Jawad has learned about each model, kept in the profile: ``model_facts.json``.

A model is named by its ``ModelKey`` (provider kind, base URL, model name), the same key the
LLM client's ``model_key`` gives. For each one the client and the agent remember:

- ``dropped``: request parameters the model refused (``temperature``, ``top_p``...);
- ``renamed``: parameters it wants under another name (``max_tokens`` -> ``max_completion_tokens``);
- ``tool_format``: how it calls tools (``native``, ``xml`` or ``json``; ``none`` when the
  tool-calling test found it cannot; ``""`` not known yet);
- ``context_window``: its context in tokens (0 not known);
- ``vision``: whether it takes images (None: not learned; ``core.llm.vision`` then goes by its
  name); False once a provider refused an image for it; either from the image-input test
  (``core.llm.vision_probe``);
- ``notes``: what was learned and why, in words for the Settings page and ``jawad providers``.

Settings shows them per provider and can forget them (``forget``); the next request learns
again. The file is written atomically; an unreadable one is moved aside and nothing is lost
but what was learned. Safe to use from several threads.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from jawad_desktop.core.store.jsonfile import move_aside, write_json

log = logging.getLogger("jawad.store.model_facts")

FILENAME = "model_facts.json"
VERSION = 1

ModelKey = tuple[str, str, str]  # provider kind, base URL, model


@dataclass
class ModelFacts:
    """What is known about one model (see the module docstring)."""

    dropped: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    tool_format: str = ""
    context_window: int = 0
    vision: bool | None = None
    notes: list[str] = field(default_factory=list)
    learned_at: int = 0  # ms since the epoch

    @property
    def empty(self) -> bool:
        return not (self.dropped or self.renamed or self.tool_format or self.context_window
                    or self.vision is not None)

    def changes(self) -> list[str]:
        """What Jawad does differently for this model, one short line each (for the Settings
        page and ``jawad providers facts``; ``notes`` say why)."""
        lines = [f"sends {new!r} instead of {old!r}" for old, new in self.renamed.items()]
        lines += [f"leaves out {path!r}" for path in self.dropped]
        if self.tool_format:
            lines.append(f"tool calls: {self.tool_format}")
        if self.context_window:
            lines.append(f"context window: {self.context_window} tokens")
        if self.vision is not None:
            lines.append("takes images" if self.vision else "sends no images (the model cannot see them)")
        return lines


def key_text(key: ModelKey) -> str:
    """The key as the file stores it: ``kind|base URL|model``."""
    return "|".join(key)


def _from_text(text: str) -> ModelKey | None:
    parts = text.split("|")
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None


def _facts(data: Any) -> ModelFacts:
    if not isinstance(data, dict):
        raise ValueError("an entry is not an object")
    return ModelFacts(
        dropped=[str(p) for p in data.get("dropped", [])],
        renamed={str(k): str(v) for k, v in dict(data.get("renamed", {})).items()},
        tool_format=str(data.get("tool_format", "")),
        context_window=int(data.get("context_window", 0)),
        vision=data["vision"] if isinstance(data.get("vision"), bool) else None,
        notes=[str(n) for n in data.get("notes", [])],
        learned_at=int(data.get("learned_at", 0)),
    )


class ModelFactsStore:
    """The facts of every model, at one path (``None``: in memory only, for tests and one-off runs)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.problem = ""  # why the file could not be used, for the Settings page
        self._lock = threading.Lock()
        self._facts: dict[ModelKey, ModelFacts] = self._load()
        self._version = 0  # counts changes: a client re-reads its model's facts only after one

    @classmethod
    def in_folder(cls, config_dir: Path) -> ModelFactsStore:
        return cls(Path(config_dir) / FILENAME)

    def _load(self) -> dict[ModelKey, ModelFacts]:
        if self.path is None:
            return {}
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.problem = f"what Jawad learned about models could not be read ({exc.strerror or exc})"
            log.warning("%s", self.problem)
            return {}
        try:
            data = json.loads(raw)
            loaded = {}
            for text, entry in dict(data["models"]).items():
                key = _from_text(text)
                if key is not None:
                    loaded[key] = _facts(entry)
            return loaded
        except (ValueError, KeyError, TypeError) as exc:
            try:
                moved: Path = move_aside(self.path)
            except OSError:
                moved = self.path
            self.problem = f"the file of what Jawad learned about models was unusable ({exc}); kept as {moved}"
            log.warning("%s", self.problem)
            return {}

    def _save(self) -> None:
        if self.path is None:
            return
        payload = {"version": VERSION,
                   "models": {key_text(k): asdict(v) for k, v in sorted(self._facts.items()) if not v.empty}}
        try:
            write_json(self.path, payload)
        except OSError as exc:  # still known for this run; said in the log
            log.error("could not save what was learned about models to %s: %s", self.path, exc)

    # -- reading and learning -----------------------------------------------------------------

    @property
    def version(self) -> int:
        """Changes so far (learned or forgotten): cheap to compare before each request."""
        return self._version

    def get(self, key: ModelKey) -> ModelFacts:
        """A copy of what is known about ``key`` (empty when nothing is)."""
        with self._lock:
            found = self._facts.get(key)
            return _facts(asdict(found)) if found is not None else ModelFacts()

    def learn(self, key: ModelKey, change: Callable[[ModelFacts], None], note: str = "") -> ModelFacts:
        """Change what is known about ``key`` with ``change(facts)``, note why, and save."""
        with self._lock:
            facts = self._facts.setdefault(key, ModelFacts())
            change(facts)
            if note and note not in facts.notes:
                facts.notes.append(note)
            facts.learned_at = int(time.time() * 1000)
            self._version += 1
            self._save()
            return _facts(asdict(facts))

    def all(self) -> dict[ModelKey, ModelFacts]:
        with self._lock:
            return {k: _facts(asdict(v)) for k, v in self._facts.items() if not v.empty}

    def of_provider(self, kind: str, base_url: str) -> dict[str, ModelFacts]:
        """What is known about each model of one provider (kind and base URL as in the key;
        ``LLMClient.model_key`` gives them), by model name."""
        return {k[2]: v for k, v in sorted(self.all().items()) if k[0] == kind and k[1] == base_url}

    def forget(self, kind: str = "", base_url: str = "", model: str = "") -> int:
        """Forget what matches (every given part must match; nothing given: everything); how many."""
        with self._lock:
            gone = [k for k in self._facts if (not kind or k[0] == kind) and (not base_url or k[1] == base_url)
                    and (not model or k[2] == model)]
            for key in gone:
                del self._facts[key]
            if gone:
                self._version += 1
                self._save()
            return len(gone)
