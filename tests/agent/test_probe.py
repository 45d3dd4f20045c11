"""The tool-calling test (``core.agent.probe``) against the scripted model server: a model that
calls natively, one that writes XML (unprompted, or after rejecting tools), one that needs
the JSON contract, and one that cannot call tools; each result is learned with a note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.core.agent.probe import ProbeResult, probe_tool_format
from jawad_desktop.core.agent.prompts import XML_INSTRUCTIONS
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.llm.errors import AuthError
from jawad_desktop.core.store.model_facts import ModelFactsStore
from tests.servers.scripted_model import Reply, ScriptedModel, call, error, reject_tools, text

JSON_CALL = '{"type": "tool_call", "name": "get_time", "arguments": {}}'


def _probe(model: ScriptedModel, facts: ModelFactsStore, arun: Any) -> ProbeResult:
    result: ProbeResult = arun(probe_tool_format(model.provider("Scripted"), None, NetworkSettings(), facts))
    return result


@pytest.mark.parametrize("replies, found, asked, words", [
    ([call("get_time", {})], "native", 1, "Native tool calls work"),
    ([text("<get_time />")], "xml", 1, "Uses the XML format"),
    ([reject_tools(), text("Let me check. <get_time />")], "xml", 2, "Uses the XML format"),
    ([text("It is noon."), text("It is noon."), text(JSON_CALL)], "json", 3, "Uses the JSON format"),
    ([reject_tools(), text("It is noon."), text("Noon, I think.")], "none", 3, "Could not call a tool:"),
])
def test_the_probe_classifies_the_model(
    scripted_model: ScriptedModel, arun: Any, tmp_path: Path,
    replies: list[Reply], found: str, asked: int, words: str,
) -> None:
    facts = ModelFactsStore(tmp_path / "model_facts.json")
    scripted_model.script(*replies)
    result = _probe(scripted_model, facts, arun)
    assert (result.tool_format, result.requests, len(scripted_model.requests)) == (found, asked, asked)
    assert result.summary.startswith(words) and result.provider == "Scripted" and result.model == "scripted"
    first = scripted_model.requests[0]
    assert [t["function"]["name"] for t in first["tools"]] == ["get_time"]
    for later in scripted_model.requests[1:]:
        assert "tools" not in later
    if asked >= 2:
        assert XML_INSTRUCTIONS.splitlines()[0] in scripted_model.requests[1]["messages"][0]["content"]
    if asked == 3:
        assert "OUTPUT FORMAT" in scripted_model.requests[2]["messages"][0]["content"]
    learned = ModelFactsStore(tmp_path / "model_facts.json").get(result.key)  # kept on disk
    assert learned.tool_format == found and any(result.summary in n for n in learned.notes)


def test_a_model_that_cannot_call_tools_is_told_plainly(scripted_model: ScriptedModel, arun: Any) -> None:
    scripted_model.script(reject_tools(), text("It is noon."), text("Noon, I think."))
    result = _probe(scripted_model, ModelFactsStore(None), arun)
    assert not result.works
    assert "refuses native tools" in result.detail and '"It is noon."' in result.detail
    assert "Choose a model that supports tools" in result.summary


def test_a_failure_that_is_not_about_tools_is_raised(scripted_model: ScriptedModel, arun: Any) -> None:
    scripted_model.script(error(401, "Incorrect API key provided."))
    facts = ModelFactsStore(None)
    with pytest.raises(AuthError):
        _probe(scripted_model, facts, arun)
    assert facts.all() == {}  # nothing learned from a failure that says nothing of tools
