"""Vision: the marked screenshot of the viewport, and ``look`` offered only to a model that sees
images, whose next request then carries the screenshot (issue 18, point 4)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QImage

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.llm.client import LLMClient
from tests.browser.test_agent_flows import Flow, flow  # noqa: F401  (the fixture)
from tests.servers.scripted_model import call, text


def _image(png: bytes) -> QImage:
    image = QImage()
    assert image.loadFromData(png, "PNG")
    return image


def test_marked_screenshot_boxes_the_listed_elements(web_page: QtWebEnginePage, load: Callable[[str], str],
                                                      arun: Callable[..., Any]) -> None:
    load("form.html")
    arun(web_page.snapshot())  # a listing: the numbers drawn are its
    rects = arun(web_page.call("markRects"))
    assert rects["rects"], rects
    plain, marked = arun(web_page.screenshot(marks=False)), arun(web_page.screenshot(marks=True))
    assert plain[:8] == b"\x89PNG\r\n\x1a\n" and marked[:8] == b"\x89PNG\r\n\x1a\n"
    a, b = _image(plain), _image(marked)
    assert a.size() == b.size() and 0 < a.width() <= 1280
    scale = a.width() / rects["viewport"]["width"]
    box = rects["rects"][0]
    # The box's left edge is drawn over the page.
    x, y = round(box["x"] * scale), round((box["y"] + box["height"] / 2) * scale)
    assert any(a.pixel(x + dx, y) != b.pixel(x + dx, y) for dx in (-1, 0, 1))


def test_a_vision_model_looks_and_its_next_request_carries_the_screenshot(
        flow: Flow, load: Callable[[str], str], arun: Callable[..., Any]) -> None:  # noqa: F811
    load("form.html")
    vision = flow.model.provider().model_copy(update={"model": "gpt-4o"})
    client = LLMClient(vision, network=flow.agent.settings.network)
    flow.agent._client_source = client
    flow.model.script(call("look", {"question": "what is there?"}), text("A form."))
    try:
        answer = flow.run(arun, "What does the page look like?")
    finally:
        arun(client.aclose())
    assert answer.content == "A form.", answer
    first, second = flow.model.requests[-2:]
    assert "look" in [t["function"]["name"] for t in first["tools"]]
    messages = second["messages"]
    tool = next(m for m in messages if m["role"] == "tool")
    assert isinstance(tool["content"], str) and "[1]" in tool["content"]
    shown = messages[messages.index(tool) + 1]  # Chat Completions: the images in a user message after it
    assert shown["role"] == "user"
    url = next(p["image_url"]["url"] for p in shown["content"] if p["type"] == "image_url")
    assert url.startswith("data:image/png;base64,")
    assert not _image(base64.b64decode(url.split(",", 1)[1])).isNull()


def test_a_text_only_model_is_not_offered_look(flow: Flow, arun: Callable[..., Any]) -> None:  # noqa: F811
    flow.model.script(text("Hello."))
    flow.run(arun, "Hi")
    assert "look" not in [t["function"]["name"] for t in flow.model.requests[-1]["tools"]]
    assert "read_page" in [t["function"]["name"] for t in flow.model.requests[-1]["tools"]]
    system = flow.model.requests[-1]["messages"][0]["content"]
    assert "| read_page |" in system and "| look |" not in system  # nor described in the prompt
