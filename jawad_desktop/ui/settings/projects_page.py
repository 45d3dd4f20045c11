"""Settings → Projects: conversations, files, instructions and a model grouped per piece of work
(``core.store.projects``).

The list shows each project with how many conversations it holds. Choosing one fills the form:
its name, the instructions the model gets in each of its chats, its folders (its own files: a
chat in the project searches only them), and the saved provider and model its chats use
(empty: the ones in use). Save writes the form (a new project when none is chosen); Export…
writes the project, its remembered facts and its conversations to one JSON file (keys
redacted); Remove… asks, in plain words, whether its conversations stay (out of any project) or
go with it. The list follows every change, made here, in the history's chooser or by ``jawad
projects`` (``ProjectsChanged``, ``ConversationsChanged``). The store does the work.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Literal

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core import events as ev
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.store.projects import Project, ProjectStore
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.look.controls import (
    add_rows,
    button,
    combo,
    field_row,
    fill_list,
    help_line,
    line_edit,
    row_of,
    section_heading,
    set_status,
    status_line,
)

log = logging.getLogger("jawad.ui.settings")

# The page's heading says what a project is (ui/settings/guide.py); this line adds how to use one.
HELP = "Its chats also use its model. Choose the project above the history to start chats in it."
IN_USE = "The one in use"


def _count(n: int) -> str:
    return f"{n} conversation{'s' if n != 1 else ''}"


class ProjectsPage(QWidget):
    """Settings → Projects."""

    def __init__(self, ctx: AppContext, projects: ProjectStore, events: SignalInstance,
                 conversations_changed: SignalInstance, parent: QWidget | None = None) -> None:
        """``events``: the bridge's ``other`` signal (``ProjectsChanged``); ``conversations_changed``:
        the bridge's signal of that name (a conversation moved changes the counts)."""
        super().__init__(parent)
        self.ctx = ctx
        self.projects = projects
        self.list = QListWidget(self)
        self.list.setAccessibleName("Projects")
        self.list.setWordWrap(True)
        self.new_button = button("Ne&w project", "New project", self, tooltip="Clear the form to make a new project")
        self.export_button = button("&Export…", "Export the selected project", self,
                                    tooltip="Write the project, its facts and its conversations to a JSON file")
        self.remove_button = button("Re&move…", "Remove the selected project", self)
        self._build_form()
        self._build_confirm()
        layout = QVBoxLayout(self)
        layout.addWidget(help_line(HELP, self, describes=self.list))
        layout.addWidget(self.list, 1)
        layout.addLayout(row_of(self.new_button, self.export_button, self.remove_button))
        layout.addWidget(self.confirm)
        self.form_title = section_heading("New project", self)
        layout.addWidget(self.form_title)
        layout.addLayout(self._form)
        layout.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        self._connect()
        events.connect(self._event)
        conversations_changed.connect(lambda _kind, _cid: self.refresh())
        self.refresh()
        self._selected()

    def _build_form(self) -> None:
        self.name = line_edit("Project name", self, hint="e.g. Kitchen")
        self.instructions = QPlainTextEdit(self)
        self.instructions.setAccessibleName("Project instructions")
        self.instructions.setPlaceholderText("e.g. The budget is 8,000 EUR. Answer in metres.")
        self.instructions.setTabChangesFocus(True)
        self.instructions.setFixedHeight(90)
        self.folders = QListWidget(self)
        self.folders.setAccessibleName("Project folders")
        self.folders.setFixedHeight(70)
        self.add_folder_button = button("Add &folder…", "Add a folder to the project", self)
        self.remove_folder_button = button("Remove folder", "Remove the selected folder from the project", self)
        self.provider = combo("Project provider", self)
        self.model = line_edit("Project model", self, hint="empty: the provider's model")
        self.save_button = button("&Save", "Save the project", self)
        self.status = status_line("Projects status", self)
        folder_buttons = QVBoxLayout()
        folder_buttons.addWidget(self.add_folder_button)
        folder_buttons.addWidget(self.remove_folder_button)
        folder_buttons.addStretch(1)
        folder_row = field_row(self.folders)
        folder_row.addLayout(folder_buttons)
        self._form = QFormLayout()
        add_rows(self._form, (("&Name:", self.name), ("&Instructions:", self.instructions), ("Folders:", folder_row),
                              ("&Provider:", self.provider), ("M&odel:", self.model)))

    def _build_confirm(self) -> None:
        """Remove… asks here, in the page, what becomes of the conversations."""
        self.confirm = QWidget(self)
        self.confirm.setAccessibleName("Remove the project?")
        self.confirm_text = QLabel(self.confirm)
        self.confirm_text.setWordWrap(True)
        self.confirm_text.setTextFormat(Qt.TextFormat.PlainText)
        self.keep_button = button("Remove, &keep its conversations", "Remove the project and keep its conversations",
                                  self.confirm)
        self.delete_button = button("Remove and &delete its conversations",
                                    "Remove the project and delete its conversations", self.confirm)
        self.cancel_button = button("&Cancel", "Do not remove the project", self.confirm)
        confirm_layout = QVBoxLayout(self.confirm)
        confirm_layout.setContentsMargins(0, 0, 0, 0)
        confirm_layout.addWidget(self.confirm_text)
        confirm_layout.addLayout(row_of(self.keep_button, self.delete_button, self.cancel_button))
        self.confirm.hide()

    def _connect(self) -> None:
        self.list.itemSelectionChanged.connect(self._selected)
        self.new_button.clicked.connect(self.list.clearSelection)
        self.save_button.clicked.connect(self.save)
        self.export_button.clicked.connect(self.choose_export_file)
        self.remove_button.clicked.connect(self.ask_remove)
        self.keep_button.clicked.connect(lambda: self.remove("keep"))
        self.delete_button.clicked.connect(lambda: self.remove("delete"))
        self.cancel_button.clicked.connect(self.confirm.hide)
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.remove_folder_button.clicked.connect(lambda: [self.folders.takeItem(self.folders.row(i))
                                                           for i in self.folders.selectedItems()])

    # -- the list ----------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Fill the list from the store, keeping the selection."""
        chosen = self.selected_id()
        self.list.blockSignals(True)
        try:
            try:
                projects = self.projects.projects()
            except JawadError as exc:
                set_status(self.status, error_text(exc), error=True)
                projects = []
            fill_list(self.list, ((self._line(p), p.id) for p in projects), chosen=chosen,
                      empty="No projects yet: make one below.")
        finally:
            self.list.blockSignals(False)
        if self.selected_id() != chosen:
            self._selected()
        else:
            self._enable()

    def _line(self, project: Project) -> str:
        parts = [_count(len(self.projects.conversation_ids(project.id)))]
        if project.folders:
            parts.append(f"{len(project.folders)} folder{'s' if len(project.folders) != 1 else ''}")
        if project.provider or project.model:
            parts.append(" ".join(p for p in (project.provider, project.model) if p))
        return f"{project.name}\n{' · '.join(parts)}"

    def selected_id(self) -> str | None:
        items = self.list.selectedItems()
        value = items[0].data(Qt.ItemDataRole.UserRole) if items else None
        return str(value) if value else None

    def _enable(self) -> None:
        chosen = self.selected_id() is not None
        self.export_button.setEnabled(chosen)
        self.remove_button.setEnabled(chosen)

    def _selected(self) -> None:
        """Show the chosen project in the form (an empty form: a new project)."""
        self.confirm.hide()
        self._enable()
        project_id = self.selected_id()
        project = None
        if project_id is not None:
            try:
                project = self.projects.get(project_id)
            except JawadError as exc:
                set_status(self.status, error_text(exc), error=True)
        self.form_title.setText("Project" if project else "New project")
        self.save_button.setText("&Save" if project else "&Add project")
        self.name.setText(project.name if project else "")
        self.instructions.setPlainText(project.instructions if project else "")
        self.folders.clear()
        self.folders.addItems(list(project.folders) if project else [])
        self._fill_providers(project.provider if project else "")
        self.model.setText(project.model if project else "")

    def _fill_providers(self, chosen: str) -> None:
        self.provider.clear()
        self.provider.addItem(IN_USE, "")
        for saved in self.ctx.settings.providers:
            self.provider.addItem(saved.name, saved.name)
        if chosen and self.provider.findData(chosen) < 0:  # a provider since removed: still shown
            self.provider.addItem(f"{chosen} (not saved any more)", chosen)
        self.provider.setCurrentIndex(max(self.provider.findData(chosen), 0))

    # -- actions -----------------------------------------------------------------------------------

    def save(self) -> None:
        """Add the project in the form, or save the chosen one's changes."""
        folders = [self.folders.item(r).text() for r in range(self.folders.count())]
        instructions, model = self.instructions.toPlainText(), self.model.text()
        provider = str(self.provider.currentData() or "")
        project_id = self.selected_id()
        try:
            if project_id is None:
                project = self.projects.add(self.name.text(), instructions=instructions, provider=provider,
                                            model=model, folders=folders)
            else:
                project = self.projects.update(project_id, name=self.name.text(), instructions=instructions,
                                               provider=provider, model=model, folders=folders)
        except JawadError as exc:
            set_status(self.status, error_text(exc), error=True)
            return
        self.select(project.id)
        set_status(self.status, f"{'Added' if project_id is None else 'Saved'} the project {project.name}.")

    def select(self, project_id: str) -> None:
        """Choose ``project_id`` in the list (filled again first: a new one is listed)."""
        self.refresh()
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == project_id:
                self.list.setCurrentRow(row)
                return

    def add_folder(self, path: str) -> None:
        if path and not self.folders.findItems(path, Qt.MatchFlag.MatchExactly):
            self.folders.addItem(path)

    def choose_folder(self) -> QFileDialog:
        """Ask for a folder (non-modal: qasync breaks under exec())."""
        dialog = QFileDialog(self, "Add a folder to the project")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.add_folder)
        dialog.open()
        return dialog

    def choose_export_file(self) -> QFileDialog | None:
        """Ask where to write the export (non-modal)."""
        project_id = self.selected_id()
        if project_id is None:
            return None
        name = self.projects.get(project_id).name
        safe = re.sub(r"[^\w -]+", " ", name).strip() or "project"
        dialog = QFileDialog(self, "Export project", f"{' '.join(safe.split())}.json", "JSON (*.json)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix("json")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self.export_to(project_id, path))
        dialog.open()
        return dialog

    def export_to(self, project_id: str, path: str) -> bool:
        try:
            written = self.projects.export(project_id, Path(path))
        except (JawadError, OSError) as exc:
            text = error_text(exc) if isinstance(exc, JawadError) else f"The export could not be written: {exc}."
            set_status(self.status, text, error=True)
            return False
        set_status(self.status, f"Exported to {written} (API keys and tokens redacted).")
        return True

    def ask_remove(self) -> None:
        """Say what removing the chosen project does, and offer both ways."""
        project_id = self.selected_id()
        if project_id is None:
            return
        project = self.projects.get(project_id)
        count = len(self.projects.conversation_ids(project_id))
        held = (f"It holds {_count(count)}: keep them (they stay in the history, in no project) or delete "
                "them too." if count else "It holds no conversations.")
        self.confirm_text.setText(f"Remove the project {project.name}? {held} "
                                  "What was remembered in it is forgotten; its folders' files stay where they are.")
        self.keep_button.setText("Remove, &keep its conversations" if count else "&Remove")
        self.delete_button.setVisible(bool(count))
        self.confirm.show()
        self.cancel_button.setFocus()

    def remove(self, conversations: Literal["keep", "delete"]) -> None:
        project_id = self.selected_id()
        self.confirm.hide()
        if project_id is None:
            return
        try:
            name = self.projects.get(project_id).name
            count = self.projects.remove(project_id, conversations=conversations)
        except JawadError as exc:
            set_status(self.status, error_text(exc), error=True)
            return
        self.list.clearSelection()
        said = "" if not count else (f" Its {_count(count)}: "
                                     f"{'deleted' if conversations == 'delete' else 'kept, in no project'}.")
        set_status(self.status, f"Removed the project {name}.{said}")

    def _event(self, event: object) -> None:
        if isinstance(event, ev.ProjectsChanged):
            self.refresh()
