"""The image-input test: whether a model sees images, found with one short request and remembered.

``probe_vision(provider, key, network, facts)`` (Settings → Providers → Test image input,
``jawad providers test NAME --vision``) sends a small solid red picture (``red_png``, made
here: no Qt in the core) with "What colour is this image? Answer with one word." through the
provider's own client, which places the image the way its API documents (``core.llm.vision``
and the clients). Then:

- the answer names the colour (red, rot, rouge, rojo... in a few languages): "yes";
- the provider refuses the image (``vision.images_refused``: the client learns it and asks
  again without the image), or the answer is wrong or evasive ("I cannot see any image": a
  server that drops images silently): "no", with what the model said.

Whatever was learned about the model's vision before is set aside for the request (a model
learned as text only would otherwise never be sent the image again), and the result is
learned into the profile's model facts (``ModelFacts.vision``) under the client's
``model_key`` with a note, so the agent offers ``look`` to it (``core.agent.session`` through
``vision.accepts_images``). A failure that is not about images (no key, offline, unknown
model) is raised as the ``JawadError`` it is, and what was known before is kept.
"""

from __future__ import annotations

import logging
import re
import struct
import time
import zlib
from dataclasses import dataclass

from jawad_desktop.core.config.providers import ProviderConfig
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.client import LLMClient
from jawad_desktop.core.llm.connection import on_own_client
from jawad_desktop.core.messages import Image, Message
from jawad_desktop.core.store.model_facts import ModelFacts, ModelFactsStore, ModelKey

log = logging.getLogger("jawad.llm.vision")

__all__ = ["VISION_QUESTION", "VisionResult", "names_red", "probe_vision", "probe_vision_client", "red_png"]

VISION_QUESTION = "What colour is this image? Answer with one word."
_MAX_TOKENS = 512  # one word, or a short refusal, from a model that thinks first
_QUOTE = 160  # characters of an answer quoted in the result
_NOTE = "Image test: "  # the notes this test writes (a new result replaces the old ones)
_REFUSED_NOTE = "Takes no images:"  # the client's note when a provider refuses an image

# "red" in the languages a model may answer in, whatever the question's language.
_RED_WORDS = frozenset({
    "red", "reddish", "crimson", "scarlet", "rot", "rote", "roter", "rotes", "rouge", "rojo", "roja", "rosso",
    "rossa", "vermelho", "vermelha", "rood", "rode", "röd", "rød", "rødt", "punainen", "czerwony", "czerwona",
    "červená", "červený", "piros", "roșu", "kırmızı", "красный", "красная", "червоний", "κόκκινο", "merah",
    "đỏ", "लाल",
})
_RED_SCRIPTS = ("红", "紅", "赤", "빨간", "빨강", "أحمر", "حمراء", "אדום", "สีแดง", "قرمز")
# What a model that did not get the image says (the server dropped it without a word).
_DENIALS = re.compile(
    r"\b(can ?not|can't|cannot|unable to|not able to|don't|do not|didn't|did not|no way to)\s+(see|view|access|"
    r"process|display|perceive|analy[sz]e|open|determine|tell)\b|\bno (image|picture|attachment)\b|"
    r"\b(image|picture) (is|was) (not|n't) (provided|attached|included|shown|visible)\b|\bwithout (seeing|an image)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def red_png(size: int = 64, rgb: tuple[int, int, int] = (220, 20, 20)) -> bytes:
    """A ``size`` × ``size`` PNG of one colour (8-bit RGB, no interlace), encoded here."""
    row = b"\x00" + bytes(rgb) * size  # filter type 0 (none), then the pixels
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(row * size, 9))
            + _chunk(b"IEND", b""))


def names_red(answer: str) -> bool:
    """Whether ``answer`` says the picture is red, and not that the model could not see it."""
    if _DENIALS.search(answer):
        return False
    lowered = answer.lower()
    if any(word in _RED_WORDS for word in _WORD.findall(lowered)):
        return True
    return any(script in answer for script in _RED_SCRIPTS)


@dataclass(frozen=True, slots=True)
class VisionResult:
    """What the test found: whether the model sees images, why (``detail``), what it answered."""

    provider: str
    model: str
    vision: bool
    detail: str
    answer: str
    key: ModelKey
    requests: int
    latency_ms: float

    @property
    def works(self) -> bool:
        return self.vision

    @property
    def summary(self) -> str:
        """One line for the Providers page and the terminal."""
        if self.vision:
            return f"Sees images: {self.detail}."
        return f"Cannot see images: {self.detail}. Choose a model that takes images for looking at pages."


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "an empty answer"
    return f'"{flat[:_QUOTE]}{"…" if len(flat) > _QUOTE else ""}"'


def _refusal(facts: ModelFactsStore, key: ModelKey) -> str:
    """The client's words for the refusal it just learned (its latest note), for the result."""
    said = [n for n in facts.get(key).notes if n.startswith(_REFUSED_NOTE)]
    if not said:
        return ""
    words = re.search(r"refused one \((.*)\)\.?$", said[-1], re.DOTALL)  # "<kind> refused one (<its words>)."
    return (words.group(1) if words else said[-1][len(_REFUSED_NOTE):]).strip().rstrip(".")


async def probe_vision_client(client: LLMClient, facts: ModelFactsStore, *, provider: str = "") -> VisionResult:
    """Test ``client``'s model (see the module docstring) and learn the result into ``facts``
    (which must be the store ``client`` keeps its facts in: a refusal is read from it)."""
    started = time.monotonic()
    # The model's name first (a provider without one uses the first it lists): what was learned
    # under its key is set aside, so the image is sent whatever was learned before.
    await client._ensure_model()  # the model this request will use (its key names it)
    key = client.model_key
    before = facts.get(key).vision
    if before is not None:
        facts.learn(key, lambda known: setattr(known, "vision", None))
    ask = [Message(role="user", content=VISION_QUESTION, images=[Image(red_png())])]
    try:
        stream = client.chat(ask, stream=False, temperature=0, max_tokens=_MAX_TOKENS)
        response = await stream.response()
    except BaseException:
        if before is not None:  # nothing was learned about images: what was known stays
            facts.learn(key, lambda known: setattr(known, "vision", before))
        raise
    key = client.model_key
    answer = response.content.strip()
    refused = facts.get(key).vision is False  # the client learned a refusal and asked without the image
    if refused:
        said = _refusal(facts, key)
        vision, detail = False, f"the provider refused the image ({said})" if said else "the provider refused the image"
    elif names_red(answer):
        vision, detail = True, f"asked the colour of a red picture, it answered {_quote(answer)}"
    else:
        vision, detail = False, (f"asked the colour of a red picture, it answered {_quote(answer)} (the server may "
                                 "have dropped the image without saying so)")
    outcome = VisionResult(provider=provider, model=key[2], vision=vision, detail=detail, answer=answer, key=key,
                           requests=int(response.metadata.get("api_calls") or 1),
                           latency_ms=round((time.monotonic() - started) * 1000, 1))
    log.info("image-input test of %s: %s (%s)", key[2] or provider, "sees images" if vision else "no images", detail)
    if key[2]:
        keep_refusal = refused

        def change(known: ModelFacts) -> None:
            known.vision = vision
            # The notes of an earlier test or refusal would contradict this result.
            known.notes = [n for n in known.notes if not n.startswith(_NOTE)
                           and (keep_refusal or not n.startswith(_REFUSED_NOTE))]

        facts.learn(key, change, note=f"{_NOTE}{outcome.summary}")
    return outcome


async def probe_vision(
    provider: ProviderConfig,
    api_key: str | None,
    network: NetworkSettings | None = None,
    facts: ModelFactsStore | None = None,
) -> VisionResult:
    """Test ``provider``'s model on a client of its own (no retries: the user is waiting)."""
    store = facts if facts is not None else ModelFactsStore(None)
    # The request, and again without the image if refused.
    return await on_own_client(provider, api_key, network, store,
                               lambda client: probe_vision_client(client, store, provider=provider.name),
                               requests=2, what="image-input test")
