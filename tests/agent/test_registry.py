"""The tool registry: schemas from signatures (snapshot-tested), lookup, validation, running."""

from __future__ import annotations

import asyncio
import threading
from enum import StrEnum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from jawad_desktop.core.config.settings import Settings
from jawad_desktop.core.events import EventBus
from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.sites import site_of
from jawad_desktop.core.tools.basic import basic_registry
from jawad_desktop.core.tools.registry import (
    ToolArgumentsError,
    ToolError,
    ToolRegistry,
    ToolResult,
    normalize_tool_name,
)
from jawad_desktop.core.tools.tool_context import ToolContext


class Unit(StrEnum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Address(BaseModel):
    city: str
    zip: str = ""


def _ctx() -> ToolContext:
    return ToolContext(settings=Settings(), bus=EventBus(), site="shop.example")


def _sample() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(aliases=("weather", "w"))
    def get_weather(
        location: Annotated[str, Field(description="City name")],
        unit: Literal["celsius", "fahrenheit"] = "celsius",
        days: int = Field(1, ge=1, le=7, description="How many days"),
    ) -> dict[str, Any]:
        """Get the current weather for a location.

        Longer text that stays in the description.

        Args:
            unit: ignored because the Literal has no description? no: used
        """
        return {"location": location, "unit": unit, "days": days}

    @registry.tool(level=PermissionLevel.INTERACT, level_for=lambda a: PermissionLevel.SUBMIT if a.submit else
                   PermissionLevel.INTERACT, site=lambda ctx, a: "forms.example")
    async def fill(ctx: ToolContext, index: int, text: str, submit: bool = False, unit: Unit = Unit.CELSIUS,
                   address: Address | None = None) -> str:
        """Fill a field.

        Args:
            index: The element's [n]
            text: What to type
        """
        return f"{ctx.site}:{index}:{text}"

    return registry


def test_schema_snapshot_of_a_sample_tool() -> None:
    spec = _sample().get("get_weather").openai_spec()  # type: ignore[union-attr]
    assert spec == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a location.\n\nLonger text that stays in the description.",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "City name"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius",
                             "description": "ignored because the Literal has no description? no: used"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 1,
                             "description": "How many days"},
                },
                "required": ["location"],
                "additionalProperties": False,
            },
        },
    }


def test_schema_snapshot_with_context_enum_and_nested_model() -> None:
    params = _sample().get("fill").schema  # type: ignore[union-attr]
    assert params == {
        "type": "object",
        "properties": {
            "index": {"type": "integer", "description": "The element's [n]"},
            "text": {"type": "string", "description": "What to type"},
            "submit": {"type": "boolean", "default": False},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            "address": {
                "anyOf": [
                    {"type": "object", "properties": {"city": {"type": "string"},
                                                      "zip": {"type": "string", "default": ""}},
                     "required": ["city"]},
                    {"type": "null"},
                ],
                "default": None,
            },
        },
        "required": ["index", "text"],
        "additionalProperties": False,
    }


def test_schema_snapshot_of_the_basic_tools() -> None:
    tools = {t["function"]["name"]: t["function"] for t in basic_registry().openai_tools()}
    assert tools == {
        "get_time": {
            "name": "get_time",
            "description": "Get the current date and time, in local time or in a given time zone.",
            "parameters": {"type": "object", "properties": {"timezone": {
                "type": "string", "default": "",
                "description": "An IANA time zone such as 'Europe/Paris'; empty for local time"}},
                "additionalProperties": False},
        },
        "calculate": {
            "name": "calculate",
            "description": "Compute an arithmetic expression exactly, instead of guessing the result.",
            "parameters": {"type": "object", "properties": {"expression": {
                "type": "string", "description": "Arithmetic such as '(19.99 * 3) - 5' or 'sqrt(2)'"}},
                "required": ["expression"], "additionalProperties": False},
        },
    }


def test_lookup_forgives_prefix_case_and_aliases() -> None:
    registry = _sample()
    for name in ("get_weather", "functions.get_weather", "GET-WEATHER", "tool:weather", "W", " `weather` "):
        assert registry.get(name) is registry.get("get_weather"), name
    assert registry.get("nothing") is None
    assert normalize_tool_name("functions.tools.Read Page") == "read_page"
    assert "w" in registry.all_names()


def test_duplicate_names_are_refused() -> None:
    registry = _sample()
    with pytest.raises(ValueError, match="already"):
        @registry.tool(aliases=("weather",))
        def other() -> str:
            """Other."""
            return ""


def test_untyped_parameters_are_refused() -> None:
    with pytest.raises(TypeError, match="needs a type hint"):
        @ToolRegistry().tool
        def bad(x) -> str:  # type: ignore[no-untyped-def]
            """Bad."""
            return ""


def test_validation_problems_are_listed() -> None:
    tool = _sample().get("fill")
    assert tool is not None
    with pytest.raises(ToolArgumentsError) as info:
        tool.validate({"index": "three", "extra": 1})
    problems = info.value.problems
    assert "the required argument 'text' is missing" in problems
    assert any(p.startswith("'index' is invalid") for p in problems)
    assert any("'extra' is not an argument of fill" in p for p in problems)
    assert tool.validate({"index": "3", "text": "x"}).index == 3  # type: ignore[attr-defined]


def test_level_and_site_per_call(arun: Any) -> None:
    tool = _sample().get("fill")
    assert tool is not None
    assert tool.permission_level(tool.validate({"index": 1, "text": "a"})) is PermissionLevel.INTERACT
    assert tool.permission_level(tool.validate({"index": 1, "text": "a", "submit": True})) is PermissionLevel.SUBMIT
    assert tool.site_for(_ctx(), tool.validate({"index": 1, "text": "a"})) == "forms.example"
    result = arun(tool.run(_ctx(), tool.validate({"index": 2, "text": "hi"})))
    assert result == ToolResult(for_model="shop.example:2:hi", for_log="shop.example:2:hi", ok=True,
                                data="shop.example:2:hi")


def test_results_errors_and_threads(arun: Any) -> None:
    registry = ToolRegistry()
    threads: list[str] = []

    @registry.tool(format_model=lambda v: f"{v['n']} items", format_log=lambda v: "counted")
    def count() -> dict[str, int]:
        """Count."""
        threads.append(threading.current_thread().name)
        return {"n": 3}

    @registry.tool
    async def fails() -> str:
        """Fails."""
        raise ToolError("the element is gone; call read_page again")

    @registry.tool
    async def crashes() -> str:
        """Crashes."""
        raise KeyError("boom")

    @registry.tool
    async def custom() -> ToolResult:
        """Custom."""
        return ToolResult(for_model="for the model", for_log="for people")

    def run(name: str) -> ToolResult:
        tool = registry.get(name)
        assert tool is not None
        return arun(tool.run(_ctx(), tool.validate({})))

    assert (run("count").for_model, run("count").for_log) == ("3 items", "counted")
    assert threads and threads[0] != threading.main_thread().name  # sync tools leave the loop free
    failed = run("fails")
    assert not failed.ok and failed.for_model == "Error: the element is gone; call read_page again"
    crashed = run("crashes")
    assert not crashed.ok and "KeyError" in crashed.for_model
    assert (run("custom").for_model, run("custom").for_log) == ("for the model", "for people")


def test_cancellation_passes_through(arun: Any) -> None:
    registry = ToolRegistry()

    @registry.tool
    async def slow() -> str:
        """Slow."""
        await asyncio.sleep(60)
        return ""

    tool = registry.get("slow")
    assert tool is not None

    async def scenario() -> bool:
        task = asyncio.ensure_future(tool.run(_ctx(), tool.validate({})))
        await asyncio.sleep(0.05)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False

    assert arun(scenario())


def test_site_of() -> None:
    assert site_of("https://www.amazon.com/dp/1") == "amazon.com"
    assert site_of("about:blank") == "" and site_of("not a url") == ""
