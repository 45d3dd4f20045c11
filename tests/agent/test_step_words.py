"""The status line's words for a step: the tool's verb and its target's label from the last listing."""

from __future__ import annotations

from jawad_desktop.core.agent.step_words import describe_step

LISTED = [{"index": 1, "role": "INPUT[email]", "label": "Email"},
          {"index": 4, "role": "BUTTON", "label": "Add to cart"},
          {"index": 9, "role": "LINK", "label": "A very long link label that goes on and on and on forever"}]


def test_a_step_says_what_it_does_with_its_targets_label() -> None:
    assert describe_step("click_element", {"index": 4}, LISTED) == 'clicking "Add to cart"'
    assert describe_step("fill_form", {"index": 1, "text": "me@example.com"}, LISTED) == 'typing into "Email"'
    assert describe_step("click_text", {"text": "Next"}, LISTED) == 'clicking "Next"'
    assert describe_step("click_element", {"index": 12}, LISTED) == "clicking element 12"  # not in the listing
    assert describe_step("click_element", {"selector": "#buy"}) == 'clicking "#buy"'
    assert describe_step("set_checked", {"index": 4, "checked": False}, LISTED) == 'unticking "Add to cart"'
    assert describe_step("click_element", {"index": 9}, LISTED).endswith('on and…"')
    assert describe_step("read_page", {}) == "reading the page"
    assert describe_step("navigate", {"url": "https://example.com"}) == "opening https://example.com"
    assert describe_step("search_web", {"query": "tents"}) == 'searching the web for "tents"'
    assert describe_step("press_key", {"key": "Enter", "index": 1}, LISTED) == 'pressing Enter in "Email"'
    assert describe_step("ask_user_to_take_over", {"reason": "sign in"}) == "waiting for you to use the page"
    assert describe_step("lookup_weather", {"city": "Oslo"}) == "using lookup_weather"
