"""Issue 21's figures for the user's files: ``python -m benchmarks files``.

- **Indexing**: the document library (``core.tools.files.library``) indexes 1,000 text files and
  100 PDFs (three pages each, made with fpdf2) generated in a temporary folder; then a second scan
  with nothing changed.
- **Search at 10,000 documents**: 10,000 text files (varied words) indexed, then searches of one to
  three words: median and 95th percentile of ``DocumentLibrary.search`` as the tool calls it (the hop
  to the database thread included).
- **Attachments per format**: a real file of each format with a planted phrase is sent through
  ``Assistant.send(text, attachments=[...])`` to the reader model (a loopback OpenAI-compatible
  server that answers with the planted phrases it was sent, ``tests/servers/reader_model.py``);
  a format passes when its phrase is in the request and comes back in the answer.
- **GGUF download resumed after a dropped connection** (issue 21 point 3): a catalog model's .gguf
  (random bytes, 64 MB; 16 MB with --quick) from a loopback server that answers as the Hugging Face
  hub (``tests/voice/hub_server.py``), which cuts the connection once halfway through the file; the
  app's downloader (``core.llm.local_models``) resumes with a Range request. Reported: the bytes sent
  twice, the whole time, and whether the SHA-256 the hub announced matched.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks import Figure
from jawad_desktop.core.tools.files.library import DocumentLibrary

WORDS = ("invoice receipt contract holiday boiler garden report budget meeting travel insurance pension "
         "salary refund policy warranty manual recipe doctor school energy mortgage tax car phone bank "
         "ticket order delivery parcel account password backup server laptop printer kitchen window "
         "roof heating water electricity rent lease deposit claim appeal letter notice minutes agenda").split()


def _write_texts(folder: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(80, 300)))
        (folder / f"doc{n:05}.txt").write_text(f"Document {n}\n\n{words}\n", encoding="utf-8")


def _write_pdfs(folder: Path, count: int, seed: int) -> None:
    from fpdf import FPDF

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        pdf = FPDF()
        pdf.set_font("helvetica", size=11)
        for page in range(3):
            pdf.add_page()
            pdf.multi_cell(0, 6, f"Report {n}, page {page + 1}. "
                           + " ".join(rng.choice(WORDS) for _ in range(250)))
        pdf.output(str(folder / f"report{n:03}.pdf"))


async def _index(root: Path, folder: Path) -> tuple[float, float, int, int]:
    library = DocumentLibrary.open(root / "config", root / "data")
    library.add(folder)
    try:
        started = time.perf_counter()
        report = await library.reindex()
        first = time.perf_counter() - started
        assert not report.failed, report.failed[:3]
        started = time.perf_counter()
        again = await library.reindex()
        second = time.perf_counter() - started
        assert again.unchanged == report.added
        stats = await library.stats()
        return first, second, stats.documents, stats.chunks
    finally:
        await library.aclose()


async def _search(root: Path, folder: Path, queries: int) -> tuple[float, list[float], int]:
    library = DocumentLibrary.open(root / "config", root / "data")
    library.add(folder)
    try:
        started = time.perf_counter()
        await library.reindex()
        indexed = time.perf_counter() - started
        rng = random.Random(7)
        times: list[float] = []
        empty = 0
        for _ in range(queries):
            query = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
            t0 = time.perf_counter()
            hits = await library.search(query, 5)
            times.append((time.perf_counter() - t0) * 1000)
            empty += not hits
        return indexed, times, empty
    finally:
        await library.aclose()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def _attachments(root: Path) -> dict[str, bool]:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
    from jawad_desktop.core.context import AppContext
    from jawad_desktop.core.llm.provider_clients import make_client
    from jawad_desktop.core.store.secrets import SecretStore
    from tests.files.samples import FORMATS, make_sample, planted
    from tests.servers.reader_model import ReaderModel, planted_in

    server = ReaderModel().start()
    results: dict[str, bool] = {}
    try:
        ctx = AppContext.open(str(root / "profile"), secrets=SecretStore(session_only=True))
        files = root / "samples"
        files.mkdir()
        for fmt in FORMATS:
            sample = make_sample(files, fmt)
            model = "gpt-4o" if fmt in ("png", "jpg", "webp") else "scripted"  # pictures to a model that sees
            provider = ProviderConfig(name="reader", kind=ProviderKind.OPENAI_COMPATIBLE,
                                      base_url=server.base_url, model=model)
            assistant = Assistant(ctx, client=make_client(provider, network=ctx.settings.network), ask=False,
                                  save=False)
            server.script()
            try:
                response = await assistant.send("What code does the file give?", [sample])
            finally:
                await assistant.aclose()
            phrase = planted(fmt)
            results[fmt] = (not response.is_error and phrase in response.content
                            and len(server.requests) == 1 and planted_in(server.requests[0]) == [phrase])
    finally:
        server.stop()
    return results


def _gguf_resume(root: Path, size: int) -> tuple[float, int, int, bool]:
    """(seconds, bytes sent twice, byte the download resumed at, checksum verified)."""
    import hashlib
    import os
    from contextlib import contextmanager

    from jawad_desktop.core.llm.catalog import CATALOG
    from jawad_desktop.core.llm.local_models import GgufDownload
    from jawad_desktop.core.store import pins
    from tests.voice.hub_server import serve_hub

    entry = CATALOG[1]
    repo = root / "repo"
    repo.mkdir(parents=True)
    source = repo / entry.file
    with source.open("wb") as out:
        for _ in range(size // (1 << 20)):
            out.write(os.urandom(1 << 20))
    drop = size // 2
    pinned = entry.pin  # the random file stands in for the model: its pin names it for this run
    pins.PINS[pinned.key] = pins.Pin(pinned.key, pinned.repo, pinned.revision, {entry.file: pins.sha256_of(source)})
    with contextmanager(serve_hub)({entry.repo: repo}) as hub:
        hub.drop_after[entry.file] = drop
        download = GgufDownload(entry, root / "models", endpoint=hub.base_url)
        started = time.perf_counter()
        path = download.run()
        elapsed = time.perf_counter() - started
        starts = [start for name, start in hub.gets if name == entry.file]
    pins.PINS[pinned.key] = pinned
    sent = drop + sum(size - start for start in starts[1:])  # the cut-off answer, then the rest
    ok = hashlib.sha256(path.read_bytes()).hexdigest() == hashlib.sha256(source.read_bytes()).hexdigest()
    resumed_at = download.resumed_from[0] if download.resumed_from else 0
    return elapsed, sent - size, resumed_at, ok


def run(quick: bool) -> list[Figure]:
    figures: list[Figure] = []
    texts, pdfs, corpus, queries = (200, 20, 2_000, 100) if quick else (1_000, 100, 10_000, 500)
    with tempfile.TemporaryDirectory(prefix="jawad-bench-files-") as tmp:
        root = Path(tmp)
        mixed = root / "mixed"
        _write_texts(mixed / "texts", texts, seed=1)
        _write_pdfs(mixed / "pdfs", pdfs, seed=2)
        first, second, documents, chunks = asyncio.run(_index(root / "a", mixed))
        figures.append(Figure(f"index {texts:,} text files + {pdfs} PDFs", first, "s",
                              note=f"{documents:,} files, {chunks:,} pages or parts"))
        figures.append(Figure("rescan with nothing changed", second, "s", note=f"{documents:,} files"))

        big = root / "big"
        _write_texts(big, corpus, seed=3)
        indexed, times, empty = asyncio.run(_search(root / "b", big, queries))
        figures.append(Figure(f"index {corpus:,} text files", indexed, "s"))
        figures.append(Figure(f"search at {corpus:,} documents, median", statistics.median(times), "ms",
                              note=f"{queries} queries of 1-3 words, 5 results; {empty} found nothing"))
        figures.append(Figure(f"search at {corpus:,} documents, p95", _percentile(times, 0.95), "ms",
                              goal="<= 100 ms", ok=_percentile(times, 0.95) <= 100))

        reached = asyncio.run(_attachments(root / "c"))
        for fmt, ok in reached.items():
            figures.append(Figure(f"attachment {fmt}: planted phrase reached the model", float(ok), "",
                                  goal="in the request and the answer", ok=ok))

        size = (16 if quick else 64) << 20
        elapsed, twice, resumed_at, verified = _gguf_resume(root / "d", size)
        mb = size >> 20
        figures.append(Figure(f"GGUF download resumed after a dropped connection ({mb} MB), total time", elapsed,
                              "s", note=f"cut off at {size // 2:,} bytes, resumed with Range from byte {resumed_at:,} "
                              "(after the downloader's 0.5 s pause)"))
        figures.append(Figure("GGUF download resumed: bytes downloaded twice", float(twice), "bytes",
                              goal="0 (Range resume)", ok=twice == 0 and resumed_at == size // 2))
        figures.append(Figure("GGUF download resumed: SHA-256 verified", float(verified), "",
                              goal="matches the hub's X-Linked-Etag", ok=verified))
    return figures
