"""Spacing and type come from the theme's scales (``ui.look.theme.SPACE``, ``TYPE_SCALE``): the Settings
pages and the look's builders set no margin, gap or spacing as a number of their own (0 aside), no
font size and no bold markup of their own (headings are ``section_heading``); the window's other rooms
set no margin, gap or font size of their own (``theme.type_step`` gives a size on the type scale); and
every padding and margin of the application style sheet, in every theme, is a step of the scale."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from jawad_desktop.ui.look import theme

ROOT = Path(theme.__file__).resolve().parents[1]
ROOMS = ("settings", "look")
SPACING_CALLS = {"setSpacing", "addSpacing", "setHorizontalSpacing", "setVerticalSpacing", "setContentsMargins"}
SIZE_CALLS = {"setPointSize", "setPointSizeF", "setPixelSize"}
WEIGHT_CALLS = {"setBold", "setWeight"}


def literal_spacing(source: str, *, bold: bool = True) -> list[tuple[int, str]]:
    """(line, call) of each spacing call given a number other than 0 as it is written, each font
    size set by hand (``theme.type_step`` aside: the one place that sets one) and, with ``bold``, each
    weight set by hand and each string that makes text bold with markup."""
    found = []
    tree = ast.parse(source)
    scaler = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "type_step"
              for n in ast.walk(f)}
    for node in ast.walk(tree):
        if id(node) in scaler:
            continue
        call = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""
        args = node.args if isinstance(node, ast.Call) else []
        numbers = [arg.value for arg in args
                   if isinstance(arg, ast.Constant) and isinstance(arg.value, int | float) and arg.value != 0]
        if (call in SPACING_CALLS and numbers) or call in SIZE_CALLS or (bold and call in WEIGHT_CALLS):
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and re.search(r"<b>|font-size:\s*\d" if bold else r"font-size:\s*\d", node.value)):
            found.append((node.lineno, repr(node.value)))
    return found


def test_the_check_sees_a_literal() -> None:
    assert literal_spacing("row.setSpacing(6)\nform.setContentsMargins(0, 0, 0, 0)\nx.setSpacing(SPACE['xs'])") \
        == [(1, "row.setSpacing(6)")]
    assert [line for line, _ in literal_spacing("f.setPointSize(14)\nQLabel('<b>New</b>')\nQLabel('New')")] == [1, 2]
    assert [line for line, _ in literal_spacing("f.setPointSize(14)\nQLabel('<b>New</b>')", bold=False)] == [1]
    assert literal_spacing("def type_step(font, step):\n    font.setPointSizeF(9)\n") == []


@pytest.mark.parametrize("room", ROOMS)
def test_pages_take_their_spacing_from_the_scale(room: str) -> None:
    outside = [f"{path.relative_to(ROOT)}:{line}: {call}"
               for path in sorted((ROOT / room).glob("*.py")) for line, call in literal_spacing(path.read_text())]
    assert not outside, "spacing outside the theme's scale (use theme.SPACE):\n" + "\n".join(outside)


@pytest.mark.parametrize("room", ("app", "base", "chat", "desktop", "prompts", "window"))
def test_the_windows_other_rooms_take_spacing_and_sizes_from_the_scales(room: str) -> None:
    """Everywhere else in the window too: margins, gaps and font sizes come from the scales (bold
    words inside a sentence, such as a permission question's action, are emphasis, not type)."""
    outside = [f"{path.relative_to(ROOT)}:{line}: {call}" for path in sorted((ROOT / room).glob("*.py"))
               for line, call in literal_spacing(path.read_text(), bold=False)]
    assert not outside, "spacing or a font size outside the theme's scales (theme.SPACE, theme.type_step):\n" \
        + "\n".join(outside)


@pytest.mark.parametrize("name", theme.THEMES)
def test_the_style_sheet_pads_on_the_scale(name: str, qapp: object) -> None:
    sheet = theme.stylesheet_for(theme.resolve(name, system_dark=False))
    steps = {0, *theme.SPACE.values()}
    values = [int(v) for decl in re.findall(r"(?:padding|margin)(?:-\w+)?:\s*([^;}]+)", sheet)
              for v in re.findall(r"-?\d+(?=px)|(?<![\w.])0(?![\w.])", decl)]
    assert values and set(values) <= steps, f"off the scale: {sorted(set(values) - steps)}"
