"""The document library with embeddings, against the loopback server speaking OpenAI's
``/v1/embeddings`` (``tests/servers/provider_servers.py``: a hashed bag of words, so words that
fall in the same bucket are "close in meaning"): every page gets a vector in the background after
indexing, a query in other words than the page's is found only with embeddings on, the word hits
and the meaning hits are merged, a changed file's vectors are replaced, a provider that fails
leaves search by words; and the assistant gives the library its provider's embedder."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from jawad_desktop.core.assistant import Assistant
from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.config.settings import NetworkSettings
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.embeddings import Embedder
from jawad_desktop.core.llm.provider_clients import make_client
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.core.tools.files.library import DocumentLibrary
from tests.servers.provider_servers import ProviderServer, vector


def _embedder(url: str) -> Embedder:
    provider = ProviderConfig(name="Emb", kind=ProviderKind.OPENAI, base_url=url, model="gpt-4o-mini")
    return Embedder(make_client(provider, "key-123", NetworkSettings(max_retries=0)))


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lamp.txt").write_text("the tinsel hangs on the tree\n")
    (docs / "sea.txt").write_text("ocean breeze over the bay\n")
    (docs / "hill.txt").write_text("mountain trail in spring\n")
    return docs


def _bucket(word: str) -> int:
    return vector(word).index(1.0)


def test_a_query_in_other_words_is_found_only_with_embeddings(tmp_path: Path, provider_server: ProviderServer,
                                                               arun: Any) -> None:
    # The fake's meaning: "silent" and "tinsel" share a bucket; no word of the other files does.
    assert _bucket("silent") == _bucket("tinsel")
    others = "ocean breeze over the bay mountain trail in spring the hangs on tree".split()
    assert _bucket("silent") not in {_bucket(w) for w in others}
    docs = _docs(tmp_path)

    async def main() -> None:
        plain = DocumentLibrary.open(tmp_path / "c1", tmp_path / "d1")
        plain.add(docs)
        await plain.reindex()
        assert await plain.search("silent", 5) == []  # by words: no page says "silent"
        await plain.aclose()

        embedder = _embedder(provider_server.url("openai"))
        library = DocumentLibrary.open(tmp_path / "c2", tmp_path / "d2")
        library.embedder = lambda: embedder
        library.embed_batch = 2  # two requests for three pages
        library.add(docs)
        before = len(provider_server.requests)
        report = await library.reindex()  # the words are indexed first; the vectors follow
        assert report.added == 3
        await library.wait_embedded()
        calls = [r for r in provider_server.requests[before:] if r["path"] == "/openai/v1/embeddings"]
        assert [len(r["body"]["input"]) for r in calls] == [2, 1]
        assert calls[0]["body"]["model"] == "text-embedding-3-small"
        with sqlite3.connect(library.index_file) as conn:
            assert conn.execute("SELECT count(*), min(model) FROM vectors").fetchone() == (
                3, "openai:text-embedding-3-small")

        hits = await library.search("silent", 5)
        assert hits and hits[0].citation() == "lamp.txt" and "tinsel" in hits[0].snippet
        # Words and meaning merged: the page with the word stays first.
        merged = await library.search("ocean", 3)
        assert merged[0].citation() == "sea.txt"

        # A changed file: its old vectors go, the new page gets one.
        (docs / "lamp.txt").write_text("a lamp by the window\n")
        await library.update_paths([docs / "lamp.txt"])
        await library.wait_embedded()
        with sqlite3.connect(library.index_file) as conn:
            assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 3
        assert [h.citation() for h in await library.search("silent", 5)][:1] != ["lamp.txt"]
        await library.aclose()

    arun(main(), timeout=120)


def test_a_failing_provider_leaves_search_by_words(tmp_path: Path, arun: Any) -> None:
    docs = _docs(tmp_path)

    async def main() -> None:
        embedder = _embedder("http://127.0.0.1:9/v1")  # nothing listens there
        library = DocumentLibrary.open(tmp_path / "c", tmp_path / "d")
        library.embedder = lambda: embedder
        library.add(docs)
        await library.reindex()
        await library.wait_embedded()
        assert embedder.key in library._embed_failed
        assert [h.citation() for h in await library.search("ocean", 5)] == ["sea.txt"]
        assert await library.search("silent", 5) == []
        await library.aclose()

    arun(main(), timeout=120)


def test_the_assistant_gives_the_library_its_providers_embedder(profile_dir: Path, provider_server: ProviderServer,
                                                                arun: Any) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore(session_only=True))

    def library_embedder(kind: ProviderKind, fmt: str) -> object:
        provider = ProviderConfig(name="p", kind=kind, base_url=provider_server.url(fmt), model="m")
        assistant = Assistant(ctx, client=make_client(provider, "key", ctx.settings.network), ask=False, save=False)
        try:
            assert assistant.library.embedder is not None
            return assistant.library._embedder_now()
        finally:
            arun(assistant.aclose())

    found = library_embedder(ProviderKind.OPENAI, "openai")
    assert isinstance(found, Embedder) and found.key == "openai:text-embedding-3-small"
    assert library_embedder(ProviderKind.ANTHROPIC, "anthropic") is None  # no embeddings API
    # An OpenAI-compatible server with no embedding model set: none either (nothing is guessed).
    assert library_embedder(ProviderKind.OPENAI_COMPATIBLE, "openai") is None


def test_documents_go_to_a_providers_embeddings_only_as_the_setting_allows(profile_dir: Path, arun: Any) -> None:
    ctx = AppContext.open(str(profile_dir), secrets=SecretStore(session_only=True))

    def library_embedder(base_url: str) -> object:
        provider = ProviderConfig(name="p", kind=ProviderKind.OPENAI, base_url=base_url, model="gpt-4o-mini")
        assistant = Assistant(ctx, client=make_client(provider, "key", ctx.settings.network), ask=False, save=False)
        try:
            return assistant.library._embedder_now()  # nothing is sent: the embedder is only chosen
        finally:
            arun(assistant.aclose())

    cloud, here = "https://api.openai.com/v1", "http://127.0.0.1:8080/v1"
    assert ctx.settings.agent.library_embeddings == "local"  # the default: the text stays on this computer
    assert library_embedder(cloud) is None and isinstance(library_embedder(here), Embedder)
    ctx.settings.agent.library_embeddings = "any"
    assert isinstance(library_embedder(cloud), Embedder)
    ctx.settings.agent.library_embeddings = "off"
    assert library_embedder(cloud) is None and library_embedder(here) is None
