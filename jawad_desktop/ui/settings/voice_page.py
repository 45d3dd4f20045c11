"""The Voice page of the Settings dialog: microphone, level meter, transcription and replies.

Changes are saved as they are made (like the other pages) and announced with ``changed``.
While the page is visible the chosen input is opened and its live level shown, so the user
can see the microphone works before talking to Jawad; it is closed when the page hides.
The Piper voices installed on this computer (``core.voice.piper_voice.piper_voices``) are listed for
spoken replies, found on a worker thread; "Test voice" speaks a sample with the chosen engine.
Opening a device and downloading a model run on worker threads (``ui.base.background``): the dialog
never freezes, and a failure is shown on the page.

In the packaged app without its voice pack (``core.voice.pack``), an "Offline speech" row
(``voice_pack_row``) offers to install it; it is hidden once the pack is installed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QProgressBar,
    QWidget,
)

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.events import Event, ModelDownloadProgress
from jawad_desktop.core.voice import (
    BUNDLED_MODEL,
    LevelMonitor,
    VoiceError,
    VoicePack,
    known_model_sizes,
    list_input_devices,
    resolve_model,
)
from jawad_desktop.core.voice import languages as voice_languages
from jawad_desktop.core.voice.models import bus_progress, is_multilingual
from jawad_desktop.core.voice.piper_voice import PiperVoiceFile, piper_voice_folders, piper_voices
from jawad_desktop.core.voice.playback import ReplyReader
from jawad_desktop.ui.base.background import run_async, run_in_thread
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.look.controls import (
    Field,
    add_rows,
    button,
    combo,
    decimal_number,
    error_style,
    failure_text,
    field_row,
    line_edit,
    on_change,
    show_values,
    status_line,
    values_of,
    whole_number,
)
from jawad_desktop.ui.look.file_dialogs import file_dialog
from jawad_desktop.ui.settings.transfer import Transfer
from jawad_desktop.ui.settings.voice_pack_row import VoicePackRow

log = logging.getLogger("jawad.ui.voice")

COMPUTE_TYPES = [
    ("int8", "int8 (fastest, any CPU)"),
    ("int8_float32", "int8 with float32"),
    ("int16", "int16"),
    ("float32", "float32 (most precise, slowest)"),
]
LANGUAGES = [("", "Automatic"), *voice_languages.LANGUAGES]


SAMPLE_SENTENCE = "Hello, I am Jawad. This is how my answers will sound."


async def speak(ctx: AppContext, text: str) -> str:
    """Say ``text`` with the engine Settings → Voice chooses, on the output device (the way replies
    are read, ``playback.ReplyReader``); returns the engine's name."""
    reader = ReplyReader(ctx)
    await reader.read(text)
    return reader.engine


class VoiceSettingsPage(QWidget):
    """Settings → Voice."""

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None, *, pack: VoicePack | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.pack = pack or VoicePack.for_app(ctx.paths)
        unsubscribe = ctx.bus.subscribe(self._on_event)  # a model's download progress
        self.destroyed.connect(lambda *_: unsubscribe())
        self._file_dialog: QFileDialog | None = None
        self._monitor: LevelMonitor | None = None
        self._monitor_generation = 0
        self._loading = True
        self._build_microphone()
        self._build_transcription()
        self._build_replies()
        self.pack_row = VoicePackRow(ctx, self.pack, self)
        self.install_pack, self.install_pack_file = self.pack_row.install, self.pack_row.install_file
        self.cancel_pack, self.pack_progress, self.pack_status = (self.pack_row.cancel, self.pack_row.progress,
                                                                  self.pack_row.status)
        self.install_voice_pack, self.cancel_pack_install = self.pack_row.install_pack, self.pack_row.cancel_install
        self.pack_row.installed.connect(self._pack_installed)
        self._form = QFormLayout(self)
        self._lay_out()
        self.fill_devices()
        self.load()
        self._update_model_status()
        self._connect()
        self.find_piper_voices()

    def _build_microphone(self) -> None:
        self.device = combo("Microphone", self)
        self.refresh_devices = button("Refresh", "Refresh the list of microphones", self)
        self.level = QProgressBar(self)
        self.level.setRange(0, 100)
        self.level.setTextVisible(False)
        self.level.setMaximumHeight(10)
        self.level.setAccessibleName("Microphone level")
        self.device_status = status_line("Microphone status", self)
        self._level_timer = QTimer(self)
        self._level_timer.setInterval(50)
        self._level_timer.timeout.connect(self._show_level)

    def _build_transcription(self) -> None:
        self.backend = combo("Transcription", self, (("On this computer (Whisper)", "local"),
                                                     ("Whisper API (OpenAI, Groq or compatible)", "api")))
        self.fallback = QCheckBox("If it fails, try the other one", self)
        self.model = combo("Speech model", self)
        self.model.setEditable(True)
        self.model.addItems(known_model_sizes())
        self.download = button("Download", "Download the speech model", self)
        self.cancel_download = button("Cancel", "Cancel the speech model download", self,
                                      tooltip="Stop the download; what arrived is kept for the next Download")
        self.cancel_download.hide()
        self.download_progress = QProgressBar(self)
        self.download_progress.setAccessibleName("Model download progress")
        self.download_progress.hide()
        self.model_status = status_line("Speech model status", self)
        self.transfer = Transfer(self.cancel_download, self.download_progress, self.model_status)
        self.compute = combo("Compute type", self, ((label, value) for value, label in COMPUTE_TYPES))
        self.beam = whole_number("Beam size: 1 is fastest, wider may hear better", self, 1, 10,
                                 tooltip="How many guesses the local model keeps while decoding: 1 is fastest; "
                                         "2 heard short commands best in our measurements.")
        self.language = combo("Language", self, ((label, value) for value, label in LANGUAGES))
        self.api_provider = combo("Whisper API provider", self, self._providers())
        self.api_model = line_edit("Whisper API model", self)
        self.silence = decimal_number("Longest silence that ends the recording, in seconds", self, 0.3, 10.0,
                                      suffix=" s", tooltip="How long Jawad waits when you pause mid-sentence. "
                                                           "After a finished sentence it answers after half a second.")
        self.max_length = decimal_number("Maximum recording length, in seconds", self, 2.0, 600.0, decimals=0,
                                         step=1.0, suffix=" s")
        self.partials = QCheckBox("Show the words while I speak", self)
        self.auto_send = QCheckBox("Send what I said right away", self)
        self.speak_replies = QCheckBox("Read replies aloud", self)

    def _providers(self) -> list[tuple[str, str]]:
        return [("The active provider", ""), *((p.name, p.name) for p in self.ctx.settings.providers)]

    def _build_replies(self) -> None:
        self.tts_backend = combo("Spoken replies with", self, (
            ("Automatic: a Piper voice if set up, else espeak-ng", "auto"),
            ("A speech API (OpenAI or compatible)", "api"), ("A Piper voice on this computer", "piper"),
            ("espeak-ng", "espeak")))
        self.tts_provider = combo("Speech API provider", self, self._providers())
        self.tts_model = line_edit("Speech API model", self, hint="tts-1")
        self.tts_voice = line_edit("Speech API voice", self, hint="alloy")
        self.piper_voices = combo("Piper voice", self, [("None chosen", "")])
        self.piper_voices.setToolTip("The Piper voices installed on this computer: in the voices folder "
                                     f"({piper_voice_folders(self.ctx)[0]}) and as Python packages")
        self.piper_voice = line_edit("Piper voice file", self, hint="A .onnx voice, with its .onnx.json beside it")
        self.choose_piper = button("Choose…", "Choose a Piper voice file", self)
        self.espeak_voice = line_edit("espeak-ng voice", self, hint="Its default (e.g. en-us, fr, ar)")
        self.speech_rate = decimal_number("Speech rate: 1 is the voice's normal speed", self, 0.25, 4.0, step=0.05,
                                          suffix=" ×")
        self.test_voice = button("Test voice", "Test voice: speak a sample sentence with the chosen engine", self)
        self.test_status = status_line("Test voice result", self)
        self.conversation_timeout = decimal_number("Silence that ends conversation mode, in seconds", self,
                                                   3.0, 600.0, decimals=0, step=1.0, suffix=" s")
        self.announce_tools = QCheckBox("Say briefly what Jawad is doing (\"Reading the page\")", self)
        self.barge_in = QCheckBox("Stop speaking when I talk over Jawad", self)
        self.echo_cancel = QCheckBox("Use the sound server's echo cancellation", self)
        self.wake_word = QCheckBox("Listen for “Hey Jawad”, also while the window is hidden", self)
        self.wake_word.setToolTip("Keeps the microphone open (the tray icon shows it); heard on this computer "
                                  "only, nothing is sent anywhere until Jawad wakes.")

    def _lay_out(self) -> None:
        form = self._form
        add_rows(form, (
            ("&Microphone", field_row(self.device, self.refresh_devices)), ("Level", self.level),
            ("", self.device_status), ("&Transcription", self.backend), ("", self.fallback)))
        self.pack_row.add_to(form)
        add_rows(form, (
            ("Speech &model", field_row(self.model, self.download, self.cancel_download)), ("", self.download_progress),
            ("", self.model_status),
            ("&Compute type", self.compute), ("&Beam size", self.beam), ("&Language", self.language),
            ("API &provider", self.api_provider), ("API m&odel", self.api_model),
            ("&Silence to stop", self.silence), ("Ma&ximum length", self.max_length),
            ("", self.partials), ("", self.auto_send), ("", self.speak_replies),
            ("Spoken replies &with", self.tts_backend), ("Speech API pro&vider", self.tts_provider),
            ("Speech API mo&del", self.tts_model), ("Speech API voic&e", self.tts_voice),
            ("P&iper voice", field_row(self.piper_voices, self.choose_piper)), ("Piper voice &file", self.piper_voice),
            ("espeak-n&g voice", self.espeak_voice),
            ("Speech &rate", field_row(self.speech_rate, self.test_voice)), ("", self.test_status),
            ("Hands-free timeo&ut", self.conversation_timeout), ("", self.announce_tools), ("", self.barge_in),
            ("", self.echo_cancel), ("", self.wake_word),
        ))

    def _fields(self) -> dict[str, Field]:
        """The page's controls, by the voice setting each holds (the microphone and the speech model
        are saved apart: a device not connected, a model typed in)."""
        return {"backend": self.backend, "compute_type": self.compute, "language": self.language,
                "api_provider": self.api_provider, "tts_backend": self.tts_backend, "tts_provider": self.tts_provider,
                "fallback": self.fallback, "partial_results": self.partials, "auto_send": self.auto_send,
                "speak_replies": self.speak_replies, "announce_tools": self.announce_tools,
                "barge_in": self.barge_in, "echo_cancel": self.echo_cancel, "beam_size": self.beam,
                "silence_stop_s": self.silence, "max_length_s": self.max_length, "speech_rate": self.speech_rate,
                "conversation_timeout_s": self.conversation_timeout, "api_model": self.api_model,
                "tts_model": self.tts_model, "tts_voice": self.tts_voice, "piper_voice": self.piper_voice,
                "espeak_voice": self.espeak_voice, "wake_word": self.wake_word}

    def load(self) -> None:
        """Show the saved voice settings."""
        voice, self._loading = self.ctx.settings.voice, True
        show_values(self._fields(), voice)
        self.model.setCurrentText(voice.model_size)
        self._show_piper_choice()
        self._loading = False

    def _connect(self) -> None:
        on_change(self._fields().values(), self._save)
        self.choose_piper.clicked.connect(self.choose_piper_voice)
        self.piper_voices.activated.connect(self._piper_listed)
        self.piper_voice.editingFinished.connect(self._show_piper_choice)
        self.test_voice.clicked.connect(self.speak_sample)
        self.language.currentIndexChanged.connect(self._update_model_status)  # "detects the language"
        self.device.currentIndexChanged.connect(self._device_changed)
        self.model.currentTextChanged.connect(self._model_changed)
        self.refresh_devices.clicked.connect(self.fill_devices)
        self.download.clicked.connect(lambda: self.download_model())

    # --- saving ----------------------------------------------------------------------------------

    def _save(self) -> None:
        if self._loading:
            return
        voice = self.ctx.settings.voice
        for name, value in values_of(self._fields()).items():
            setattr(voice, name, value)
        voice.input_device = self.device.currentData() or ""
        voice.model_size = self.model.currentText().strip() or BUNDLED_MODEL
        voice.api_model = voice.api_model or "whisper-1"
        voice.tts_model = voice.tts_model or "tts-1"
        voice.tts_voice = voice.tts_voice or "alloy"
        self.ctx.save_settings()
        self.changed.emit()

    # --- spoken replies --------------------------------------------------------------------------

    def choose_piper_voice(self) -> None:
        """Ask for a Piper voice file (a non-blocking dialog)."""
        self._file_dialog = file_dialog(self, "Choose a Piper voice", filters=["Piper voice (*.onnx)"],
                                        chosen=lambda paths: self._piper_chosen(paths[0]))

    def _piper_chosen(self, path: str) -> None:
        self.piper_voice.setText(path)
        self._save()
        self._show_piper_choice()

    def find_piper_voices(self) -> None:
        """List the installed Piper voices (reading the installed packages takes a moment: on a worker thread)."""
        folders = piper_voice_folders(self.ctx)
        run_in_thread(lambda: piper_voices(folders), what="looking for Piper voices", bus=self.ctx.bus,
                      on_done=self._fill_piper_voices,
                      on_error=lambda exc: log.warning("looking for Piper voices failed", exc_info=exc))

    def _fill_piper_voices(self, voices: list[PiperVoiceFile]) -> None:
        try:
            self.piper_voices.clear()
        except RuntimeError:  # the dialog was closed meanwhile
            return
        self.piper_voices.addItem("None chosen" if voices else "None installed", "")
        for voice in voices:
            self.piper_voices.addItem(voice.label, str(voice.path))
            self.piper_voices.setItemData(self.piper_voices.count() - 1, str(voice.path), Qt.ItemDataRole.ToolTipRole)
        self._show_piper_choice()

    def _show_piper_choice(self) -> None:
        """Select the chosen voice file in the list (added to it when it is not an installed one)."""
        path = self.piper_voice.text().strip()
        index = self.piper_voices.findData(path)
        if index < 0 and path:
            self.piper_voices.addItem(Path(path).name, path)
            index = self.piper_voices.count() - 1
        self.piper_voices.setCurrentIndex(max(0, index))

    def _piper_listed(self, index: int) -> None:
        """A voice picked from the list is the voice file."""
        self.piper_voice.setText(str(self.piper_voices.itemData(index) or ""))
        self._save()

    def speak_sample(self) -> None:
        """Speak a sample sentence with the chosen engine and settings, off the GUI thread."""
        self._save()
        self.test_voice.setEnabled(False)
        self.test_status.setStyleSheet("")
        self.test_status.setText("Speaking…")
        run_async(speak(self.ctx, SAMPLE_SENTENCE), what="testing the voice", bus=self.ctx.bus,
                  on_done=lambda name: self._on_test_done(f"Spoken with {name}.", error=False),
                  on_error=lambda exc: self._on_test_done(failure_text("testing the voice", exc), error=True))

    def _on_test_done(self, text: str, *, error: bool) -> None:
        try:
            self.test_voice.setEnabled(True)
            self.test_status.setStyleSheet(error_style() if error else "")
            self.test_status.setText(text)
        except RuntimeError:  # the dialog was closed meanwhile
            pass

    # --- microphone and level meter ------------------------------------------------------------

    def fill_devices(self) -> None:
        """List the inputs again (a headset was plugged in)."""
        wanted = self.ctx.settings.voice.input_device
        loading, self._loading = self._loading, True
        self.device.clear()
        self.device.addItem("System default", "")
        try:
            devices = list_input_devices()
        except VoiceError as exc:
            devices = []
            self._device_problem(error_text(exc))
        else:
            self.device_status.clear()
            if not devices:
                self._device_problem("No microphone was found. Plug one in, then press Refresh.")
        for device in devices:
            self.device.addItem(device.name + (" (default)" if device.is_default else ""), device.name)
        if wanted and self.device.findData(wanted) < 0:
            self.device.addItem(f"{wanted} (not connected)", wanted)
        self.device.setCurrentIndex(max(0, self.device.findData(wanted)))
        self._loading = loading
        if self.isVisible():
            self.start_level_meter()

    def _device_problem(self, text: str) -> None:
        self.device_status.setStyleSheet(error_style())
        self.device_status.setText(text)

    def _device_changed(self) -> None:
        self._save()
        if self.isVisible():
            self.start_level_meter()

    def start_level_meter(self) -> None:
        """Open the chosen input on a worker thread and show its level."""
        self.stop_level_meter()
        self._monitor_generation += 1
        generation = self._monitor_generation
        monitor = LevelMonitor(self.device.currentData() or "")  # PortAudio calls are serialised in core.voice

        def failed(exc: BaseException) -> None:
            self._close_monitor(monitor)
            log.warning("opening the microphone failed", exc_info=exc)
            if generation == self._monitor_generation:  # still the device the user wants
                self._device_problem(failure_text("opening the microphone", exc))

        run_in_thread(monitor.open, what="opening the microphone", bus=self.ctx.bus,
                      on_done=lambda _: self._on_monitor_ready(monitor, generation), on_error=failed)

    def _on_monitor_ready(self, monitor: LevelMonitor, generation: int) -> None:
        try:
            wanted = generation == self._monitor_generation and self.isVisible()
        except RuntimeError:  # the page was closed while the device opened
            wanted = False
        if not wanted:
            self._close_monitor(monitor)  # the user moved on
            return
        if monitor.error is not None:
            self._device_problem(error_text(monitor.error))
            return
        self._monitor = monitor
        self.device_status.setStyleSheet("")
        self.device_status.setText("Speak: the bar should move.")
        self._level_timer.start()

    def _show_level(self) -> None:
        monitor = self._monitor
        if monitor is None:
            return
        if monitor.error is not None:
            self._device_problem(error_text(monitor.error))
            self.stop_level_meter()
            return
        self.level.setValue(int(monitor.level * 100))

    def stop_level_meter(self) -> None:
        self._monitor_generation += 1
        self._level_timer.stop()
        self.level.setValue(0)
        monitor, self._monitor = self._monitor, None
        if monitor is not None:
            self._close_monitor(monitor)

    def _close_monitor(self, monitor: LevelMonitor) -> None:
        # Closing a stream can block briefly: never on the GUI thread.
        run_in_thread(monitor.close, what="closing the microphone", bus=self.ctx.bus)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.start_level_meter()

    def hideEvent(self, event: QHideEvent) -> None:
        self.stop_level_meter()
        super().hideEvent(event)

    # --- models ---------------------------------------------------------------------------------

    def _model_changed(self) -> None:
        self._save()
        self._update_model_status()

    def _update_model_status(self) -> None:
        name = self.model.currentText().strip()
        if self.pack_missing:
            self.model_status.setStyleSheet(error_style())
            self.model_status.setText(self.pack.missing_error().message)
            self.download.setEnabled(False)
            return
        try:
            resolve_model(name, self.ctx.paths.cache)
        except VoiceError as exc:
            self.model_status.setStyleSheet(error_style())
            self.model_status.setText(exc.message)
            self.download.setEnabled(exc.code == "MODEL_NOT_DOWNLOADED" and name in known_model_sizes())
            return
        language = self.ctx.settings.voice.language
        problem = voice_languages.language_error(name, language, multilingual=is_multilingual(name))
        if problem is not None:  # an English-only model set to another language
            self.model_status.setStyleSheet(error_style())
            self.model_status.setText(" ".join([problem.message, *problem.suggestions[:1]]))
            self.download.setEnabled(False)
            return
        self.model_status.setStyleSheet("")
        detects = is_multilingual(name) and not language
        self.model_status.setText("Ready: works offline." + (" It detects the language you speak." if detects else ""))
        self.download.setEnabled(False)

    def download_model(self, *, endpoint: str | None = None) -> None:
        """Download the chosen model on a worker thread, with a progress bar and Cancel (a
        cancelled download keeps what arrived; the next Download resumes it)."""
        if self.transfer.running:
            return
        name = self.model.currentText().strip()
        cancel = self.transfer.begin(f"Downloading {name}…")
        self.download.setEnabled(False)
        progress, cache = bus_progress(self.ctx.bus, name), self.ctx.paths.cache
        network = self.ctx.settings.network
        what = f"downloading the speech model {name}"

        def work() -> None:
            resolve_model(name, cache, download=True, progress=progress,
                          endpoint=endpoint, cancel=cancel, network=network)

        def failed(exc: BaseException) -> None:
            if not isinstance(exc, VoiceError):
                log.warning("%s failed", what, exc_info=exc)
            cancelled = isinstance(exc, VoiceError) and exc.code == "MODEL_DOWNLOAD_CANCELLED"
            self._on_download_done(failure_text(what, exc), cancelled=cancelled)

        run_in_thread(work, what=what, bus=self.ctx.bus, on_done=lambda _: self._on_download_done(""),
                      on_error=failed)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, ModelDownloadProgress) and event.model == self.model.currentText().strip():
            self.transfer.show_progress(event.done, event.total)

    def cancel_model_download(self) -> None:
        """Stop the speech model's download (between chunks); what arrived is kept."""
        self.transfer.stop()

    def _on_download_done(self, error: str, *, cancelled: bool = False) -> None:
        self.transfer.end()
        if error:
            self.model_status.setStyleSheet("" if cancelled else error_style())
            self.model_status.setText(error)
            self.download.setEnabled(True)
            return
        self._update_model_status()

    # --- the voice pack (packaged app) ---------------------------------------------------------

    @property
    def pack_missing(self) -> bool:
        """True in a packaged app whose offline speech is not installed yet."""
        return self.pack_row.missing

    def choose_pack_file(self) -> None:
        """Ask for a voice pack file (a non-blocking dialog), then install it."""
        self.pack_row.choose_file()
        self._file_dialog = self.pack_row.file_dialog

    def _pack_installed(self) -> None:
        known = [size for size in known_model_sizes() if self.model.findText(size) < 0]
        self.model.addItems(known)
        self._update_model_status()

    def values(self) -> dict[str, Any]:
        """The voice settings as saved (for tests and the dialog)."""
        return self.ctx.settings.voice.model_dump()
