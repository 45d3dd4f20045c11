"""Settings that explain themselves (issue 32): every page has an icon in the list and a header
saying what it is for; the Voice page's controls are grouped under headings with the rarely
changed ones folded under "More options"; each term ("Tool format", "Documents by meaning",
"Forget what was learned", compute type, beam size...) has plain words where it appears."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.base.bridge import EventBridge
from jawad_desktop.ui.settings.dialog import SettingsDialog
from jawad_desktop.ui.settings.guide import GUIDES, HEADING, SUMMARY


def test_pages_are_grouped_folded_and_explained(profile_dir: Path, qtbot: Any) -> None:
    ctx = AppContext.open(str(profile_dir))
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.add_window_pages(None, EventBridge(ctx.bus, dialog), None)
    dialog.show()
    titles = [dialog.pages.item(row).text() for row in range(dialog.pages.count())]
    assert {"Providers", "Agent", "Voice"} <= set(titles)
    for row, title in enumerate(titles):
        assert not dialog.pages.item(row).icon().isNull(), f"{title} has no icon"
        dialog.pages.setCurrentRow(row)
        holder = dialog.stack.currentWidget().widget()
        summaries = [s for s in holder.findChildren(QLabel, SUMMARY) if s.isVisible()]
        assert [s.text() for s in summaries] == [GUIDES[title].summary], title

    dialog.show_page("Voice")
    voice: Any = dialog.current_page()
    headings = [h.accessibleName() for h in voice.findChildren(QWidget, HEADING)]
    assert headings == ["Microphone", "Understanding your speech", "Listening", "Spoken replies",
                        "Hands-free conversation"]
    folds = dialog.folds["Voice"]
    assert len(folds) == 4
    assert not voice.compute.isVisible() and not voice.beam.isVisible(), "advanced options start folded"
    assert voice.backend.isVisible() and voice.device.isVisible()
    understanding = next(f for f in folds if f.body.isAncestorOf(voice.compute))
    understanding.button.click()
    qtbot.waitUntil(voice.compute.isVisible, timeout=2000)
    assert voice.beam.isVisible()
    for name in ("compute", "beam", "language", "silence", "tts_backend", "echo_cancel"):
        words = dict(GUIDES["Voice"].explain)[name]
        field = getattr(voice, name)
        assert words in field.accessibleDescription(), name
        shown = [label for label in voice.findChildren(QLabel) if words in label.text()]
        assert len(shown) == 1, f"{name}: its plain words are shown once, under it"

    agent: Any = dialog.agent
    assert "“Tools” are what Jawad can do" in agent.tool_format.toolTip()
    assert "How the model asks for tools" in agent.tool_format.toolTip(), "the page's own words stay"
    assert "finds passages that say the same thing" in agent.library_embeddings.accessibleDescription()
    forget: Any = dialog.providers.forget_button
    assert "Forget what was learned" in forget.accessibleDescription()
    assert any("Forget what was learned" in label.text() for label in dialog.providers.findChildren(QLabel)
               if label.wordWrap())
    assert "Harbor is Jawad's guard" in GUIDES["Site permissions"].summary


def test_providers_added_elsewhere_are_listed_when_settings_opens_again(
    profile_dir: Path, scripted_model: Any, qtbot: Any
) -> None:
    """The dialog is kept between openings: a provider added meanwhile (the first start's offer,
    the model picker) was missing from its list."""
    ctx = AppContext.open(str(profile_dir))
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.providers.list.count() == 0
    dialog.close()
    ctx.settings.providers = [scripted_model.provider("Scripted")]
    ctx.settings.active_provider = "Scripted"
    dialog.show()
    assert [dialog.providers.list.item(r).data(256) for r in range(dialog.providers.list.count())] == ["Scripted"]
