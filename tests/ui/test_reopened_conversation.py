"""A saved conversation opened again shows what the user saw live: the page check the agent made
before an answer (``core.agent.confirm``) and the answer it held back stay out of the chat."""

from __future__ import annotations

from jawad_desktop.core.agent.confirm import confirmation_message
from jawad_desktop.core.messages import Message, ToolCall
from jawad_desktop.ui.chat.presenter import chat_items


def test_the_page_check_and_the_held_back_answer_are_not_shown_again() -> None:
    messages = [
        Message(role="user", content="Add the kettle to my cart"),
        Message(role="assistant", tool_calls=[ToolCall(id="c1", name="click_element", arguments={"index": 2})]),
        Message(role="tool", content='Clicked BUTTON "Add to cart".', tool_call_id="c1", name="click_element"),
        Message(role="assistant", content="Done (held back until the page is checked)."),
        Message(role="user", content=confirmation_message("Title: Cart\nCart (1)")),
        Message(role="assistant", content="Done: the cart shows 1 item."),
        Message(role="user", content="Thanks"),
    ]
    items = chat_items(messages)
    assert [(i.role, i.text or i.tool_name) for i in items] == [
        ("user", "Add the kettle to my cart"),
        ("tool", "click_element"),
        ("assistant", "Done: the cart shows 1 item."),
        ("user", "Thanks"),
    ]
