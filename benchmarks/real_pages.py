"""Reading saved real pages through the product, in a child process: the harness the real-page
benchmarks share (``bench_web_snippets``, ``bench_products_fathom``).

The parent starts ``python -m benchmarks.real_pages FOLDER NAME...`` with offscreen Qt; the child serves
``FOLDER`` on 127.0.0.1, and for each page navigates to it (as the agent does, its dialogs answered),
then times ``read_page`` from the call, and records what the model would get: the main content's
Markdown, which extractor it came from, the product, the tokens of ``for_model()`` (the text and the
element list, counted by ``core.tokens`` as GPT-4o counts them).
It also runs plain Mozilla Readability (the vendored library, as upstream ships it) on the page's file
as downloaded, parsed by the browser (``DOMParser``, no scripts, no styles, nothing hidden), so the
library alone is measured on the same pages in the same run.

Nothing outside 127.0.0.1 is fetched (the machine is offline, and a saved page is read as saved): a
page whose script sends the browser to its live site (to https, or to another host: the browser would
show its error page) is read again as saved, with its scripts off.
Pages are served with the charset they are in (a page that names none in its markup gets the one
detected from its bytes in the HTTP header, as a web server that knows its files sends it).
``JAWAD_BENCH_SNAPSHOTS=DIR`` also writes each page's ``RawSnapshot`` there as JSON, to study a page
without the browser.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The team's shared corpora sit beside the checkout (../shared), or beside the folder of worktrees.
CORPORA = next((up / "shared" / "corpora" for up in ROOT.parents if (up / "shared" / "corpora").is_dir()),
               ROOT.parent / "shared" / "corpora")
NAVIGATE_TIMEOUT_S = 15.0

_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([\w-]+)", re.I)


def charset_of(raw: bytes) -> str:
    """The page's encoding: the one its markup names, else the one its bytes look like."""
    named = _META_CHARSET.search(raw[:8192])
    if named:
        return named.group(1).decode("ascii", "replace").lower()
    try:
        raw.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        from charset_normalizer import from_bytes

        best = from_bytes(raw).best()
        return best.encoding if best else "windows-1252"


def decoded(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode(charset_of(raw), errors="replace")
    except LookupError:
        return raw.decode("utf-8", errors="replace")


# The tokens of what the model reads, counted by core.tokens as GPT-4o counts them (o200k_base, exact).
TOKENS_MODEL = "gpt-4o"


def tokens_of(text: str) -> int:
    """The tokens of ``text`` for ``TOKENS_MODEL`` (``core.tokens``)."""
    from jawad_desktop.core.tokens import counter_for

    return counter_for(TOKENS_MODEL).count(text)


def read_pages(folder: Path, names: list[str], *, timeout: float = 3600) -> dict[str, dict[str, Any]]:
    """Each page of ``folder`` read by the product (see the module's docstring): name -> record."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_API="pyside6")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")
    proc = subprocess.run([sys.executable, "-m", "benchmarks.real_pages", str(folder), *names], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
    line = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("{")), "")
    if proc.returncode != 0 or not line:
        raise RuntimeError(f"reading the real pages failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    records: dict[str, dict[str, Any]] = json.loads(line)
    return records


_PLAIN_READABILITY = """(function (raw) {
  if (typeof __jawadReader === "undefined") return null;
  var doc = new DOMParser().parseFromString(raw, "text/html");
  var base = doc.createElement("base"); base.href = String(location.href);
  (doc.head || doc.documentElement).insertBefore(base, (doc.head || doc.documentElement).firstChild);
  var a = new __jawadReader.Readability(doc).parse();
  return a ? JSON.stringify({ content: a.content || "", title: a.title || "" }) : "";
})(%s)"""


# A page that sends itself to https (the server here speaks HTTP only) is loaded again from this path,
# with its own scripts off (as saved, without the script that moves it).
NO_SCRIPTS = "/_as-saved"


def _offline_interceptor(port: int) -> Any:
    from PySide6.QtCore import QUrl
    from PySide6.QtWebEngineCore import QWebEngineUrlRequestInfo, QWebEngineUrlRequestInterceptor

    class Offline(QWebEngineUrlRequestInterceptor):
        """Blocks every request but plain HTTP to 127.0.0.1; a page's own move to https comes back to
        its saved copy without its scripts."""

        def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
            url = info.requestUrl()
            if (url.scheme() == "https" and url.host() == "127.0.0.1"
                    and info.resourceType() == QWebEngineUrlRequestInfo.ResourceType.ResourceTypeMainFrame
                    and not url.path().startswith(NO_SCRIPTS)):
                info.redirect(QUrl(f"http://127.0.0.1:{port}{NO_SCRIPTS}{url.path()}"))
            elif url.scheme() in ("https", "ws", "wss", "ftp") or (
                    url.scheme() == "http" and url.host() != "127.0.0.1"):
                info.block(True)

    return Offline()


def _child(folder: Path, names: list[str]) -> int:
    import contextlib
    import dataclasses
    import functools
    import threading
    import time
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from jawad_desktop.cli.terminal import offscreen_page
    from jawad_desktop.core.tools.browser import read_page
    from jawad_desktop.core.tools.page import PageError
    from jawad_desktop.ui.app.application import end_process, run_loop

    class Served(SimpleHTTPRequestHandler):
        def translate_path(self, path: str) -> str:
            return super().translate_path(path.removeprefix(NO_SCRIPTS))

        def end_headers(self) -> None:
            if self.path.startswith(NO_SCRIPTS):
                self.send_header("Content-Security-Policy", "script-src 'none'")
            super().end_headers()

        def guess_type(self, path: Any) -> str:
            kind = super().guess_type(path)
            if kind == "text/html":
                with contextlib.suppress(OSError):
                    return f"text/html; charset={charset_of(Path(path).read_bytes())}"
            return kind

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Served, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    page = offscreen_page(None, private=True)
    offline = _offline_interceptor(server.server_address[1])  # kept alive for the page's life
    page.page.profile().setUrlRequestInterceptor(offline)
    keep = os.environ.get("JAWAD_BENCH_SNAPSHOTS", "")
    out: dict[str, dict[str, Any]] = {}

    async def main() -> int:
        for name in names:
            record: dict[str, Any] = {}
            out[name] = record
            with contextlib.suppress(PageError), page.agent_action():
                await page.navigate(f"{base}/{name}", timeout=NAVIGATE_TIMEOUT_S)
            if not (await page.url()).startswith(f"{base}/"):  # its script sent it to its live site (blocked)
                record["as_saved"] = True
                with contextlib.suppress(PageError), page.agent_action():
                    await page.navigate(f"{base}{NO_SCRIPTS}/{name}", timeout=NAVIGATE_TIMEOUT_S)
            started = time.perf_counter()
            try:
                reading = await read_page(page)
                if not reading.url:
                    raise RuntimeError("the page script gave no snapshot")
            except Exception as exc:  # a page the product cannot read scores 0, and is named
                record["error"] = repr(exc)[:300]
                print(f"{name}: read_page failed: {exc!r}", file=sys.stderr, flush=True)
                continue
            record.update(read_ms=(time.perf_counter() - started) * 1000, markdown=reading.markdown,
                          content_from=reading.content_from, product=reading.product,
                          tokens=tokens_of(reading.for_model()))
            try:
                raw = await page.run_js(_PLAIN_READABILITY % json.dumps(decoded(folder / name)), timeout=60.0)
                record["readability"] = json.loads(raw)["content"] if raw else ""
            except Exception as exc:
                record["readability"] = ""
                print(f"{name}: plain Readability failed: {exc!r}", file=sys.stderr, flush=True)
            if keep:
                snapshot = await page.snapshot()
                Path(keep).mkdir(parents=True, exist_ok=True)
                (Path(keep) / f"{name.replace('/', '_')}.json").write_text(json.dumps(dataclasses.asdict(snapshot)))
        return 0

    try:
        run_loop(main)
    finally:
        server.shutdown()
    print(json.dumps(out), flush=True)
    end_process(0)  # skip interpreter teardown of Qt objects (see ui/app/application.py)
    return 0


if __name__ == "__main__":
    sys.exit(_child(Path(sys.argv[1]), sys.argv[2:]))
