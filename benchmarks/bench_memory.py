"""The user's memory (issue 34): choosing the facts for a message among 10,000.

The facts and the messages are real sentences nobody here wrote: the articles of the article
corpus (``../shared/corpora/articles``, Readability's test pages, Apache-2.0) and the main-content
snippets and paragraphs of the web-snippets corpus (trafilatura's evaluation pages), cut into
sentences of 30 to 300 characters. 10,000 of them are remembered; 200 others are the messages. Figures: the time
of ``MemoryStore.relevant`` per message (median and 95th percentile, the default budget), and how
many facts it chose; the time to remember one more fact.
"""

from __future__ import annotations

import html
import json
import random
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks import Figure
from jawad_desktop.core.config.settings import MemorySettings
from jawad_desktop.core.store.database import Database
from jawad_desktop.core.store.memory import MemoryStore

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CORPUS = CORPORA / "articles" / "pages"
FACTS = 10_000
GOAL_MS = 50.0  # a message must not wait for its memory


def _sentences() -> list[str]:
    texts = [html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8", errors="replace")))
             for page in sorted(CORPUS.glob("*/expected.html"))]
    snippets = CORPORA / "web-snippets" / "snippets.json"
    if snippets.is_file():
        texts += [s for entry in json.loads(snippets.read_text(encoding="utf-8")).values() for s in entry["with"]]
    for page in sorted((CORPORA / "web-snippets" / "pages").glob("*.html")):  # their paragraphs
        source = page.read_text(encoding="utf-8", errors="replace")
        texts += [html.unescape(re.sub(r"<[^>]+>", " ", p)) for p in re.findall(r"<p[^>]*>(.*?)</p>", source, re.S)]
    found = [sentence for text in texts for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
             if 30 <= len(sentence) <= 300]
    return list(dict.fromkeys(found))


def run(quick: bool) -> list[Figure]:
    sentences = _sentences()
    if len(sentences) < FACTS + 200:
        return [Figure("memory: corpus", len(sentences), "sentences", note=f"too few sentences in {CORPORA}")]
    rng = random.Random(34)
    rng.shuffle(sentences)
    facts, messages = sentences[:FACTS], sentences[FACTS:FACTS + (50 if quick else 200)]
    root = Path(tempfile.mkdtemp(prefix="jawad-bench-memory-"))
    try:
        db = Database.in_folder(root)
        memory = MemoryStore(db)
        with db.transaction() as conn:  # the 10,000 facts at once (the triggers index them)
            conn.executemany("INSERT INTO memories (text, created_at, updated_at) VALUES (?, ?, ?)",
                             [(fact, i, i) for i, fact in enumerate(facts)])
        budget = MemorySettings().budget_chars
        times, chosen = [], []
        for message in messages:
            start = time.perf_counter()
            picked = memory.relevant(message, budget)
            times.append((time.perf_counter() - start) * 1000)
            chosen.append(len(picked))
        start = time.perf_counter()
        memory.add("I keep my bike in the courtyard, not on the street.")
        add_ms = (time.perf_counter() - start) * 1000
        db.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    median = statistics.median(times)
    p95 = sorted(times)[int(len(times) * 0.95) - 1]
    return [
        Figure("memory: facts for a message among 10,000 (median)", round(median, 2), "ms", f"<= {GOAL_MS:.0f} ms",
               median <= GOAL_MS, note=f"{len(messages)} real sentences as messages; "
                                       f"median {statistics.median(chosen):.0f} facts chosen within "
                                       f"{budget} characters"),
        Figure("memory: facts for a message among 10,000 (p95)", round(p95, 2), "ms", f"<= {GOAL_MS:.0f} ms",
               p95 <= GOAL_MS),
        Figure("memory: remember one more fact", round(add_ms, 2), "ms", note="one durable transaction"),
    ]
