"""Echo cancellation by the sound server, when it offers it (PulseAudio, PipeWire's pulse server).

Conversation mode listens while Jawad speaks; the speakers are heard by the microphone.
``EchoCanceller.start()`` loads ``module-echo-cancel`` (WebRTC's canceller) with ``pactl``: a
virtual output whose sound is taken out of a virtual input. The conversation then plays to
that output and records from that input (``PULSE_SINK``/``PULSE_SOURCE`` while its streams
open: PortAudio reaches PulseAudio through ALSA's pulse plugin, which reads them), so what
the microphone hears of the reply is mostly removed before barge-in looks at it. When the
server has no such module (or no ``pactl``), ``start()`` returns None and barge-in relies on
its raised threshold alone. ``stop()`` unloads the module it loaded.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
from collections.abc import Iterator

log = logging.getLogger("jawad.voice")

__all__ = ["EchoCanceller"]

SOURCE = "jawad_echo_cancel_source"
SINK = "jawad_echo_cancel_sink"
_TIMEOUT_S = 5.0


def _pactl(*args: str) -> subprocess.CompletedProcess[str] | None:
    program = shutil.which("pactl")
    if program is None:
        return None
    try:
        return subprocess.run([program, *args], capture_output=True, text=True, timeout=_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.info("pactl %s failed: %s", args[0] if args else "", exc)
        return None


class EchoCanceller:
    """A loaded ``module-echo-cancel``: its input (``source``) and output (``sink``) names."""

    def __init__(self, module: str, *, source: str = SOURCE, sink: str = SINK) -> None:
        self.module = module
        self.source = source
        self.sink = sink

    @classmethod
    def start(cls) -> EchoCanceller | None:
        """Load the sound server's echo canceller on the default input and output (blocking, a
        fraction of a second); None when the server does not offer one."""
        for method, extra in (("webrtc", ["aec_args=analog_gain_control=0"]), ("speex", [])):
            # No analog gain control: it would change the user's microphone volume, and keep it changed.
            done = _pactl("load-module", "module-echo-cancel", f"source_name={SOURCE}", f"sink_name={SINK}",
                          f"aec_method={method}", "use_master_format=1", *extra)
            if done is None:
                return None
            if done.returncode == 0 and done.stdout.strip().isdigit():
                log.info("echo cancellation on (%s, module %s)", method, done.stdout.strip())
                return cls(done.stdout.strip())
            log.info("module-echo-cancel (%s) could not be loaded: %s", method, done.stderr.strip()[:200])
        return None

    def stop(self) -> None:
        """Unload the module (blocking briefly; safe to call twice)."""
        if self.module:
            _pactl("unload-module", self.module)
            self.module = ""

    @contextlib.contextmanager
    def routed(self) -> Iterator[None]:
        """While streams open inside this block, they record from the cancelled input and play
        to the cancelled output."""
        saved = {key: os.environ.get(key) for key in ("PULSE_SOURCE", "PULSE_SINK")}
        os.environ["PULSE_SOURCE"] = self.source
        os.environ["PULSE_SINK"] = self.sink
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
