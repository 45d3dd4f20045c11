"""The user's standing instructions (Settings → Agent, ``AgentSettings.system_prompt``) reach the
model: in the system message of every request, labelled as the user's, after all of the app's
rules and before the page context; a change applies from the next request on."""

from __future__ import annotations

from typing import Any

from jawad_desktop.core.agent.prompts import DECISION_TREE, RULES, USER_INSTRUCTIONS_HEADING
from jawad_desktop.core.config.settings import Settings
from tests.servers.scripted_model import call, text

INSTRUCTIONS = "Always answer in French.\nSign every answer with 'Jawad'."


def system_of(request: dict[str, Any]) -> str:
    first = request["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


def test_the_model_receives_the_users_instructions_after_the_apps_rules(make_agent: Any, arun: Any) -> None:
    settings = Settings()
    settings.agent.system_prompt = INSTRUCTIONS
    h = make_agent(settings=settings)
    h.model.script(call("calculate", {"expression": "6*7"}), text("C'est 42. Jawad"))

    assert arun(h.session.run("What is 6*7?")).content == "C'est 42. Jawad"
    assert len(h.model.requests) == 2
    for request in h.model.requests:  # every step of the turn carries them
        system = system_of(request)
        block = f"{USER_INSTRUCTIONS_HEADING}\n{INSTRUCTIONS}"
        assert system.count(block) == 1
        assert system.index(RULES) < system.index(DECISION_TREE) < system.index(block)
        assert system.index(block) < system.index("CURRENT PAGE")
        # Not confused with anything else in the prompt: no other message carries them.
        assert all(INSTRUCTIONS not in str(m.get("content")) for m in request["messages"][1:])


def test_changing_or_clearing_them_applies_to_the_next_turn(make_agent: Any, arun: Any) -> None:
    settings = Settings()
    h = make_agent(settings=settings)
    h.model.script(text("Plain."))
    arun(h.session.run("Hello"))
    assert USER_INSTRUCTIONS_HEADING not in system_of(h.model.requests[0])

    settings.agent.system_prompt = "  Be brief.  "
    h.model.script(text("Brief."))
    arun(h.session.run("Hello again"))
    assert f"{USER_INSTRUCTIONS_HEADING}\nBe brief.\n" in system_of(h.model.requests[0]) + "\n"

    settings.agent.system_prompt = "   "  # only spaces: none
    h.model.script(text("Plain again."))
    arun(h.session.run("And again"))
    assert USER_INSTRUCTIONS_HEADING not in system_of(h.model.requests[0])
