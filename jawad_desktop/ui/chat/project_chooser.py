"""Projects in the history sidebar (issue 34): the chooser at the top of the list and a
conversation's "Move to project" menu.

The chooser lists "No project", each project (``core.store.projects``) and "New project…"; it
shows the project the assistant works in. Choosing one puts the assistant in it
(``Assistant.set_project``), so new chats start in it, starts a new chat when the open one is
elsewhere, and tells the window (``project_chosen``: "" for no project, else the project's id),
which shows that project's group in the history (the history groups every conversation under
its project: ``HistorySidebar.group_by_project``). A line under it says where new chats go; both
follow the assistant when an opened conversation continues in its own project, or the open
conversation is moved to another. It follows every change to the projects (``ProjectsChanged``,
made here, in Settings → Projects or by ``jawad projects``): a project renamed keeps its place,
one removed falls back to "No project", and the assistant is given the project again so its
edited instructions and model take effect. The core does the work; this only calls it.
The chooser is on screen before the window's assistant is built: until then it works in no
project, and choosing one builds the assistant (``build``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtWidgets import QComboBox, QInputDialog, QLabel, QMenu, QVBoxLayout, QWidget

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.conversations import ConversationStore
from jawad_desktop.core.store.projects import ProjectStore
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.chat.conversation_rows import NO_PROJECT
from jawad_desktop.ui.look.theme import SPACE

if TYPE_CHECKING:
    from jawad_desktop.core.assistant import Assistant
    from jawad_desktop.core.store.projects import Project

log = logging.getLogger("jawad.ui.history")

NEW = "New project…"
_NEW_KEY = "\x00new"  # the "New project…" entry's data (never a project id)


class ProjectChooser(QWidget):
    """The project chooser and the line saying where new chats start."""

    project_chosen = Signal(str)  # "": no project; else a project id

    def __init__(self, projects: ProjectStore, assistant: Callable[[], Assistant | None],
                 build: Callable[[], Assistant | None], events: SignalInstance,
                 conversation_changed: SignalInstance, conversations_changed: SignalInstance,
                 parent: QWidget | None = None) -> None:
        """``assistant``: the window's assistant, None until it is built; ``build``: builds it (None
        when it cannot start). ``events``: the bridge's ``other`` signal (``ProjectsChanged`` comes
        through it); ``conversation_changed`` and ``conversations_changed``: the bridge's signals of
        those names."""
        super().__init__(parent)
        self.projects = projects
        self._assistant = assistant
        self._build = build
        self.combo = QComboBox(self)
        self.combo.setAccessibleName("Project")
        self.combo.setToolTip("The project you work in: new chats start in it")
        self.current = QLabel(self)
        self.current.setAccessibleName("Current project")
        self.current.setWordWrap(True)
        self.current.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(SPACE["xxs"])
        layout.addWidget(self.combo)
        layout.addWidget(self.current)
        self._filling = False
        self.fill()
        self.combo.activated.connect(self._chosen)
        events.connect(self._event)
        conversation_changed.connect(lambda _cid: self.show_current())
        conversations_changed.connect(self._conversation_updated)
        self.show_current()

    def fill(self) -> None:
        """The entries, from the store, showing the assistant's project."""
        self._filling = True
        try:
            self.combo.clear()
            self.combo.addItem(NO_PROJECT, "")
            try:
                projects = self.projects.projects()
            except JawadError as exc:
                self.current.setText(error_text(exc))
                projects = []
            for project in projects:
                self.combo.addItem(project.name, project.id)
            self.combo.addItem(NEW, _NEW_KEY)
        finally:
            self._filling = False
        self._show_project()

    def choose(self, project_id: str | None) -> None:
        """Work in ``project_id`` (None or "": in no project) and show its conversations."""
        index = self.combo.findData(project_id or "")
        if index < 0:
            return
        self.combo.setCurrentIndex(index)
        self._chosen(index)

    def show_current(self) -> None:
        """Show the assistant's project in the chooser, and say that new chats start in it."""
        self._show_project()
        project = self._project()
        self.current.setText(f"New chats start in the project {project.name}." if project is not None
                             else "New chats start in no project.")

    def _chosen(self, index: int) -> None:
        if self._filling:
            return
        data = self.combo.itemData(index)
        if data == _NEW_KEY:
            self._ask_name()
            return
        data = str(data or "")  # a project, or none: work in it, in a new chat unless the open one is in it
        assistant = self._build() if data else self._assistant()  # no project: as an assistant starts
        if assistant is None and data:
            self._show_project()  # it could not start: the notice above the chat says why
            return
        if assistant is not None:
            try:
                assistant.set_project(data or None)
            except JawadError as exc:
                self.current.setText(error_text(exc))
                return
            opened = assistant.conversation_id
            store = assistant.store
            if opened is not None and store is not None and (store.get(opened, include_deleted=True).project_id
                                                             or "") != data:
                assistant.new_chat()
        self.show_current()
        self.project_chosen.emit(data)

    def _ask_name(self) -> QInputDialog:
        """Ask the new project's name (non-modal: qasync breaks under exec()); the chooser
        goes back to what it showed until the project is made."""
        self._show_project()  # until the project is made
        dialog = QInputDialog(self)
        dialog.setWindowTitle("New project")
        dialog.setLabelText("Name of the new project:")
        dialog.setAccessibleName("New project")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(self.add_project)
        dialog.open()
        self.name_dialog = dialog
        return dialog

    def _project(self) -> Project | None:
        """The assistant's project (none before it is built)."""
        assistant = self._assistant()
        return assistant.project if assistant is not None else None

    def _show_project(self) -> None:
        """The chooser on the assistant's project."""
        project = self._project()
        self._filling = True
        self.combo.setCurrentIndex(max(self.combo.findData(project.id if project is not None else ""), 0))
        self._filling = False

    def add_project(self, name: str) -> bool:
        """Make a project called ``name`` and work in it; False (said under the chooser) when
        the name is taken or empty."""
        try:
            project = self.projects.add(name)
        except JawadError as exc:
            self.current.setText(error_text(exc))
            return False
        self.fill()  # ProjectsChanged refills too, later; the new entry is needed now
        self.choose(project.id)
        return True

    def _conversation_updated(self, _kind: str, conversation_id: str) -> None:
        """The open conversation moved to another project: it continues there."""
        assistant = self._assistant()
        store = assistant.store if assistant is not None else None
        if assistant is None or store is None or not conversation_id or conversation_id != assistant.conversation_id:
            return
        try:
            moved_to = store.get(conversation_id, include_deleted=True).project_id
            if moved_to != (assistant.project.id if assistant.project else None):
                assistant.set_project(moved_to)
        except JawadError as exc:
            log.info("the open conversation's project not followed: %s", exc.message)
        self.show_current()

    def _event(self, event: object) -> None:
        if not isinstance(event, ev.ProjectsChanged):
            return
        self.fill()
        assistant = self._assistant()
        project = assistant.project if assistant is not None else None
        if assistant is not None and project is not None:  # edited (its instructions, its model) or removed
            try:
                assistant.set_project(project.id)
            except JawadError:
                assistant.set_project(None)
        self.show_current()


def add_move_menu(menu: QMenu, store: ConversationStore, conversation_id: str) -> QMenu:
    """Add "Move to project ▸" to a conversation's context menu: each project and "No project",
    the one it is in checked."""
    moves = menu.addMenu("Move to project")
    moves.setAccessibleName("Move to project")
    try:
        current = store.get(conversation_id).project_id or ""
        projects = [(p.id, p.name) for p in ProjectStore(store.db).projects()]
    except JawadError as exc:
        log.info("projects not listed: %s", exc.message)
        moves.setEnabled(False)
        return moves
    for project_id, name in [("", NO_PROJECT), *projects]:
        action = moves.addAction(name, functools.partial(store.move_to_project, conversation_id, project_id or None))
        action.setCheckable(True)
        action.setChecked(project_id == current)
    if not projects:
        moves.addAction("(make one in the chooser above or in Settings → Projects)").setEnabled(False)
    return moves
