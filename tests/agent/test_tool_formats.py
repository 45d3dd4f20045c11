"""The tool-call format per model, through the real client against the scripted model server:
a tools rejection is asked again at once in XML with the instructions and the tools' schemas,
the format is remembered in the profile and outlives the session, and a fixed format setting
is obeyed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jawad_desktop.core import events
from jawad_desktop.core.agent.prompts import XML_INSTRUCTIONS
from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.client import LLMClient, forget_capabilities
from jawad_desktop.core.store.secrets import SecretStore
from tests.servers.scripted_model import ScriptedModel, call, reject_tools, text

XML_HEADING = XML_INSTRUCTIONS.splitlines()[0]


def test_a_tools_rejection_is_asked_again_with_the_xml_instructions_and_the_schemas(
    make_agent: Any, arun: Any
) -> None:
    h = make_agent()
    h.model.script(reject_tools(), text('<calculate expression="6*7" />'), text("It is 42."))
    response = arun(h.session.run("what is 6 times 7?"))
    assert response.content == "It is 42." and not response.is_error
    rejected, again, answer = h.model.requests
    assert "tools" in rejected and "TOOL CALLING (text format)" not in rejected["messages"][0]["content"]
    # The same request, asked again at once: no tools, the XML instructions and every tool's
    # arguments in the system prompt, the same conversation after it.
    system = again["messages"][0]["content"]
    assert "tools" not in again and "tool_choice" not in again
    assert XML_HEADING in system and "TOOL ARGUMENTS (JSON schema)" in system
    assert '"name":"calculate"' in system and '"expression"' in system and '"name":"get_time"' in system
    assert again["messages"][1:] == rejected["messages"][1:]
    # Its XML call ran, and the answer came in the next step.
    (entry,) = h.recorder.log()
    assert (entry.tool_name, entry.result, entry.details) == ("calculate", "success", "6*7 = 42")
    assert "6*7 = 42" in answer["messages"][-1]["content"] and "tools" not in answer
    assert response.metadata["iterations"] == 2 and response.metadata["tool_format"] == "xml"
    assert [n for n in h.recorder.of(events.Notice) if "text tool format" in n.text]
    assert h.session.facts.get(h.client.model_key).tool_format == "xml"


def test_a_fixed_native_format_reports_the_rejection_instead(make_agent: Any, arun: Any) -> None:
    from jawad_desktop.core.config.settings import Settings

    settings = Settings()
    settings.agent.tool_format = "native"
    h = make_agent(settings=settings)
    h.model.script(reject_tools())
    response = arun(h.session.run("what time is it?"))
    assert response.is_error and "does not accept tools" in response.content
    assert response.metadata["remedy"]["place"] == "provider-model"
    assert len(h.model.requests) == 1 and h.session.mode == "native"


def test_native_calls_are_remembered_as_native(make_agent: Any, arun: Any) -> None:
    h = make_agent()
    h.model.script(call("get_time", {}), text("It is now."))
    arun(h.session.run("time?"))
    facts = h.session.facts.get(h.client.model_key)
    assert facts.tool_format == "native" and any("Native tool calls work" in n for n in facts.notes)


def _assistant(profile: Path, model: ScriptedModel) -> tuple[Assistant, LLMClient]:
    ctx = AppContext.open(str(profile), secrets=SecretStore())
    client = LLMClient(model.provider(), network=ctx.settings.network, bus=ctx.bus)
    return Assistant(ctx, client=client, save=False), client


def test_the_format_survives_a_new_session_on_the_same_profile(
    scripted_model: ScriptedModel, profile_dir: Path, arun: Any
) -> None:
    first, client = _assistant(profile_dir, scripted_model)
    scripted_model.script(reject_tools(), text("Hello."))
    arun(first.send("hi"))
    arun(first.aclose())
    assert (profile_dir / "config" / "model_facts.json").is_file()
    forget_capabilities()  # a new process remembers nothing of its own

    second, client = _assistant(profile_dir, scripted_model)
    assert second.session.facts is second.ctx.model_facts  # the Assistant gives the session the profile's
    scripted_model.script(text('<get_time timezone="UTC" />'), text("It is late."))
    response = arun(second.send("what time is it in UTC?"))
    arun(second.aclose())
    assert response.content == "It is late."
    first_request = scripted_model.requests[0]
    assert "tools" not in first_request  # no rejected try: the text format from the start
    assert XML_HEADING in first_request["messages"][0]["content"]
    learned = second.ctx.model_facts.get(client.model_key)
    assert learned.tool_format == "xml" and any("does not accept native tool calls" in n for n in learned.notes)
