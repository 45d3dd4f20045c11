"""The history sidebar: saved conversations newest first, search, rename, delete with undo,
grouped under their projects' headers once projects exist.

Owns the list of conversations beside the chat: a search box (full-text over every
message, matches highlighted), a ``QListView`` over ``ConversationListModel``, "New chat",
rename in place (F2, double-click on the selected row, or the context menu), delete (Del or
the context menu) with an Undo bar that stays ``UNDO_MS`` before the deletion becomes final,
and export to Markdown or JSON (context menu; keys and tokens redacted). A row's tooltip says
what the conversation used ("12,345 tokens · about $0.04"), summed by the store when asked.
The rows and their model are in ``conversation_rows``, how a row is painted in
``conversation_delegate``. It talks to ``ConversationStore`` only; it tells the window what the
user chose through ``conversation_selected(id)``, ``match_selected(id, position)`` and
``new_chat_requested()``.
The core's ``ConversationsChanged`` events, given to it as the bridge's
``conversations_changed`` signal, refresh it, so the window never has to. Given the projects
(``group_by_project``), it shows each project's conversations under its name, and those in
none under "No project" (a search's results too, the best match's group first); the core's
``ProjectsChanged`` events (a project added, renamed, removed) refresh the headers. Searches run in the
background through ``ui.base.background``; a failed search says so in the list's place.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, Qt, QTimer, Signal, SignalInstance, Slot
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import ProjectsChanged
from jawad_desktop.core.store.conversations import ConversationMatch, ConversationStore
from jawad_desktop.core.store.export import write_export
from jawad_desktop.core.store.projects import Project, ProjectStore
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.chat.conversation_delegate import ConversationDelegate
from jawad_desktop.ui.chat.conversation_rows import (
    ConversationListModel,
    GroupHeader,
    IdRole,
    PositionRole,
    SidebarRow,
    grouped_rows,
    row_for_match,
    row_for_summary,
)
from jawad_desktop.ui.look.controls import button
from jawad_desktop.ui.look.file_dialogs import make_roomy
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.look.theme import SPACE

log = logging.getLogger("jawad.ui.history")

UNDO_MS = 10_000
STATUS_MS = 8_000  # how long "Exported to ..." stays
_EXPORT_FILTERS = {"md": "Markdown (*.md)", "json": "JSON (*.json)"}
SEARCH_DELAY_MS = 150  # wait for a pause in typing before searching
LIST_LIMIT = 1000
T = TypeVar("T")


class HistorySidebar(QWidget):
    """Saved conversations with search, rename, delete with undo, and "New chat"."""

    conversation_selected = Signal(str)
    match_selected = Signal(str, int)  # a search result: the conversation and the matching message
    new_chat_requested = Signal()
    conversation_deleted = Signal(str)  # soft-deleted: the window may close it if it is open
    listing_changed = Signal()  # the rows were refilled (after a refresh or a search)
    exported = Signal(str)  # the path an export was written to

    def __init__(
        self, store: ConversationStore, conversations_changed: SignalInstance, parent: QWidget | None = None
    ) -> None:
        """``conversations_changed(kind, id)`` is the bridge's signal for the core's
        ``ConversationsChanged`` events (``EventBridge.conversations_changed``)."""
        super().__init__(parent)
        self.store = store
        self.setObjectName("historySidebar")
        self.setAccessibleName("Conversation history")
        self._current_id: str | None = None
        self._pending_delete: str | None = None
        self._deleted_was_open = False  # the pending deletion took the conversation the chat showed
        self._after_refresh_select: str | None = None
        self._generation = 0  # bumped by every refresh: a search result of an older one is stale
        self.projects: ProjectStore | None = None  # given by group_by_project: the rows go under projects
        self._project_list: list[Project] = []  # the projects' names as last announced

        self.new_chat_button = button("New chat", "New chat", self, tooltip="Start a new conversation (Ctrl+N)")
        self.new_chat_button.setIcon(icon("message-square-plus"))
        self.new_chat_button.clicked.connect(self.new_chat_requested)
        self.search_box = QLineEdit(self)
        self.search_box.setPlaceholderText("Search conversations")
        self.search_box.setAccessibleName("Search conversations")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.textChanged.connect(self._on_text_changed)
        self.search_box.returnPressed.connect(self._open_first)
        self.search_box.installEventFilter(self)
        self.model = ConversationListModel(store, self)
        self.list_view = self._make_list()
        self._make_status_lines()
        self._make_undo_bar()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(*[SPACE["xs"]] * 4)
        for widget, stretch in ((self.new_chat_button, 0), (self.search_box, 0), (self.list_view, 1),
                                (self.empty_label, 0), (self.status_label, 0), (self.undo_bar, 0)):
            layout.addWidget(widget, stretch)
        undo = QShortcut(QKeySequence.StandardKey.Undo, self)
        undo.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        undo.activated.connect(self._undo_shortcut)
        self._search_timer = self._single_shot(SEARCH_DELAY_MS, self.refresh)
        self._refresh_timer = self._single_shot(0, self.refresh)
        # A change written on another thread is announced there; Qt queues the signal to this
        # widget's (the GUI) thread. The refresh timer coalesces a burst of changes into one.
        conversations_changed.connect(self._on_conversations_changed)
        self.refresh()

    def _make_list(self) -> QListView:
        """The list of conversations: a click opens, F2 or a double-click renames, a menu."""
        view = QListView(self)
        view.setAccessibleName("Conversations")
        view.setModel(self.model)
        view.setItemDelegate(ConversationDelegate(view))
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # F2 or a double-click renames; a single click only opens (no surprise editor).
        view.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed | QAbstractItemView.EditTrigger.DoubleClicked)
        view.setUniformItemSizes(False)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._show_menu)
        view.clicked.connect(self._open_index)  # Enter is handled in eventFilter
        view.installEventFilter(self)
        return view

    def _make_status_lines(self) -> None:
        """The line in the list's place (no conversations, a failed search) and the passing one."""
        self.empty_label = QLabel("No conversations yet.", self)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAccessibleName("History status")
        self.status_label = QLabel(self)
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName("History status message")
        self.status_label.hide()
        self._status_timer = self._single_shot(STATUS_MS, self.status_label.hide)

    def _make_undo_bar(self) -> None:
        """The bar saying which conversation was deleted, with Undo, shown for ``UNDO_MS``."""
        self.undo_label = QLabel(self)
        # A long title must not widen the sidebar (the whole window shifted): the label takes the
        # width it is given, and the text is cut to it.
        self.undo_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.undo_button = button("Undo", "Undo delete", self, tooltip="Bring the deleted conversation back (Ctrl+Z)")
        self.undo_button.setIcon(icon("undo-2"))
        self.undo_button.clicked.connect(self.undo_delete)
        self.undo_bar = QWidget(self)
        self.undo_bar.setAccessibleName("Deleted conversation")
        undo_layout = QHBoxLayout(self.undo_bar)
        undo_layout.setContentsMargins(SPACE["xs"], SPACE["xxs"], SPACE["xs"], SPACE["xxs"])
        undo_layout.addWidget(self.undo_label, 1)
        undo_layout.addWidget(self.undo_button)
        self.undo_bar.hide()
        self._undo_timer = self._single_shot(UNDO_MS, self._finish_delete)

    def _single_shot(self, ms: int, slot: Callable[[], Any]) -> QTimer:
        """A timer that calls ``slot`` once, ``ms`` after its last start (restarting delays it)."""
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setInterval(ms)
        timer.timeout.connect(slot)
        return timer

    # -- public API for the window ------------------------------------------------------------------

    @property
    def current_id(self) -> str | None:
        return self._current_id

    def set_current(self, conversation_id: str | None) -> None:
        """Mark the conversation the chat shows (selected, scrolled into view). A conversation
        not listed yet (a new chat, announced before the store's refresh) is selected once its
        row arrives, not the row the keyboard was on before."""
        self._current_id = conversation_id
        if conversation_id is None or self.model.row_of(conversation_id) < 0:
            self._after_refresh_select = conversation_id
        self._select_current()

    def focus_search(self) -> None:
        """Put the cursor in the search box (the window binds Ctrl+F or similar)."""
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def focus_list(self) -> None:
        """Put the keyboard on the conversations (the one shown), or on the search box when
        there are none yet."""
        if self.model.rowCount() == 0:
            self.focus_search()
            return
        if not self.list_view.currentIndex().isValid():
            self._move_to(self._first_conversation())
        self.list_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def query(self) -> str:
        return self.search_box.text().strip()

    def add_header(self, widget: QWidget) -> None:
        """Put ``widget`` above the list (the project chooser, ``ui.chat.project_chooser``)."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(0, widget)

    def group_by_project(self, projects: ProjectStore, events: SignalInstance) -> None:
        """Show the conversations under their projects' headers. ``events``: the bridge's
        signal for core events without one of their own (``other``: ``ProjectsChanged``)."""
        self.projects = projects
        events.connect(self._on_event)
        self._load_projects()
        self.refresh()

    def show_project(self, project_id: str | None) -> None:
        """Scroll ``project_id``'s group into view (None or "": the conversations in none)."""
        row = self.model.header_row(project_id or "")
        if row >= 0:
            self.list_view.scrollTo(self.model.index(row), QAbstractItemView.ScrollHint.PositionAtTop)

    def refresh(self) -> None:
        """Reload the rows: the newest conversations, or the results for the search text."""
        self._refresh_timer.stop()
        self._search_timer.stop()
        query = self.query()
        self._generation += 1
        if query:
            generation = self._generation
            run_async(
                self.store.search_conversations_async(query, limit=200),
                what="searching the conversations",
                on_done=lambda matches: self._on_search_done(generation, matches),
                on_error=lambda exc: self._on_search_failed(generation, exc),
            )
            return
        try:
            summaries = self.store.list_conversations(limit=LIST_LIMIT)
        except JawadError as exc:
            self._show_rows([], exc.message)
            return
        rows = self._rows(summaries, lambda s: s.project_id, row_for_summary)
        self._show_rows(rows, "No conversations yet. Start one with New chat.")

    def rename_current(self) -> None:
        """Start editing the selected row's title in place."""
        index = self.list_view.currentIndex()
        if index.isValid():
            self.list_view.edit(index)

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete (softly) and offer Undo for ``UNDO_MS``; an earlier pending delete becomes final."""
        if self._pending_delete and self._pending_delete != conversation_id:
            self._finish_delete()
        try:
            title = self.store.get(conversation_id).display_title
            self.store.delete(conversation_id)
        except JawadError as exc:
            self.empty_label.setText(exc.message)
            return
        self._pending_delete = conversation_id
        self._deleted_was_open = conversation_id == self._current_id
        # Cut with "…" to the room beside Undo (cut bare, it read "Deleted “What is 12").
        room = max(40, self.width() - self.undo_button.sizeHint().width() - 24)
        metrics = self.undo_label.fontMetrics()
        self.undo_label.setText(metrics.elidedText(f"Deleted “{title}”", Qt.TextElideMode.ElideRight, room))
        self.undo_label.setToolTip(f"Deleted “{title}”")
        self.undo_bar.show()
        self._undo_timer.start()
        self.conversation_deleted.emit(conversation_id)
        if conversation_id == self._current_id:
            self._current_id = None

    def undo_delete(self) -> bool:
        """Bring back the conversation deleted last; False when there is none to bring back."""
        cid = self._end_undo_offer()
        if cid is None:
            return False
        restored = self.store.restore(cid)
        if restored:
            self.list_view.setFocus()
            self._after_refresh_select = cid
            if self._deleted_was_open:  # the chat showed it: show it again, not an empty chat
                self._current_id = cid
                self.conversation_selected.emit(cid)
        return restored

    def choose_export_file(self, conversation_id: str, fmt: str) -> QFileDialog:
        """Ask where to save the export (a non-modal dialog: qasync breaks under exec())."""
        try:
            title = self.store.get(conversation_id).display_title
        except JawadError as exc:
            self.show_status(exc.message)
            raise
        safe = "".join(c if c.isalnum() or c in " -_" else " " for c in title).strip() or "conversation"
        dialog = QFileDialog(self, "Export conversation", f"{' '.join(safe.split())[:60]}.{fmt}",
                             _EXPORT_FILTERS[fmt])
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(fmt)
        dialog.setAccessibleName("Export conversation")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self.export_to(conversation_id, fmt, path))
        make_roomy(dialog).open()
        return dialog

    def export_to(self, conversation_id: str, fmt: str, path: str) -> bool:
        """Write the export (API keys and tokens redacted) and say where it went."""
        try:
            written = write_export(self.store, conversation_id, fmt, Path(path))
        except JawadError as exc:
            self.show_status(error_text(exc))
            return False
        self.show_status(f"Exported to {written} (API keys and tokens redacted).")
        self.exported.emit(str(written))
        return True

    def show_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.show()
        self._status_timer.start()

    # -- internals ------------------------------------------------------------------------------------

    def _end_undo_offer(self) -> str | None:
        """Hide the Undo bar; returns the conversation it offered to bring back, if any."""
        cid, self._pending_delete = self._pending_delete, None
        self._undo_timer.stop()
        self.undo_bar.hide()
        return cid

    def _finish_delete(self) -> None:
        cid = self._end_undo_offer()
        if cid is None:
            return
        try:
            self.store.purge_deleted(cid)
        except (JawadError, sqlite3.ProgrammingError) as exc:
            # The store closed (the window is going away): the next start purges old deletions.
            log.info("deletion of %s left for the next start: %s", cid, exc)

    def _undo_shortcut(self) -> None:
        # Ctrl+Z inside the search box or the rename editor undoes typing, not a deletion.
        if self.undo_bar.isVisible() and not isinstance(self.focusWidget(), QLineEdit):
            self.undo_delete()

    def _on_text_changed(self, _text: str) -> None:
        self._search_timer.start()

    @Slot(str, str)
    def _on_conversations_changed(self, _kind: str, _cid: str) -> None:
        self._refresh_timer.start()

    def _on_event(self, event: object) -> None:
        if isinstance(event, ProjectsChanged):  # a project added, renamed or removed: its header
            self._load_projects()
            self._refresh_timer.start()

    def _load_projects(self) -> None:
        if self.projects is None:
            return
        try:
            self._project_list = self.projects.projects()
        except JawadError as exc:  # the list still shows, without its headers
            log.info("projects not shown in the history: %s", exc.message)
            self._project_list = []

    def _rows(self, items: Sequence[T], project_of: Callable[[T], str | None],
              make_row: Callable[[T], SidebarRow]) -> list[SidebarRow | GroupHeader]:
        """``items`` as rows: under their projects' headers once there are projects, else as they are."""
        if not self._project_list:
            return [make_row(item) for item in items]
        return grouped_rows(items, project_of, make_row, self._project_list)

    def _on_search_done(self, generation: int, matches: list[ConversationMatch]) -> None:
        if generation != self._generation:
            return  # the user typed on (or the list changed): a newer search is coming
        rows = self._rows(matches, lambda m: m.conversation.project_id, row_for_match)
        self._show_rows(rows, f"No conversation mentions “{self.query()}”.")

    def _on_search_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._generation:
            return
        # The sidebar must survive a bad query or a locked file, and say what went wrong.
        if not isinstance(exc, JawadError):
            log.error("history search failed", exc_info=exc)
            exc = JawadError(f"Search failed: {exc}.", suggestions=["Try different words."])
        self._show_rows([], error_text(exc))

    def _show_rows(self, rows: list[SidebarRow | GroupHeader], empty_text: str) -> None:
        # Keep the keyboard position across refreshes (a new message re-sorts the list).
        focused = self.list_view.currentIndex()
        keep_id = self._after_refresh_select or (focused.data(IdRole) if focused.isValid() else None)
        self._after_refresh_select = None
        editing = self.list_view.state() == QAbstractItemView.State.EditingState
        if editing:
            return  # do not pull the row out from under the rename editor
        self.model.set_rows(rows)
        self.empty_label.setText(empty_text)
        self.empty_label.setVisible(not rows)
        target = keep_id if keep_id and self.model.row_of(keep_id) >= 0 else self._current_id
        if target is not None and self.model.row_of(target) >= 0:
            self.list_view.setCurrentIndex(self.model.index(self.model.row_of(target)))
        self.listing_changed.emit()

    def _select_current(self) -> None:
        if self._current_id is None:
            # Forget the keyboard position too: a refresh keeps the current row selected.
            self.list_view.selectionModel().clearCurrentIndex()
            self.list_view.clearSelection()
            return
        row = self.model.row_of(self._current_id)
        if row >= 0:
            index = self.model.index(row)
            self.list_view.setCurrentIndex(index)
            self.list_view.scrollTo(index)

    def _first_conversation(self) -> int:
        """The top conversation's row (under its header), or -1 when there is none."""
        rows = self.model.conversation_rows()
        return rows[0] if rows else -1

    def _move_to(self, row: int) -> None:
        if row >= 0:
            self.list_view.setCurrentIndex(self.model.index(row))

    def _open_index(self, index: QModelIndex) -> None:
        if not index.isValid() or index.data(IdRole) is None:  # a project's header
            return
        cid = str(index.data(IdRole))
        self._current_id = cid
        self.conversation_selected.emit(cid)
        position = index.data(PositionRole)
        if self.query() and isinstance(position, int) and position >= 0:
            self.match_selected.emit(cid, position)

    def _open_first(self) -> None:
        if self._search_timer.isActive():
            return  # results for what was just typed are not in yet
        first = self._first_conversation()
        if first >= 0:
            self._move_to(first)
            self._open_index(self.model.index(first))

    def _show_menu(self, pos: QPoint) -> None:
        index = self.list_view.indexAt(pos)
        if not index.isValid() or index.data(IdRole) is None:
            return
        self.list_view.setCurrentIndex(index)
        menu = self._context_menu(index)
        menu.popup(self.list_view.viewport().mapToGlobal(pos))

    def _context_menu(self, index: QModelIndex) -> QMenu:
        cid = str(index.data(IdRole))
        menu = QMenu(self)
        menu.setAccessibleName("Conversation actions")
        menu.addAction("Open", lambda: self._open_index(index))
        rename = menu.addAction(icon("pencil"), "Rename", self.rename_current)
        rename.setShortcut(QKeySequence(Qt.Key.Key_F2))
        menu.addAction(icon("download"), "Export as Markdown…", lambda: self.choose_export_file(cid, "md"))
        menu.addAction("Export as JSON…", lambda: self.choose_export_file(cid, "json"))
        from jawad_desktop.ui.chat.project_chooser import add_move_menu

        add_move_menu(menu, self.store, cid)
        menu.addSeparator()
        delete = menu.addAction(icon("trash-2"), "Delete", lambda: self.delete_conversation(cid))
        delete.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        return menu

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return super().eventFilter(watched, event)
        key = event.key()
        if watched is self.search_box:
            if key == Qt.Key.Key_Down and self._first_conversation() >= 0:
                self.list_view.setFocus(Qt.FocusReason.OtherFocusReason)
                if not self.list_view.currentIndex().isValid():
                    self._move_to(self._first_conversation())
                return True
            if key == Qt.Key.Key_Escape and self.search_box.text():
                self.search_box.clear()
                return True
        elif watched is self.list_view and self.list_view.state() != QAbstractItemView.State.EditingState:
            index = self.list_view.currentIndex()
            if index.isValid() and index.data(IdRole) is None:
                index = QModelIndex()  # a header is never current for long: nothing to act on
            if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and index.isValid():
                self.delete_conversation(str(index.data(IdRole)))
                return True
            if key == Qt.Key.Key_Up and index.isValid() and index.row() == self._first_conversation():
                self.focus_search()  # the headers above it are not stops
                return True
            if key in (Qt.Key.Key_Home, Qt.Key.Key_End) and self._first_conversation() >= 0:
                self._move_to(self.model.conversation_rows()[0 if key == Qt.Key.Key_Home else -1])
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and index.isValid():
                self._open_index(index)
                return True
        return super().eventFilter(watched, event)
