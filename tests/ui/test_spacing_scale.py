"""Spacing comes from the theme's scale (``ui.look.theme.SPACE``): the Settings pages and the look's
builders set no margin, gap or spacing as a number of their own (0 aside), and every padding and
margin of the application style sheet, in every theme, is a step of the scale."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from jawad_desktop.ui.look import theme

ROOT = Path(theme.__file__).resolve().parents[1]
ROOMS = ("settings", "look")
SPACING_CALLS = {"setSpacing", "addSpacing", "setHorizontalSpacing", "setVerticalSpacing", "setContentsMargins"}


def literal_spacing(source: str) -> list[tuple[int, str]]:
    """(line, call) of each spacing call given a number other than 0 as it is written."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SPACING_CALLS
                and any(isinstance(arg, ast.Constant) and isinstance(arg.value, int | float) and arg.value != 0
                        for arg in node.args)):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_check_sees_a_literal() -> None:
    assert literal_spacing("row.setSpacing(6)\nform.setContentsMargins(0, 0, 0, 0)\nx.setSpacing(SPACE['xs'])") \
        == [(1, "row.setSpacing(6)")]


@pytest.mark.parametrize("room", ROOMS)
def test_pages_take_their_spacing_from_the_scale(room: str) -> None:
    outside = [f"{path.relative_to(ROOT)}:{line}: {call}"
               for path in sorted((ROOT / room).glob("*.py")) for line, call in literal_spacing(path.read_text())]
    assert not outside, "spacing outside the theme's scale (use theme.SPACE):\n" + "\n".join(outside)


@pytest.mark.parametrize("name", theme.THEMES)
def test_the_style_sheet_pads_on_the_scale(name: str, qapp: object) -> None:
    sheet = theme.stylesheet_for(theme.resolve(name, system_dark=False))
    steps = {0, *theme.SPACE.values()}
    values = [int(v) for decl in re.findall(r"(?:padding|margin)(?:-\w+)?:\s*([^;}]+)", sheet)
              for v in re.findall(r"-?\d+(?=px)|(?<![\w.])0(?![\w.])", decl)]
    assert values and set(values) <= steps, f"off the scale: {sorted(set(values) - steps)}"
