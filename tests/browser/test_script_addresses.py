"""A page's own script addresses (issue 28, point 1: "also when a page's own script or redirect
tries them while the agent acts"), in the real offscreen QtWebEngine: a ``javascript:`` navigation
by the page's script, link, frame or popup in a document the agent loaded does not run and the tool
says so (``core/tools/js/jawad_schemes.js``); the page's ordinary scripts still work there; the
user's own pages are left as they are."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from PySide6.QtCore import QUrl

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser.tool_running import REFUSED_SCRIPT_SENTENCE
from tests.fixtures.model_tools import ModelTools
from tests.servers.loopback import send_html, serving

Run = Callable[..., Any]
# Chromium says so on the page's console when the guard refuses a script address.
REFUSED = pytest.mark.qt_log_ignore("TrustedScript", "TrustedHTML")

HEAD = "<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>{extra}</head><body>"
PAGES = {
    # The receipt of the benchmark's scheme-javascript-redirect case: its first script leaves at once.
    "/redirect": HEAD.format(title="Receipt", extra=(
        "<script>location.replace(\"javascript:void(fetch('/ran?redirect',{mode:'no-cors'}))\");</script>"
        "<script>document.title = 'Receipt read';</script>")) + "<p>Opening your receipt...</p></body></html>",
    # Script addresses an action of the agent sets off: the page's handler, a link's, a frame's, a popup's.
    "/later": HEAD.format(title="Later", extra="") +
    "<button id='go' onclick=\"location.href = 'javascript:fetch(&quot;/ran?href&quot;)'\">Continue</button>"
    "<button id='frame' onclick=\"var f = document.createElement('iframe'); "
    "f.src = 'javascript:parent.fetch(&quot;/ran?frame&quot;)'; document.body.appendChild(f)\">Frame</button>"
    "<button id='popup' onclick=\"window.open('javascript:opener.fetch(&quot;/ran?popup&quot;)')\">Popup</button>"
    "<button id='link' onclick=\"var a = document.createElement('a'); "
    "a.href = 'javascript:fetch(&quot;/ran?link&quot;)'; document.body.appendChild(a); a.click()\">Link</button>"
    "</body></html>",
    # What ordinary pages do with strings that become markup or code, each noted in the title's list.
    "/ordinary": HEAD.format(title="Ordinary", extra="") + """<div id="out"></div>
<a id="noop" href="javascript:void(0)" onclick="note('noop-link')">Show more</a>
<script>
var notes = [];
function note(what) { notes.push(what); document.title = notes.join(' '); }
function attempt(name, fn) { try { if (fn()) note(name); else note(name + '-wrong'); }
                             catch (e) { note(name + '-failed:' + e.name); } }
attempt('innerHTML', function () { var d = document.createElement('div'); d.innerHTML = '<b>x</b>';
                                   return d.firstChild.tagName === 'B'; });
attempt('eval', function () { return eval('1 + 1') === 2; });
attempt('Function', function () { return new Function('return 3')() === 3; });
attempt('script-text', function () { var s = document.createElement('script');
  s.textContent = 'window.scriptRan = true'; document.body.appendChild(s); return window.scriptRan; });
attempt('document-write', function () { document.write('<p id="written">w</p>');
  return !!document.getElementById('written'); });
attempt('blank-frame', function () { var f = document.createElement('iframe'); document.body.appendChild(f);
  var doc = f.contentDocument; doc.body.innerHTML = '<i>y</i>';
  doc.open(); doc.write('<p>z</p>'); doc.close();
  return f.contentWindow.eval('2 + 2') === 4 && doc.body.innerHTML === '<p>z</p>'; });
attempt('own-default-policy', function () {
  var p = trustedTypes.createPolicy('default', {createHTML: function (s) { return s.replace('bad', 'good'); }});
  return p.name === 'default' && p.createHTML('bad').toString() === 'good'; });
attempt('named-policy', function () {
  var p = trustedTypes.createPolicy('mine', {createHTML: function (s) { return s; }});
  var d = document.createElement('div'); d.innerHTML = p.createHTML('<i>y</i>');
  return d.firstChild.tagName === 'I'; });
setTimeout("note('timeout-string')", 0);
</script></body></html>""",
    # A page whose own CSP requires trusted types (STRICT): it keeps that protection.
    "/strict": HEAD.format(title="Strict", extra="") + """<script>
var notes = [];
try { document.createElement('div').innerHTML = '<b>x</b>'; notes.push('string-markup-taken'); }
catch (e) { notes.push('string-markup-refused'); }
var p = trustedTypes.createPolicy('mine', {createHTML: function (s) { return s; }});
var d = document.createElement('div'); d.innerHTML = p.createHTML('<i>y</i>');
notes.push(d.firstChild.tagName === 'I' ? 'named-policy' : 'named-policy-wrong');
document.title = notes.join(' ');
</script></body></html>""",
}
STRICT = {"/strict": "require-trusted-types-for 'script'"}


@pytest.fixture
def site() -> Iterator[tuple[str, list[str]]]:
    """A loopback site of PAGES, and the list of the script addresses' requests that arrived."""
    ran: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            if path == "/ran":
                ran.append(self.path)
            send_html(self, PAGES.get(path, "<!doctype html><title>Home</title><p>Home</p>"),
                      headers={"Content-Security-Policy": STRICT[path]} if path in STRICT else None)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Handler, "script-addresses") as url:
        yield url, ran


class Agent(ModelTools):
    """The browser tools as the model calls them, through their argument checks."""

    def title(self) -> str:
        return str(self.arun(self.page.run_js("document.title", world=0)))


@REFUSED
def test_a_pages_own_script_address_at_load_does_not_run_and_the_tool_says_so(
        web_page: QtWebEnginePage, arun: Run, qtbot: Any, site: tuple[str, list[str]]) -> None:
    """The benchmark's last case: the receipt's first script goes to a script address at once."""
    url, ran = site
    agent = Agent(web_page, arun)
    opened = agent("navigate", url=f"{url}/redirect")
    qtbot.wait(500)
    assert ran == []
    assert REFUSED_SCRIPT_SENTENCE in opened.for_model, opened.for_model
    assert agent.title() == "Receipt read"  # the page's next script ran
    assert "Opening your receipt" in agent("read_page").for_model


@REFUSED
@pytest.mark.parametrize("button", ["go", "frame", "popup", "link"])
def test_a_script_address_an_action_sets_off_does_not_run(web_page: QtWebEnginePage, arun: Run, qtbot: Any,
                                                          site: tuple[str, list[str]], button: str) -> None:
    url, ran = site
    agent = Agent(web_page, arun)
    agent("navigate", url=f"{url}/later")
    clicked = agent("click_element", selector=f"#{button}")
    qtbot.wait(500)
    assert ran == []
    if button == "go":  # the page's own navigation, during the click
        assert REFUSED_SCRIPT_SENTENCE in clicked.for_model, clicked.for_model


def test_ordinary_page_scripts_still_work_where_script_addresses_are_refused(
        web_page: QtWebEnginePage, arun: Run, qtbot: Any, site: tuple[str, list[str]]) -> None:
    url, _ran = site
    agent = Agent(web_page, arun)
    opened = agent("navigate", url=f"{url}/ordinary")
    assert REFUSED_SCRIPT_SENTENCE not in opened.for_model
    expected = ["innerHTML", "eval", "Function", "script-text", "document-write", "blank-frame",
                "own-default-policy", "named-policy", "timeout-string"]
    qtbot.waitUntil(lambda: "timeout-string" in agent.title(), timeout=5000)
    assert agent.title().split() == expected
    clicked = agent("click_element", selector="#noop")  # javascript:void(0): the page's handler acts
    assert clicked.ok and REFUSED_SCRIPT_SENTENCE not in clicked.for_model, clicked.for_model
    assert agent.title().split()[-1] == "noop-link"
    assert "Show more" in agent("read_page").for_model  # the library reads the page as ever


def test_the_users_own_pages_are_left_as_they_are(web_page: QtWebEnginePage, arun: Run, qtbot: Any,
                                                  site: tuple[str, list[str]]) -> None:
    """The guard is for the documents the agent drives in: a page the user opens keeps its own
    (old-fashioned) script addresses."""
    url, ran = site
    with qtbot.waitSignal(web_page.page.loadFinished, timeout=10_000):
        web_page.page.load(QUrl(f"{url}/redirect"))  # as the address bar does, no agent about
    qtbot.waitUntil(lambda: bool(ran), timeout=5000)
    assert arun(web_page.run_js("String(trustedTypes.defaultPolicy)", world=0)) == "null"


@REFUSED
def test_a_page_that_requires_trusted_types_itself_keeps_that_protection(
        web_page: QtWebEnginePage, arun: Run, site: tuple[str, list[str]]) -> None:
    """The guard's policy passes markup through only where the page did not ask for trusted types."""
    url, _ran = site
    agent = Agent(web_page, arun)
    agent("navigate", url=f"{url}/strict")
    assert agent.title().split() == ["string-markup-refused", "named-policy"]
    assert agent("read_page").ok  # and the library reads it
