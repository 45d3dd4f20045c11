"""Files in the window (issue 21): the composer's attach button and Ctrl+Shift+O, a drop on the chat,
a paste of files or a picture into the input; the files show as chips with a remove button, go to
the model with the message (a planted phrase comes back from a loopback model) and are named under
the user's message; a file that cannot be sent puts the message and its files back in the composer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDropEvent, QImage
from PySide6.QtWidgets import QToolButton

from tests.files.samples import make_pdf, make_sample, planted
from tests.servers.scripted_model import ScriptedModel, text
from tests.ui.windows import window_with_model


def _files_mime(*paths: Path) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def test_dropped_and_pasted_files_go_with_the_message(make_window: Any, profile_dir: Path, tmp_path: Path,
                                                      scripted_model: ScriptedModel, qtbot: Any) -> None:
    scripted_model.script(text("Noted."))
    window = window_with_model(make_window, profile_dir, scripted_model)
    chat = window.chat
    pdf, notes = make_sample(tmp_path, "pdf"), make_sample(tmp_path, "md")
    assert chat.attach_button.accessibleName() == "Attach files" and not chat.attachments.isVisible()
    # A drop on the chat panel attaches the file; a paste of a file's URL into the input too.
    dropped = _files_mime(pdf)  # kept: the event does not own it
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, dropped, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    chat.dropEvent(drop)
    chat.input.insertFromMimeData(_files_mime(notes, pdf))  # the PDF again: kept once
    assert chat.attachments.files() == [pdf, notes] and chat.input.toPlainText() == ""
    # A pasted picture becomes a PNG file.
    picture = QImage(40, 20, QImage.Format.Format_RGB32)
    picture.fill(QColor("steelblue"))
    pasted = QMimeData()
    pasted.setImageData(picture)
    chat.input.insertFromMimeData(pasted)
    png = chat.attachments.files()[-1]
    assert png.suffix == ".png" and QImage(str(png)).size() == picture.size()
    removes = [b for b in chat.attachments.findChildren(QToolButton) if b.accessibleName().startswith("Remove")]
    assert [b.accessibleName() for b in removes] == [f"Remove the attachment {p.name}" for p in (pdf, notes, png)]
    removes[-1].click()  # the picture goes: the scripted model sees no images
    assert chat.attachments.files() == [pdf, notes]

    chat.input.setPlainText("What codes do these files give?")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=60_000)
    sent = str(scripted_model.requests[0]["messages"][-1]["content"])
    assert planted("pdf") in sent and planted("md") in sent and "What codes do these files give?" in sent
    user = window.chat.view.chat_model.items()[0]
    assert user.role == "user" and user.text.endswith("*Attached: sample.pdf, sample.md*")
    assert chat.attachments.files() == [] and not chat.attachments.isVisible()
    # Opened again from the history, the message still names its files.
    cid = window.presenter.conversation_id
    assert cid is not None
    window.presenter.new_chat()
    window.presenter.open_conversation(cid)
    again = window.chat.view.chat_model.items()[0]
    assert again.role == "user" and again.text == user.text


def test_a_file_that_cannot_be_sent_comes_back_with_the_message(make_window: Any, profile_dir: Path,
                                                                tmp_path: Path, scripted_model: ScriptedModel,
                                                                qtbot: Any) -> None:
    window = window_with_model(make_window, profile_dir, scripted_model)
    chat = window.chat
    locked = make_pdf(tmp_path / "locked.pdf", ["Secret."], password="hunter2")
    window.attach_action.setEnabled(True)
    chat.attachments.add([locked])
    chat.input.setPlainText("Summarize this contract, please")
    qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    qtbot.waitUntil(lambda: not window.presenter.busy, timeout=30_000)
    assert scripted_model.requests == []  # nothing was sent
    assert chat.input.toPlainText() == "Summarize this contract, please"
    assert chat.attachments.files() == [locked]
    error = window.chat.view.chat_model.items()[-1]
    assert error.role == "error" and "locked.pdf" in error.text
    assert window.attach_action.shortcut().toString() == "Ctrl+Shift+O"
