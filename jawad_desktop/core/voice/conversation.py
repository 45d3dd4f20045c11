"""Conversation mode: listen, answer aloud as the reply streams, listen again; barge-in.

``Conversation`` drives the loop for any face (the window's toggle, ``jawad talk``): it keeps
the microphone and the speaker open for the whole conversation, listens with a
``VoiceSession`` on that microphone, sends the transcript through the ``Assistant`` (the one
place the agent is assembled) and speaks the answer sentence by sentence from its
``ChatDelta`` events (``speakable.SentenceChunker``, ``playback.SpeechPipeline``), then listens
again. It ends when the user says a stop phrase ("stop", "stop listening", "goodbye"), when
``stop()`` is called (Esc, the hotkey), or after ``voice.conversation_timeout_s`` of silence.
Its state goes out on the bus as ``ConversationState`` (listening, thinking, speaking, idle).

Barge-in: while Jawad thinks or speaks, the open microphone is watched on PortAudio's thread
(``turns.BargeInDetector``): sound louder than a raised threshold, and well above the echo of what
Jawad plays (its own voice heard back through the microphone, at a gain learnt as it speaks,
does not count; the sound server's echo canceller, ``core.voice.echo``, takes most of it out
first when it offers one), for 120 ms
stops playback at once, stops the turn, and the next turn begins with the audio from the
onset, so nothing the user said is lost. ``interrupt()`` (the hotkey while speaking) does
the same without speech. ``Conversation.start()`` / ``stop()`` suit a Qt button; it imports no Qt.

Speculative answers: when the user pauses after words that read as a finished sentence
(``VoiceSession.likely_end``), the answer starts at once (``Assistant.speculate``): the model
streams and its sentences are synthesized, but nothing is played, shown or saved. When the pause
ends the turn with those same words, the answer is committed and its first sentence plays at
once; when the user goes on (``VoiceSession.went_on``) or the turn ends with other words, it is
dropped (stopped, out of the history, never heard) and the turn is answered as usual.

Typed messages: ``send_text()`` (the composer's Send while conversation mode runs) makes the
message the next turn. While Jawad listens, listening stops (what was being heard is dropped)
and the message is sent at once; while it thinks or speaks, the message waits for the reply to
end. Its reply is spoken like a spoken turn's, then Jawad listens again. The future it returns
settles with the turn's response (or its error; ``CONVERSATION_ENDED`` when the conversation
ended before the message was sent, so the face can put it back in the composer).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.voice.audio import Samples, Synthesizer
from jawad_desktop.core.voice.echo import EchoCanceller
from jawad_desktop.core.voice.errors import VoiceError
from jawad_desktop.core.voice.microphone import OpenMicrophone
from jawad_desktop.core.voice.playback import AudioOutput, SpeechPipeline
from jawad_desktop.core.voice.reply_voices import reply_synthesizer
from jawad_desktop.core.voice.speakable import SentenceChunker, announcement
from jawad_desktop.core.voice.turns import BargeInDetector, TurnTiming, is_stop_phrase
from jawad_desktop.core.voice.voice_session import VoiceSession

if TYPE_CHECKING:
    from jawad_desktop.core.context import AppContext

log = logging.getLogger("jawad.voice.conversation")

__all__ = ["BargeInDetector", "Conversation", "TurnTiming", "is_stop_phrase"]

T = TypeVar("T")


class Assistant(Protocol):
    """What a conversation needs of ``core.assistant.Assistant`` (a layer above voice): send a
    message and stop the turn."""

    async def send(self, text: str, attachments: Sequence[str | Path] = ()) -> ev.ChatResponse: ...

    def stop(self) -> None: ...

    def speculate(self, text: str) -> Speculation | None: ...


class Speculation(Protocol):
    """What a conversation needs of ``core.assistant.Speculation``: an answer started before the
    user surely finished, its events held from the app until ``commit()``, or ``drop()``-ped."""

    text: str
    task: asyncio.Task[ev.ChatResponse]

    @property
    def events(self) -> ev.EventBus: ...

    @property
    def spoiled(self) -> bool: ...

    def commit(self) -> None: ...

    async def drop(self) -> None: ...


PREROLL_S = 0.25  # audio kept before the barge-in onset (the first syllable's rise)

_io_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="jawad-conversation-io")


async def _in_io_thread(func: Callable[[], T]) -> T:
    return await asyncio.get_running_loop().run_in_executor(_io_threads, func)


@dataclass
class _Typed:
    """A message typed while the conversation runs, waiting for its turn."""

    text: str
    attachments: list[Path]
    done: asyncio.Future[ev.ChatResponse]


@dataclass
class _Reply:
    """An answer on its way: the model's run, and the speech of its sentences."""

    turn: TurnTiming
    pipeline: SpeechPipeline
    send: asyncio.Future[ev.ChatResponse]
    unsubscribe: Callable[[], None]
    speculation: Speculation | None = None


class Conversation:
    """Hands-free turns with the assistant until the user ends them. See the module docstring.

    ``once``: one turn (listen, answer aloud) and end, as ``jawad talk --once``. ``synthesizer``
    and ``session`` replace the ones built from the settings (tests, the CLI's overrides).
    """

    def __init__(
        self,
        ctx: AppContext,
        assistant: Assistant,
        *,
        once: bool = False,
        synthesizer: Synthesizer | None = None,
        session_factory: Callable[[OpenMicrophone], VoiceSession] | None = None,
        barge_in: bool | None = None,
        detector_factory: Callable[[], BargeInDetector] | None = None,
        speculative: bool = True,
    ) -> None:
        self.ctx = ctx
        self.assistant = assistant
        self.once = once
        voice = ctx.settings.voice
        self.barge_in = voice.barge_in if barge_in is None else barge_in
        self._synthesizer = synthesizer
        self._session_factory = session_factory or (lambda mic: VoiceSession(ctx, microphone=mic))
        self._detector_factory = detector_factory or BargeInDetector
        self.state: ev.ConversationStateName = "idle"
        self.turns: list[TurnTiming] = []
        self.end_reason = ""
        self.error: JawadError | None = None
        self.microphone: OpenMicrophone | None = None
        self.output: AudioOutput | None = None
        self.session: VoiceSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._ending = False
        self._interrupt: asyncio.Event | None = None
        self._pipeline: SpeechPipeline | None = None
        self._voice_errors: list[str] = []
        self._echo_gain = BargeInDetector().gain
        self._typed: collections.deque[_Typed] = collections.deque()
        self._listening = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self.echo_cancelled = False  # the sound server's echo canceller is in use (``core.voice.echo``)
        self.speculative = speculative  # answer on a likely end of the turn (see the module docstring)
        self._spec: _Reply | None = None  # the answer started on the last likely end, held
        self._dropping: set[asyncio.Task[None]] = set()
        self._spoken_parts: tuple[Synthesizer, AudioOutput] | None = None
        self.speculations_dropped = 0  # answers started on a likely end and dropped (the user went on)
        self.speculations_used = 0  # and committed

    # --- what a face calls ----------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> asyncio.Task[None]:
        """Begin the conversation (no-op while one runs); the task ends when the conversation does."""
        if self._task is not None and not self._task.done():
            return self._task
        self._ending = False
        self.end_reason = ""
        self.error = None
        self._task = asyncio.ensure_future(self._run())
        return self._task

    async def run(self) -> None:
        await self.start()

    def stop(self) -> None:
        """End the conversation now (Esc, the toggle, the hotkey): silence, stop the turn, close the mic."""
        if not self.active:
            return
        self._ending = True
        self.end_reason = self.end_reason or "stopped"
        if self._pipeline is not None:
            self._pipeline.stop()
        if self.session is not None:
            self.session.cancel()
        self.assistant.stop()
        if self._interrupt is not None:
            self._interrupt.set()

    def send_text(self, text: str, attachments: Sequence[Path] = ()) -> asyncio.Future[ev.ChatResponse]:
        """Make a typed message the next turn (see the module docstring); the future settles with
        its response. Call it on the conversation's event loop."""
        done: asyncio.Future[ev.ChatResponse] = (self._loop or asyncio.get_event_loop()).create_future()
        if not self.active or self._ending:
            done.set_exception(self._not_sent())
            return done
        self._typed.append(_Typed(text, list(attachments), done))
        if self._listening and self.session is not None:
            self.session.cancel()  # stop listening: the typed message is the turn
        return done

    @staticmethod
    def _not_sent() -> VoiceError:
        return VoiceError("CONVERSATION_ENDED", "Conversation mode ended before your message was sent.",
                          suggestions=["Your message is back in the message box: press Enter to send it."])

    def interrupt(self) -> None:
        """Stop the reply being spoken (the hotkey while Jawad speaks) and listen at once."""
        if self._interrupt is not None:
            self._interrupt.set()

    # --- the loop -------------------------------------------------------------------------------

    def _set(self, state: ev.ConversationStateName, **extra: Any) -> None:
        self.state = state
        self.ctx.bus.emit(ev.ConversationState(state=state, **extra))

    def _on_event(self, event: ev.Event) -> None:
        if isinstance(event, ev.VoiceState) and event.state == "error":
            self._voice_errors.append(event.error)

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        voice = self.ctx.settings.voice
        unsubscribe = self.ctx.bus.subscribe(self._on_event)
        microphone = self.microphone = OpenMicrophone(device=voice.input_device)
        output = self.output = AudioOutput(device=voice.output_device)
        canceller: EchoCanceller | None = None
        synthesizer: Synthesizer | None = None
        try:
            synthesizer = self._synthesizer or reply_synthesizer(self.ctx)  # in the language spoken
            session = self.session = self._session_factory(microphone)
            if voice.echo_cancel and self.barge_in and not voice.input_device and not voice.output_device:
                canceller = await _in_io_thread(EchoCanceller.start)
            self.echo_cancelled = canceller is not None
            warm_up = getattr(synthesizer, "warm_up", None)  # a local voice loads its model meanwhile
            with canceller.routed() if canceller is not None else contextlib.nullcontext():
                opened = await asyncio.gather(_in_io_thread(microphone.open), _in_io_thread(output.open),
                                              session.warm_up(), *([warm_up()] if warm_up is not None else []),
                                              return_exceptions=True)
            for result in opened:
                if isinstance(result, BaseException):
                    raise result
            await self._converse(session, synthesizer, microphone, output)
        except JawadError as exc:
            self.error = exc
            self.end_reason = "error"
            log.info("conversation ended by an error: %s", exc.message)
        finally:
            unsubscribe()
            self._drop_speculation()
            if self._dropping:
                await asyncio.wait(set(self._dropping))
            output.stop()
            while self._typed:  # typed while the conversation ended: not sent
                waiting = self._typed.popleft()
                if not waiting.done.done():
                    waiting.done.set_exception(self._not_sent())
            # Idle is said at once; closing the streams takes PulseAudio a moment more.
            self._set("idle", reason=self.end_reason or "stopped",
                      error=self.error.user_text() if self.error else "")
            await asyncio.gather(_in_io_thread(microphone.close), _in_io_thread(output.close))
            if canceller is not None:
                await _in_io_thread(canceller.stop)
            close = getattr(synthesizer, "aclose", None) if self._synthesizer is None else None
            if close is not None:  # the speech API's connection pool
                await close()

    async def _converse(self, session: VoiceSession, synthesizer: Synthesizer,
                        microphone: OpenMicrophone, output: AudioOutput) -> None:
        timeout = self.ctx.settings.voice.conversation_timeout_s
        since: float | None = None
        barged = False
        while not self._ending:
            if self._typed:  # typed while Jawad thought or spoke: its turn comes before listening
                await self._typed_turn(self._typed.popleft(), synthesizer, microphone, output)
                since, barged = None, False
                if self.once:
                    self.end_reason = "once"
                    return
                continue
            self._set("listening", barge_in=barged)
            self._voice_errors.clear()
            self._listening = True
            self._spoken_parts = (synthesizer, output)
            session.likely_end, session.went_on = self._on_likely_end, self._drop_speculation
            try:
                transcript = await session.listen(since=since, no_speech_timeout_s=timeout)
            finally:
                self._listening = False
                session.likely_end = session.went_on = None
            held = await self._speculation_for(transcript.text if transcript is not None and not self._ending
                                               and not self._typed else "")
            if self._ending:
                return
            if transcript is None and self._typed:  # the user typed while Jawad listened
                since, barged = None, False
                continue
            if transcript is None:
                if session.last_reason == "no_speech" and not barged:
                    self.end_reason = "silence"
                    return
                if barged or session.last_reason is not None:
                    # Something loud that was not words (a cough over the reply): listen on.
                    since, barged = None, False
                    continue
                detail = self._voice_errors[-1] if self._voice_errors else "Nothing was heard."
                raise VoiceError("AUDIO_DEVICE_FAILED", detail)
            since, barged = None, False
            if is_stop_phrase(transcript.text):
                self.end_reason = "stop-word"
                return
            turn = held.turn if held is not None else TurnTiming(transcript=transcript.text)
            turn.speech_end_at, turn.last_speech_at = session.speech_end_at, session.last_speech_at
            turn.transcript_at = session.result_at
            turn.speculative = held is not None
            self.turns.append(turn)
            await self._answer(turn, synthesizer, microphone, output, reply=held)
            if turn.barge_in_at is not None:
                since, barged = turn.barge_in_at - PREROLL_S, True
            elif self.once:
                self.end_reason = "once"
                return

    async def _typed_turn(self, typed: _Typed, synthesizer: Synthesizer,
                          microphone: OpenMicrophone, output: AudioOutput) -> None:
        if typed.done.done():  # given up on meanwhile
            return
        turn = TurnTiming(transcript=typed.text, typed=True)
        self.turns.append(turn)
        await self._answer(turn, synthesizer, microphone, output, typed=typed)

    # --- speculative answers (see the module docstring) ----------------------------------------

    def _on_likely_end(self, text: str) -> None:
        """The user paused after a finished sentence: start answering it, held."""
        if not self.speculative or self._ending or self._typed or self._spoken_parts is None or is_stop_phrase(text):
            return
        self._drop_speculation()
        speculation = self.assistant.speculate(text)
        if speculation is None:
            return
        synthesizer, output = self._spoken_parts
        self._spec = self._start_reply(TurnTiming(transcript=text), synthesizer, output, speculation=speculation)
        log.debug("answering %r speculatively", text)

    def _drop_speculation(self) -> None:
        """The user went on (or the turn ended otherwise): the held answer is stopped and forgotten."""
        reply, self._spec = self._spec, None
        if reply is None or reply.speculation is None:
            return
        self.speculations_dropped += 1
        reply.pipeline.stop()
        reply.unsubscribe()
        dropping = asyncio.ensure_future(reply.speculation.drop())
        self._dropping.add(dropping)
        dropping.add_done_callback(self._dropping.discard)
        log.debug("speculative answer to %r dropped", reply.speculation.text)

    async def _speculation_for(self, text: str) -> _Reply | None:
        """The held answer if it answers exactly ``text`` (the turn's transcript), else None (dropped);
        a dropped one has stopped before this returns."""
        reply, self._spec = self._spec, None
        if reply is not None and reply.speculation is not None and reply.speculation.text == text \
                and not reply.speculation.spoiled:
            self.speculations_used += 1
            return reply
        self._spec = reply
        self._drop_speculation()
        if self._dropping:
            await asyncio.wait(set(self._dropping))
        return None

    # --- one answer -----------------------------------------------------------------------------

    def _start_reply(self, turn: TurnTiming, synthesizer: Synthesizer, output: AudioOutput, *,
                     typed: _Typed | None = None, speculation: Speculation | None = None) -> _Reply:
        """Start the answer to ``turn`` and speak its sentences as they stream; a ``speculation``'s
        are synthesized but held until it is committed."""
        chunker = SentenceChunker()
        announce = self.ctx.settings.voice.announce_tools
        announced: set[str] = set()

        def started() -> None:
            at = output.started_at
            turn.first_audio_at = (at if at is not None else time.monotonic()) + output.latency_s
            self._set("speaking")

        pipeline = SpeechPipeline(synthesizer, output, on_start=started, held=speculation is not None)
        run_ids: set[str] = set()

        def on_event(event: ev.Event) -> None:
            if isinstance(event, ev.TurnStarted):
                run_ids.add(event.run_id)
            elif isinstance(event, ev.ChatDelta) and (not run_ids or event.run_id in run_ids):
                if turn.first_token_at is None:
                    turn.first_token_at = time.monotonic()
                for sentence in chunker.feed(event.text):
                    pipeline.say(sentence)
            elif isinstance(event, ev.AgentStep) and announce and chunker.emitted == 0:
                words = announcement(event)
                if words and words not in announced:
                    announced.add(words)
                    pipeline.say(words)

        unsubscribe = (speculation.events if speculation is not None else self.ctx.bus).subscribe(on_event)
        send: asyncio.Future[ev.ChatResponse]
        if speculation is not None:
            send = speculation.task
        elif typed is not None and typed.attachments:
            send = asyncio.ensure_future(self.assistant.send(turn.transcript, typed.attachments))
        else:
            send = asyncio.ensure_future(self.assistant.send(turn.transcript))

        def sent(task: asyncio.Future[ev.ChatResponse]) -> None:
            if typed is not None and not typed.done.done():  # the face learns how its message went
                if task.cancelled():
                    typed.done.cancel()
                elif task.exception() is not None:
                    typed.done.set_exception(task.exception())  # type: ignore[arg-type]
                else:
                    typed.done.set_result(task.result())
            if not task.cancelled() and task.exception() is None:
                response = task.result()
                turn.answer = response.content
                if turn.first_token_at is None and not response.interrupted:
                    # An answer that did not stream (an error, a slash command): say it whole.
                    for sentence in chunker.feed(response.content):
                        pipeline.say(sentence)
            for sentence in chunker.flush():
                pipeline.say(sentence)
            pipeline.end()

        send.add_done_callback(sent)
        return _Reply(turn, pipeline, send, unsubscribe, speculation)

    async def _answer(self, turn: TurnTiming, synthesizer: Synthesizer, microphone: OpenMicrophone,
                      output: AudioOutput, *, typed: _Typed | None = None, reply: _Reply | None = None) -> None:
        loop = asyncio.get_running_loop()
        self._set("thinking")
        interrupt = self._interrupt = asyncio.Event()
        if reply is None:
            reply = self._start_reply(turn, synthesizer, output, typed=typed)
        elif reply.speculation is not None:  # the user had finished: the held answer is theirs
            reply.speculation.commit()
            reply.pipeline.release()
        pipeline = self._pipeline = reply.pipeline
        send = reply.send
        detector = self._detector_factory()
        detector.gain = self._echo_gain
        cut_off: list[bool] = []  # the barge-in silenced a reply that was playing

        def on_block(block: Samples | VoiceError) -> None:  # PortAudio's thread
            if isinstance(block, VoiceError) or detector.onset is not None:
                return
            now = time.monotonic()
            onset = detector.feed(block, now, output.recent_level())
            if onset is not None:
                turn.barge_in_decided_at = now
                cut_off.append(output.hold())  # right here: waiting for the event loop would add its latency
                loop.call_soon_threadsafe(interrupt.set)

        if self.barge_in:
            microphone.attach(on_block)
        spoken = asyncio.ensure_future(pipeline.wait())
        interrupted = asyncio.ensure_future(interrupt.wait())
        try:
            await asyncio.wait({spoken, interrupted}, return_when=asyncio.FIRST_COMPLETED)
            if interrupt.is_set() or detector.onset is not None:
                pipeline.stop()
                self.assistant.stop()
                if detector.onset is not None:
                    turn.barge_in_at = detector.onset
                    if cut_off and cut_off[0]:
                        turn.playback_stopped_at = await self._silenced_at(output)
            try:
                await send
            except asyncio.CancelledError:
                pass
            except JawadError as exc:
                turn.error = exc.user_text()
                if typed is None:  # a typed message's error goes back to where it was typed
                    self.ctx.bus.emit(ev.Notice(level="error", text=exc.user_text()))
            try:
                await spoken
            except VoiceError as exc:
                turn.error = exc.user_text()
                self.ctx.bus.emit(ev.Notice(level="error", text="The reply could not be spoken: " + exc.user_text()))
            turn.spoken = list(pipeline.spoken)
        finally:
            self._echo_gain = detector.echo_gain()  # the room and the volume stay: start from it next turn
            output.release()
            interrupted.cancel()
            if self.barge_in:
                microphone.detach(on_block)
            reply.unsubscribe()
            self._pipeline = None
            self._interrupt = None
            if not send.done():
                send.cancel()

    @staticmethod
    async def _silenced_at(output: AudioOutput) -> float | None:
        """When the first silent block after the stop left the speaker (its callback's time + latency)."""
        for _ in range(50):
            if output.silenced_at is not None:
                return output.silenced_at + output.latency_s
            await asyncio.sleep(0.01)
        return None
