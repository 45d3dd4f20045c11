"""The image-input test (``core.llm.vision_probe``) against the scripted model server: a model
whose name says nothing that answers "Red" is learned as seeing images and is offered ``look``
in the next run; a text-only model the server refuses, and a server that drops the image and
answers "I cannot see any image", are learned as not; a failure not about images is raised and
what was known before stays."""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.errors import AuthError
from jawad_desktop.core.llm.vision import IMAGES_LEFT_OUT, known_vision
from jawad_desktop.core.llm.vision_probe import VISION_QUESTION, VisionResult, names_red, probe_vision, red_png
from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.browser.browser_tools import browser_registry
from jawad_desktop.core.tools.browser.tool_running import LOOK_TOOL
from tests.agent.conftest import Harness
from tests.servers.scripted_model import ScriptedModel, error, text


def _probe(model: ScriptedModel, facts: ModelFactsStore, arun: Any, name: str = "scripted") -> VisionResult:
    provider = model.provider("Scripted").model_copy(update={"model": name})
    result: VisionResult = arun(probe_vision(provider, None, NetworkSettings(), facts))
    return result


def _offered(harness: Harness, arun: Any) -> list[str]:
    harness.model.script(text("Hello."))
    arun(harness.session.run("Hi"))
    return [t["function"]["name"] for t in harness.model.requests[-1]["tools"]]


def _image_parts(request: dict[str, Any]) -> list[dict[str, Any]]:
    content = request["messages"][-1]["content"]
    return [p for p in content if isinstance(p, dict) and p.get("type") == "image_url"] if isinstance(content, list) \
        else []


def test_the_picture_is_a_valid_red_png() -> None:
    png = red_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height, depth, colour = struct.unpack(">IIBB", png[16:26])
    assert (width, height, depth, colour) == (64, 64, 8, 2)
    start = png.index(b"IDAT") + 4
    (length,) = struct.unpack(">I", png[start - 8:start - 4])
    raw = zlib.decompress(png[start:start + length])
    assert len(raw) == 64 * (1 + 64 * 3) and raw[:4] == b"\x00\xdc\x14\x14"
    for kind in (b"IHDR", b"IDAT", b"IEND"):  # every chunk's CRC is right
        at = png.index(kind)
        (size,) = struct.unpack(">I", png[at - 4:at])
        assert struct.unpack(">I", png[at + 4 + size:at + 8 + size])[0] == zlib.crc32(png[at:at + 4 + size])


@pytest.mark.parametrize("answer, red", [
    ("Red", True), ("red.", True), ("The image is RED.", True), ("Rot", True), ("Rouge", True), ("rojo", True),
    ("红色", True), ("Crimson", True),
    ("Blue", False), ("I cannot see any image.", False), ("I can't see images, but red is common.", False),
    ("There is no image attached.", False), ("", False), ("Reddit", False),
])
def test_the_answer_is_read(answer: str, red: bool) -> None:
    assert names_red(answer) is red


def test_a_model_that_names_the_colour_sees_images_and_is_offered_look(
    scripted_model: ScriptedModel, make_agent: Callable[..., Harness], arun: Any, tmp_path: Path,
) -> None:
    facts = ModelFactsStore(tmp_path / "model_facts.json")
    harness = make_agent(registry=basic_registry().merged(browser_registry()), facts=facts)
    assert known_vision("openai_compatible", "scripted") is None  # the name says nothing
    assert LOOK_TOOL not in _offered(harness, arun)  # unknown: treated as text only

    scripted_model.script(text("Red."))
    result = _probe(scripted_model, facts, arun)
    assert result.works and result.vision and result.answer == "Red."
    assert result.summary == 'Sees images: asked the colour of a red picture, it answered "Red.".'
    [request] = scripted_model.requests
    assert request["messages"][-1]["content"][0] == {"type": "text", "text": VISION_QUESTION}
    [part] = _image_parts(request)
    assert base64.b64decode(part["image_url"]["url"].removeprefix("data:image/png;base64,")) == red_png()
    learned = ModelFactsStore(tmp_path / "model_facts.json").get(result.key)  # kept on disk
    assert learned.vision is True and "takes images" in learned.changes()
    assert any(n.startswith("Image test: Sees images") for n in learned.notes)
    assert result.key == harness.client.model_key

    assert LOOK_TOOL in _offered(harness, arun)  # the next run offers look


def test_a_text_only_model_refused_by_the_server_does_not(scripted_model: ScriptedModel, arun: Any,
                                                          tmp_path: Path) -> None:
    facts = ModelFactsStore(tmp_path / "model_facts.json")
    scripted_model.script(text("Red, probably."))  # asked again without the image: a blind guess
    result = _probe(scripted_model, facts, arun, "text-only-model")
    assert not result.works
    assert result.detail.startswith("the provider refused the image (")
    assert "image_url is only supported by certain models" in result.detail
    assert result.summary.startswith("Cannot see images: the provider refused the image")
    first, second = scripted_model.requests
    assert _image_parts(first) and IMAGES_LEFT_OUT in second["messages"][-1]["content"]
    learned = facts.get(result.key)
    assert learned.vision is False and any(n.startswith("Image test: Cannot see images") for n in learned.notes)


@pytest.mark.parametrize("answer", ["I cannot see any image. Could you describe it?", "Blue."])
def test_a_server_that_drops_the_image_does_not(scripted_model: ScriptedModel, arun: Any, answer: str) -> None:
    facts = ModelFactsStore(None)
    scripted_model.script(text(answer))
    result = _probe(scripted_model, facts, arun)
    assert not result.works and f'it answered "{answer}"' in result.detail
    assert "dropped the image" in result.detail and _image_parts(scripted_model.requests[0])
    assert facts.get(result.key).vision is False


def test_a_model_learned_as_text_only_is_sent_the_image_again(scripted_model: ScriptedModel, arun: Any) -> None:
    facts = ModelFactsStore(None)
    scripted_model.script(text("Blue."))
    key = _probe(scripted_model, facts, arun).key
    assert facts.get(key).vision is False
    scripted_model.script(text("Red"))  # the server got its vision model: test again
    result = _probe(scripted_model, facts, arun)
    assert result.works and _image_parts(scripted_model.requests[0])
    learned = facts.get(key)
    assert learned.vision is True
    assert [n for n in learned.notes if n.startswith("Image test:")] == [f"Image test: {result.summary}"]


def test_a_failure_that_is_not_about_images_is_raised(scripted_model: ScriptedModel, arun: Any) -> None:
    facts = ModelFactsStore(None)
    scripted_model.script(error(401, "Incorrect API key provided."))
    with pytest.raises(AuthError):
        _probe(scripted_model, facts, arun)
    assert facts.all() == {}  # nothing learned from a failure that says nothing of images

    scripted_model.script(text("Red"))
    key = _probe(scripted_model, facts, arun).key
    scripted_model.script(error(401, "Incorrect API key provided."))
    with pytest.raises(AuthError):
        _probe(scripted_model, facts, arun)
    assert facts.get(key).vision is True  # what was known before stays


def test_the_refusal_is_quoted_in_the_providers_words(scripted_model: ScriptedModel, arun: Any) -> None:
    scripted_model.script(text("No idea."))
    result = _probe(scripted_model, ModelFactsStore(None), arun, "text-only-model")
    assert result.detail == ("the provider refused the image (Invalid content type. image_url is only supported "
                             "by certain models)")
    assert result.requests == 2  # refused, then asked again without the image (the client's way)
