"""The chat panel (``ChatPanel``): the message list above, the composer (input, Send/Stop and the
window's other input buttons in one rounded box) below, and the empty state that guides a new
conversation in the list's place. It is what the window's presenter shows, in the user's terms
(add a message, stream an answer, show a tool call's card and its progress, show a saved
conversation). Send turns into Stop while an answer runs; files dropped on it are attached.

Its parts live beside it: the rows (``chat_model``), how a row is painted (``message_painter``),
the list and its actions (``message_list``), the input (``composer``), the empty state
(``empty_state``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from jawad_desktop.ui.chat.attachments_bar import AttachmentBar, files_in
from jawad_desktop.ui.chat.chat_model import ChatItem
from jawad_desktop.ui.chat.composer import ChatInput
from jawad_desktop.ui.chat.empty_state import EmptyState
from jawad_desktop.ui.chat.message_list import ChatView
from jawad_desktop.ui.chat.message_painter import ChatDelegate
from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.icons import icon


class ChatPanel(QWidget):
    """The chat view with its input row. Emits ``send_requested(text)`` and ``stop_requested``."""

    send_requested = Signal(str)
    stop_requested = Signal()
    resources_requested = Signal()  # the MCP resources button: the window offers the servers' resources

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = ChatView(self)
        self.input = ChatInput(self)
        self.send_button = QPushButton("", self)
        self.send_button.setAccessibleName("Send message")
        self.send_button.setToolTip("Send (Enter)")
        self.send_button.setIcon(icon("send", "on-accent"))
        self.send_button.setProperty("primary", True)
        self.stop_button = QPushButton("", self)
        self.stop_button.setAccessibleName("Stop the running answer")
        self.stop_button.setToolTip("Stop (Esc)")
        self.stop_button.setIcon(icon("square"))
        self.stop_button.setEnabled(False)
        self.busy_widgets: list[QWidget] = []  # other controls disabled while an answer runs
        self._answer_id: int | None = None  # the answer being streamed
        self._cards: dict[str, int] = {}  # tool call (action-log entry id) -> its card's item id
        self.stop_button.hide()  # Send turns into Stop while an answer runs
        # Files to send with the message: the attach button, a drop on the panel, a paste.
        self.attachments = AttachmentBar(self)
        self.attach_button = QPushButton("", self)
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setIcon(icon("paperclip"))
        self.attach_button.setToolTip("Attach files (Ctrl+Shift+O): documents, tables, pictures")
        self.attach_button.setAccessibleName("Attach files")
        self.attach_button.clicked.connect(self.attachments.choose_files)
        # Attach an MCP server's resource (a document, a record): shown when MCP servers are set up.
        self.resource_button = QPushButton("", self)
        self.resource_button.setObjectName("resourceButton")
        self.resource_button.setIcon(icon("plus"))
        self.resource_button.setToolTip("Attach a resource from your MCP servers")
        self.resource_button.setAccessibleName("Attach an MCP resource")
        self.resource_button.clicked.connect(self.resources_requested)
        self.resource_button.hide()
        self.setAcceptDrops(True)
        self.send_button.setObjectName("sendButton")
        self.stop_button.setObjectName("stopButton")
        self.composer = self._make_composer()
        # What an empty conversation shows in place of the messages (see EmptyState).
        self.empty_state = EmptyState(self)
        self._stack = QStackedWidget(self)
        self._stack.addWidget(self.view)
        self._stack.addWidget(self.empty_state)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._stack, 1)
        # The composer as wide as the reading column, centred under it (margins set on resize), in
        # a row whose minimum width does not count (Ignored): the margins follow the width, and
        # counted, a wide chat's minimum was its width (a browser folded away or in its own window
        # could not get its width back).
        row = QWidget(self)
        policy = row.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        row.setSizePolicy(policy)
        self._composer_row = QHBoxLayout(row)
        self._composer_row.setContentsMargins(0, 0, 0, 0)
        self._composer_row.addWidget(self.composer)
        layout.addWidget(row, 0)
        model = self.view.chat_model
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            signal.connect(self._show_empty_state_if_empty)
        self.empty_state.prompt_chosen.connect(self.edit_text)
        self._show_empty_state_if_empty()
        self.input.submitted.connect(self._submit)
        self.input.files_given.connect(self.attachments.add)
        self.send_button.clicked.connect(self._submit)
        self.stop_button.clicked.connect(self.stop_requested)

    def _make_composer(self) -> QFrame:
        """The composer: the input with its files above and its buttons under it, in one rounded box."""
        composer = QFrame(self)
        composer.setObjectName("composer")
        composer.setProperty("card", True)
        composer.setFrameShape(QFrame.Shape.StyledPanel)
        composer.setStyleSheet("#composerInput { border: none; background: transparent; }")
        self.input.setParent(composer)
        self._buttons = QHBoxLayout()
        self._buttons.setContentsMargins(0, 0, 0, 0)
        self._buttons.addWidget(self.attach_button)
        self._buttons.addWidget(self.resource_button)
        self._buttons.addStretch(1)
        self._buttons.addWidget(self.send_button)
        self._buttons.addWidget(self.stop_button)
        box = QVBoxLayout(composer)
        space = theme.SPACE
        box.setContentsMargins(space["sm"], space["xs"], space["xs"], space["xs"])
        box.setSpacing(space["xs"])
        box.addWidget(self.attachments)
        box.addWidget(self.input)
        box.addLayout(self._buttons)
        return composer

    def insert_above_input(self, widget: QWidget) -> None:
        """Put a panel (e.g. a permission question) between the messages and the input. It takes
        the column's width whatever its contents would like (Ignored): a panel that opens or
        closes never widens the chat column, so the splitter and the page do not move."""
        policy = widget.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        widget.setSizePolicy(policy)
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, widget)

    def add_input_button(self, widget: QWidget) -> None:
        """Put another control (e.g. the microphone) in the composer, before Send."""
        widget.setParent(self.composer)
        self._buttons.insertWidget(self._buttons.indexOf(self.send_button), widget)

    def resizeEvent(self, event: QResizeEvent) -> None:
        side = max(0, (self.width() - theme.READING_WIDTH - 2 * ChatDelegate.MARGIN) // 2)
        self._composer_row.setContentsMargins(side, 0, side, 0)
        super().resizeEvent(event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if files_in(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        files = files_in(event.mimeData())
        if files:
            self.attachments.add(files)
            event.acceptProposedAction()
            self.input.setFocus()
        else:
            super().dropEvent(event)

    def take_attachments(self) -> list[Path]:
        """Empty the composer's files and return them (called once a send was accepted)."""
        return self.attachments.take()

    def restore_message(self, text: str, files: list[Path]) -> None:
        """Put a message that was not sent back in the composer, with its files."""
        if not self.input.toPlainText().strip():
            self.input.setPlainText(text)
        self.attachments.add(files)
        self.input.setFocus()

    def is_empty(self) -> bool:
        """No message in this conversation (the empty state shows)."""
        return not self.view.chat_model.items()

    def _show_empty_state_if_empty(self, *args: Any) -> None:
        self._stack.setCurrentWidget(self.empty_state if self.is_empty() else self.view)

    def _submit(self) -> None:
        text = self.input.toPlainText().strip()
        if not text or not self.send_button.isEnabled():
            return
        self.send_requested.emit(text)

    def set_busy(self, busy: bool) -> None:
        """While an answer runs, Send gives its place to Stop (and back when it ends)."""
        had_focus = self.send_button.hasFocus() or self.stop_button.hasFocus()
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        if had_focus:
            (self.stop_button if busy else self.send_button).setFocus()
        for widget in self.busy_widgets:
            widget.setEnabled(not busy)

    def take_input(self) -> str:
        """Clear the input and return what it held (called once a send was accepted)."""
        text = self.input.toPlainText()
        self.input.clear()
        return text

    # The panel's API: what the window's presenter shows, in the user's terms.
    def add_message(self, role: str, text: str, *, streaming: bool = False) -> int:
        """Add a message at the end; returns its item id."""
        return self.view.chat_model.append(ChatItem(role=role, text=text, streaming=streaming))

    def remove_message(self, item_id: int) -> None:
        """Take a message off the chat (a notice that no longer applies)."""
        self.view.chat_model.remove(item_id)

    def stream_answer(self, text: str) -> None:
        """Add streamed text to the answer being written (started on the first piece)."""
        model = self.view.chat_model
        if self._answer_id is None:
            self._answer_id = self.add_message("assistant", "", streaming=True)
        model.append_text(self._answer_id, text)

    def end_answer(self, text: str, *, error: bool = False, stopped: bool = False, usage: str = "") -> None:
        """The answer is complete: its final text replaces what streamed (or it is added), with
        its ``usage`` line under it ("" for none)."""
        role = "error" if error else "assistant"
        if stopped:
            text = (text + "\n\n*(stopped)*").strip()
        if self._answer_id is None:
            self.view.chat_model.append(ChatItem(role=role, text=text, usage=usage))
        else:
            self.view.chat_model.update(self._answer_id, text=text, role=role, streaming=False, usage=usage)
        self._answer_id = None

    def show_tool_call(self, call_id: str, name: str, arguments: dict[str, Any], result: str, status: str,
                       tool_call_id: str = "") -> None:
        """A tool call's card: added the first time ``call_id`` is seen, updated after.
        ``tool_call_id``: the model's id of the call, which its progress names (``show_progress``)."""
        model = self.view.chat_model
        status = status if status in ("success", "error", "denied") else "pending"
        card = self._cards.get(call_id)
        if card is None:
            card = self._cards[call_id] = model.append(ChatItem(role="tool", tool_name=name, tool_args=dict(arguments),
                                                                tool_result=result, tool_status=status))
        else:
            model.update(card, tool_result=result, tool_status=status)
        if tool_call_id:
            self._cards[f"call:{tool_call_id}"] = card

    def show_progress(self, tool_call_id: str, done: float, total: float, message: str) -> None:
        """A running tool's progress on its card: "3 of 5 (60%) · the server's words"."""
        card = self._cards.get(f"call:{tool_call_id}")
        if card is None:
            return
        amount = f"{done:g} of {total:g} ({done / total:.0%})" if total > 0 else f"{done:g} done"
        self.view.chat_model.update(card, progress=" · ".join(part for part in (amount, message) if part))

    def show_conversation(self, items: list[ChatItem]) -> None:
        """Show a saved conversation in place of what is shown."""
        self.clear_messages()
        self.view.chat_model.extend(items)

    def clear_messages(self) -> None:
        """An empty chat (a new conversation)."""
        self._cards.clear()
        self._answer_id = None
        self.view.chat_model.clear()

    def retract_last_turn(self) -> None:
        """Remove the last user message and everything after it (regenerate, edit and resend)."""
        model = self.view.chat_model
        items = model.items()
        last = next((i for i in range(len(items) - 1, -1, -1) if items[i].role == "user"), None)
        if last is None:
            return
        for item in items[last:]:
            model.remove(item.id)
        self._answer_id = None

    def edit_text(self, text: str) -> None:
        """Put ``text`` in the input to be edited, and focus it."""
        self.input.setPlainText(text)
        self.input.setFocus()
