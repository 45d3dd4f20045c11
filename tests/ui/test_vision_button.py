"""Settings → Providers: "Test image input" against the scripted model server shows whether the
model sees images, learns it, and shows what was learned on the page."""

from __future__ import annotations

from typing import Any

import pytest

from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.ui.settings.learned_facts import NOTHING_LEARNED
from jawad_desktop.ui.settings.providers_page import ProvidersPage
from tests.servers.scripted_model import ScriptedModel, text
from tests.ui.test_tool_calling_button import page  # noqa: F401  (the fixture)


@pytest.mark.parametrize("answer, says, learned, vision", [
    ("Red.", 'Sees images: asked the colour of a red picture, it answered "Red.".', "takes images", True),
    ("I cannot see any image.", 'Cannot see images: asked the colour of a red picture, it answered "I cannot see '
     'any image."', "sends no images", False),
])
def test_the_button_shows_the_result_and_what_was_learned(
    page: ProvidersPage, qtbot: Any, scripted_model: ScriptedModel,  # noqa: F811
    answer: str, says: str, learned: str, vision: bool,
) -> None:
    assert page.learned.text() == NOTHING_LEARNED
    scripted_model.script(text(answer))
    assert page.vision_button.isVisible() and page.vision_button.text() == "Test image input"
    page.vision_button.click()
    qtbot.waitUntil(lambda: page.vision_button.isEnabled() and "Testing" not in page.status.text(), timeout=20_000)
    assert says in page.status.text()
    assert learned in page.learned.text() and "why: Image test:" in page.learned.text()
    [request] = scripted_model.requests
    assert any(p.get("type") == "image_url" for p in request["messages"][-1]["content"])
    key = make_client(page.ctx.settings.provider("Scripted")).model_key  # type: ignore[arg-type]
    assert page.ctx.model_facts.get(key).vision is vision


def test_a_failure_is_shown_on_the_status_line(page: ProvidersPage, qtbot: Any,  # noqa: F811
                                               scripted_model: ScriptedModel) -> None:
    scripted_model.require_key("sk-right")
    try:
        scripted_model.script(text("Red"))
        page.vision_button.click()
        qtbot.waitUntil(lambda: page.vision_button.isEnabled() and "Testing" not in page.status.text(),
                        timeout=20_000)
    finally:
        scripted_model.require_key(None)
    assert "API key" in page.status.text(), page.status.text()
    assert page.learned.text() == NOTHING_LEARNED
