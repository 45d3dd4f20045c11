"""Pages whose HTML comes at once and whose resources come late or never, a real HTTP/1.1 server on
127.0.0.1: what a heavy shop page does to a browser (adverts, trackers, image carousels), for the
tests and the benchmark of reading a page while it still loads (``benchmarks/bench_read_time.py``).

Paths:

- ``/delay/<ms>/<name>``: answers after ``ms`` milliseconds; the body follows ``name``'s extension
  (``.png`` a 1x1 image, ``.js`` an empty script, ``.css`` an empty style sheet, ``.html`` a small
  page, for iframes).
- ``/hang/<name>``: never answers while the server runs (the connection stays open, silent).
- ``/page/heavy?seed=N&hang=0|1``: a product page: its text, price and buy button in the HTML, a
  dozen images, async scripts and an iframe delayed by seconds (``seed`` picks the delays, the
  same for the same seed), with ``hang=1`` one image that never comes, and a line of reviews a
  script adds 150 ms after DOMContentLoaded.
- ``/page/never-image``: an article with one image that never comes.
- ``/page/late-content?hang=0|1&image_ms=N``: a page whose script adds a paragraph 200 ms after
  DOMContentLoaded (``hang=1``: and an image that never comes, so the load never ends;
  ``image_ms``: and an image that comes after N ms, so the load ends then).
- ``/page/blocked``: a page whose HTML waits on a script that never comes (its DOMContentLoaded
  never fires while the server runs): the load can only be stopped.

``stop()`` releases every waiting answer (hung connections are closed without an answer).
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
CONTENT_TYPES = {"png": "image/png", "js": "text/javascript", "css": "text/css", "html": "text/html; charset=utf-8"}
HANG_LIMIT_S = 600.0  # a hung answer ends by itself after this, should the server never be stopped

DESCRIPTION = (
    "The Alpine Trek 40 is a hiking backpack for long days on the trail. Its back panel keeps air moving "
    "between the pack and your shoulders, and the hip belt carries most of the weight. The main compartment "
    "opens from the top and from the front, so the sleeping bag at the bottom comes out without unpacking "
    "everything else. Two side pockets hold a litre bottle each, and the lid has a zipped pocket for a map, "
    "keys and a phone. The fabric is a recycled ripstop nylon with a water-repellent finish; a rain cover "
    "folds into its own pocket under the base. Sizes: S/M for torsos of 40 to 48 cm, L/XL for 46 to 54 cm."
)


def heavy_page(seed: int, hang: bool) -> str:
    """A product page with slow resources; the delays follow ``seed``."""
    rnd = random.Random(seed)
    images = "".join(f'<img alt="Photo {i}" width="120" height="90" '
                     f'src="/delay/{rnd.randint(200, 2500)}/photo{seed}-{i}.png">' for i in range(10))
    scripts = "".join(f'<script async src="/delay/{rnd.randint(1000, 3000)}/tracker{seed}-{i}.js"></script>'
                      for i in range(2))
    frame = (f'<iframe title="Advert" width="300" height="250" '
             f'src="/delay/{rnd.randint(3000, 6000)}/ad{seed}.html"></iframe>')
    stuck = f'<img alt="" width="1" height="1" src="/hang/beacon{seed}.png">' if hang else ""
    links = "".join(f'<a href="/c/{i}">Category {i}</a> ' for i in range(12))
    paragraphs = "".join(f"<p>{DESCRIPTION}</p>" for _ in range(3))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Alpine Trek 40 backpack {seed} - Example Outdoor</title>
{scripts}</head>
<body><header><nav>{links}</nav></header>
<main><h1>Alpine Trek 40 backpack</h1>
<p class="price">$149.00</p><button class="add-to-cart">Add to cart</button>
<div class="gallery">{images}</div>
<h2>Description</h2>{paragraphs}
<table><tr><th>Volume</th><td>40 l</td></tr><tr><th>Weight</th><td>1.3 kg</td></tr></table>
<p id="reviews"></p></main>
<aside>{frame}{stuck}</aside>
<script>
document.addEventListener("DOMContentLoaded", function () {{
  setTimeout(function () {{
    document.getElementById("reviews").textContent = "4.7 out of 5 stars, 212 reviews";
  }}, 150);
}});
</script></body></html>"""


NEVER_IMAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Harbour lights</title></head>
<body><main><h1>Harbour lights</h1>
<p>The lighthouse at the end of the north pier has guided boats into the harbour since 1872. Its lamp
turns once every ten seconds and can be seen twenty kilometres out at sea on a clear night.</p>
<img alt="The lighthouse at dusk" width="400" height="300" src="/hang/lighthouse.jpg">
<p>Visitors can climb its 112 steps on summer weekends; the keeper's cottage below is now a small museum
about the fishing fleet and the storms it weathered.</p></main></body></html>"""


def late_content(hang: bool, image_ms: int = 0) -> str:
    stuck = '<img alt="" width="1" height="1" src="/hang/late.png">' if hang else ""
    if image_ms:
        stuck += f'<img alt="Platform map" width="200" height="100" src="/delay/{image_ms}/map.png">'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Train times</title></head>
<body><main><h1>Train times</h1><p>Departures from Central station this afternoon.</p>
<div id="board"></div>{stuck}</main>
<script>
document.addEventListener("DOMContentLoaded", function () {{
  setTimeout(function () {{
    var p = document.createElement("p");
    p.textContent = "The 16:42 to Riverside leaves from platform 7.";
    document.getElementById("board").appendChild(p);
  }}, 200);
}});
</script></body></html>"""


BLOCKED = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Blocked page</title></head>
<body><h1>Waiting on a script</h1><p>This text is parsed before the script that never comes.</p>
<script src="/hang/blocking.js"></script>
<p>This text comes after it.</p></body></html>"""


class SlowPageServer:
    """Start with ``start()`` (returns itself), stop with ``stop()``; ``base_url`` has no trailing slash."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    def start(self) -> SlowPageServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="slow-pages", daemon=True)
        self._thread.start()
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # The browser drops connections it no longer needs (a new page, a stopped load): expected.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    owner: SlowPageServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, body: bytes, content_type: str, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")  # every run loads every resource again
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        steps = parts.path.strip("/").split("/")
        if steps[0] == "delay" and len(steps) == 3 and steps[1].isdigit():
            if self.owner.stopping.wait(int(steps[1]) / 1000):
                return
            ext = steps[2].rsplit(".", 1)[-1]
            body = {"png": PNG, "html": b"<!doctype html><p>Advert</p>"}.get(ext, b"")
            self._send(body, CONTENT_TYPES.get(ext, "application/octet-stream"))
        elif steps[0] == "hang":
            self.owner.stopping.wait(HANG_LIMIT_S)
            self.close_connection = True
        elif steps[0] == "page" and len(steps) == 2:
            hang = query.get("hang") == "1"
            pages = {
                "heavy": lambda: heavy_page(int(query.get("seed", "0")), hang),
                "never-image": lambda: NEVER_IMAGE,
                "late-content": lambda: late_content(hang, int(query.get("image_ms", "0"))),
                "blocked": lambda: BLOCKED,
            }
            make = pages.get(steps[1])
            if make is None:
                self._send(b"no such page", "text/plain", 404)
            else:
                self._send(make().encode(), CONTENT_TYPES["html"])
        else:
            self._send(b"no such path", "text/plain", 404)


@pytest.fixture(scope="session")
def slow_pages() -> Iterator[SlowPageServer]:
    """A ``SlowPageServer`` for the session (hung answers are released when it stops)."""
    server = SlowPageServer().start()
    try:
        yield server
    finally:
        server.stop()
