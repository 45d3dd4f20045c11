"""ESLint on the page scripts (tools/eslint/eslint.config.mjs): the joined page library and
jawad_clicks.js are clean, and a problem is reported at its module's own line."""

from __future__ import annotations

import pytest

from jawad_desktop.core.tools.page import library_modules
from tests.page_script.eslint import EslintUnavailable, install, joined_library, library_problems, problems


@pytest.fixture(scope="module", autouse=True)
def _eslint() -> None:
    try:
        install()
    except EslintUnavailable as exc:
        pytest.fail(str(exc))


def test_the_page_scripts_are_clean() -> None:
    found = problems()
    assert not found, "ESLint found problems in the page scripts:\n" + "\n".join(map(str, found))


def test_a_problem_is_reported_at_its_modules_line() -> None:
    modules = library_modules()
    names = [name for name, _ in modules]
    at = names.index("07_actions.js")
    name, source = modules[at]
    lines = source.split("\n")
    # An undefined name on the module's third line, and a variable that hides one of 00_core.js's functions.
    lines.insert(2, "  var clip = 1; undefinedByAnyone(clip);")
    broken = [*modules[:at], (name, "\n".join(lines)), *modules[at + 1:]]
    found = {(p.file, p.line, p.rule): p.message for p in library_problems(broken)}
    assert ("page/07_actions.js", 3, "no-undef") in found
    shadow = found[("page/07_actions.js", 3, "no-shadow")]
    core = dict(modules)["00_core.js"].split("\n")
    clip_line = next(i for i, line in enumerate(core, 1) if line.strip().startswith("function clip("))
    assert f"page/00_core.js:{clip_line}" in shadow


def test_the_join_starts_each_module_where_it_is() -> None:
    source, starts = joined_library()
    lines = source.split("\n")
    for name, first in starts:
        own = dict(library_modules())[name].split("\n")
        assert lines[first - 1:first - 1 + len(own)] == own, name
