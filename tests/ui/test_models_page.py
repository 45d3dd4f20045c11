"""Settings → Models, offscreen: a model downloads from a loopback server that answers as the
Hugging Face hub, with progress; Cancel keeps what arrived and Download resumes it; "Use this
model" makes the local provider run it; the Ollama section lists and pulls models through a
loopback server that speaks Ollama's API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QTableWidgetItem

from jawad_desktop.core.config.providers import ProviderConfig, ProviderKind
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.local_models import models_folder
from jawad_desktop.core.store.hub_download import INCOMPLETE_SUFFIX
from jawad_desktop.core.store.secrets import SecretStore
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.settings.models_page import ModelsPage
from tests.servers.ollama_models import OllamaModels, serve_ollama
from tests.ui.page_checks import assert_named_and_labelled
from tests.voice.hub_server import HubServer, serve_catalog_model

NAME = "qwen2.5-coder-0.5b-instruct"
SIZE = 4_000_000


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubServer]:
    yield from serve_catalog_model(tmp_path, NAME, SIZE)


@pytest.fixture
def ollama() -> Iterator[OllamaModels]:
    yield from serve_ollama({"qwen2.5:0.5b": [397_807_936]}, installed={"llama3.2:1b": 1_321_098_329})


@pytest.fixture
def ctx(profile_dir: Path, secret_store: SecretStore) -> AppContext:
    return AppContext.open(str(profile_dir), secrets=secret_store)


def make_page(ctx: AppContext, qtbot: Any, endpoint: str = "") -> ModelsPage:
    page = ModelsPage(ctx, endpoint=endpoint or None)
    qtbot.addWidget(page)
    page.show()
    return page


def cell(page: ModelsPage, row: int, column: int) -> QTableWidgetItem:
    item = page.table.item(row, column)
    assert item is not None
    return item


def row_status(page: ModelsPage, name: str) -> str:
    row = next(r for r, s in enumerate(page._states) if s.entry.name == name)
    return cell(page, row, 4).text()


def test_download_cancel_resume_and_use(
    ctx: AppContext, hub: HubServer, qtbot: Any, aio_loop: Any, profile_dir: Path, secret_store: SecretStore
) -> None:
    page = make_page(ctx, qtbot, hub.base_url)
    assert_named_and_labelled(page)
    assert row_status(page, "smollm2") == "In use" and row_status(page, NAME) == "Not downloaded"
    assert cell(page, 0, 3).text() == "Poor" and "tool calls" in cell(page, 0, 3).toolTip()
    page.select(NAME)
    assert page.download.isEnabled() and not page.use.isEnabled()

    hub.throttle_s = 0.05  # 16 pieces: about 0.8 s, time to cancel midway
    values: list[int] = []
    page.progress.valueChanged.connect(values.append)
    page.download.click()
    assert not page.cancel.isHidden() and not page.download.isEnabled()
    qtbot.waitUntil(lambda: page.progress.value() > 100, timeout=10_000)
    page.cancel.click()
    qtbot.waitUntil(lambda: page.cancel.isHidden(), timeout=10_000)
    assert "cancelled" in page.status.text() and page.progress.isHidden()
    partial = models_folder(ctx.paths.data) / ("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" + INCOMPLETE_SUFFIX)
    kept = partial.stat().st_size
    assert 0 < kept < SIZE and row_status(page, NAME).startswith("Paused at")

    hub.throttle_s = 0.0
    hub.gets.clear()
    page.download.click()
    qtbot.waitUntil(lambda: page.cancel.isHidden(), timeout=10_000)
    assert hub.gets == [("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", kept)]  # resumed, not started over
    assert "downloaded and checked" in page.status.text() and row_status(page, NAME) == "Downloaded"
    assert values and max(values) == 1000

    changed: list[bool] = []
    page.changed.connect(lambda: changed.append(True))
    assert page.use.isEnabled()
    page.use.click()
    assert changed and row_status(page, NAME) == "In use" and not page.use.isEnabled()
    saved = AppContext.open(str(profile_dir), secrets=secret_store).settings
    [local] = [p for p in saved.providers if p.kind is ProviderKind.LOCAL]
    assert local.model == NAME and local.model_file == str(partial.with_suffix(""))

    page.delete.click()  # the model in use is deleted: the provider goes back to the bundled model
    assert not partial.with_suffix("").exists() and row_status(page, "smollm2") == "In use"
    assert AppContext.open(str(profile_dir), secrets=secret_store).settings.providers[0].model_file == ""


def test_a_corrupt_download_is_an_error_on_the_page(ctx: AppContext, hub: HubServer, qtbot: Any,
                                                     aio_loop: Any) -> None:
    page = make_page(ctx, qtbot, hub.base_url)
    page.select("smollm2")  # both rows' descriptions seen: the taller one's room is kept
    qtbot.wait(20)
    hub.corrupt.add("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    page.select(NAME)
    page.download.click()
    qtbot.waitUntil(lambda: page.cancel.isHidden(), timeout=10_000)
    assert "damaged" in page.status.text() and "deleted" in page.status.text()
    assert row_status(page, NAME) == "Not downloaded" and page.download.isEnabled()
    # Another row chosen: the red error of the last one goes, and nothing below the line moves.
    below = page.ollama_box.y()
    page.select("smollm2")
    assert page.status.text() == ""
    qtbot.wait(50)
    assert page.ollama_box.y() == below, "the page shifted when the error went"


def test_ollama_list_and_pull(ctx: AppContext, ollama: OllamaModels, qtbot: Any, aio_loop: Any) -> None:
    ctx.settings.providers = [ProviderConfig(name="Ollama", kind=ProviderKind.OLLAMA,
                                             base_url=ollama.base_url + "/v1")]
    page = make_page(ctx, qtbot)
    assert "'Ollama'" in page.ollama_where.text() and page.pull.isEnabled()
    page.ollama_refresh.click()
    qtbot.waitUntil(lambda: page.ollama_models.count() == 1, timeout=10_000)
    assert page.ollama_models.item(0).text().startswith("llama3.2:1b")

    page.pull_name.setText("qwen2.5:0.5b")
    page.pull.click()
    qtbot.waitUntil(lambda: page.ollama_models.count() == 2, timeout=10_000)
    assert "ready in Ollama" in page.ollama_status.text() and page.cancel_pull.isHidden()

    page.pull_name.setText("no-such-model")
    page.pull.click()
    qtbot.waitUntil(lambda: page.pull.isEnabled(), timeout=10_000)
    assert "no model called 'no-such-model'" in page.ollama_status.text()

    ollama.line_pause_s = 0.1
    page.pull_name.setText("qwen2.5:0.5b")
    page.pull.click()
    qtbot.waitUntil(lambda: page.pull_progress.maximum() == 1000, timeout=10_000)
    page.cancel_pull.click()
    qtbot.waitUntil(lambda: page.pull.isEnabled(), timeout=10_000)
    assert "cancelled" in page.ollama_status.text() and page.pull_progress.isHidden()


def test_no_ollama_provider_and_the_dialog_has_the_page(
    ctx: AppContext, qtbot: Any, aio_loop: Any
) -> None:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show_page("Models")
    assert dialog.current_page() is dialog.models
    assert "No Ollama provider" in dialog.models.ollama_where.text() and not dialog.models.pull.isEnabled()


def test_add_a_file_use_it_and_take_it_off_the_list(ctx: AppContext, qtbot: Any, aio_loop: Any,
                                                     tmp_path: Path, profile_dir: Path,
                                                     secret_store: SecretStore) -> None:
    """Models → Add a file…: a GGUF file on the disk is checked by its header, listed after the
    catalog, run by "Use this model" where it lies; a file that is not a GGUF is refused on the page;
    Delete takes an added file off the list and leaves it on the disk."""
    page = make_page(ctx, qtbot)
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    page.add_file.click()  # returns at once: the dialog is open, the event loop runs
    dialog = page.file_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.selectFile(str(text))
    dialog.accept()
    assert "notes.gguf is not a GGUF model file" in page.status.text() and page.status.styleSheet()
    assert page.table.rowCount() == len(page._states)

    gguf = tmp_path / "Home-Made.gguf"
    gguf.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + bytes(64))
    page.add_model_file(str(gguf))
    assert "added as 'home-made'" in page.status.text()
    assert page.selected_name() == "home-made" and page.selected() is None
    row = page.table.rowCount() - 1
    assert cell(page, row, 0).text() == "home-made" and cell(page, row, 4).text() == "Added"
    assert str(gguf) in page.why.text() and not page.download.isEnabled() and page.use.isEnabled()
    assert not list(models_folder(ctx.paths.data).glob("*.gguf"))  # used where it is: nothing copied

    page.use.click()
    assert cell(page, row, 4).text() == "In use" and not page.use.isEnabled()
    saved = AppContext.open(str(profile_dir), secrets=secret_store).settings
    [local] = [p for p in saved.providers if p.kind is ProviderKind.LOCAL]
    assert (local.model, local.model_file) == ("home-made", str(gguf))

    page.delete.click()
    assert page.table.rowCount() == len(page._states) and gguf.is_file()
    assert "its file stays" in page.status.text() and row_status(page, "smollm2") == "In use"
