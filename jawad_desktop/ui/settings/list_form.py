"""The list-and-form settings page: named entries on the left, the selected one's form on the right.

Owns the shape the Providers and MCP servers pages share, and the behaviour that does not depend
on what an entry is: the list (filled again after each change, the edited entry selected again),
Add (the form cleared, with a name no entry has) and Remove, Save with its validation message on
the status line, a Test button whose work runs in the background (``ui.base.background``) with the
button disabled and its result or failure on the status line, and ``changed`` after every change
that was saved.

A page subclasses ``ListFormPage`` and says what an entry is: ``entries`` (the rows of the
list), ``entry_named``, ``fill_form``, ``clear_form``, ``store``, ``delete`` and ``run_test``. It
adds its own fields to ``form`` (below the Name row) and its own controls to ``left`` or
``right``, then calls ``refresh()``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QFormLayout,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.events import EventBus
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.look.controls import button, failure_text, line_edit, set_status, status_line

log = logging.getLogger("jawad.ui.settings")

T = TypeVar("T")


class Named(Protocol):
    """An entry's configuration: anything with a name."""

    @property
    def name(self) -> str: ...


C = TypeVar("C", bound=Named)


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of the list: the entry's name, and what the row shows."""

    name: str
    label: str
    tooltip: str = ""


@dataclass(frozen=True, slots=True)
class PageWords:
    """What a page calls its entries and controls, on screen and for screen readers."""

    noun: str  # "provider", in "Another provider is already named 'x'"
    new_name: str  # the name offered for a new entry ("OpenAI", then "OpenAI 2"...)
    list_name: str  # accessible names, in the order the controls appear
    add_name: str
    remove_name: str
    name_field: str
    test_text: str  # the Test button's text
    test_name: str
    save_text: str  # the Save button's text
    save_name: str
    status_name: str


class ListFormPage(QWidget, Generic[C]):
    """Entries of type ``C`` in a list, the selected one in a form. See the module docstring."""

    changed = Signal()  # an entry was saved or removed (the settings file is written)

    def __init__(self, words: PageWords, bus: EventBus | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = words
        self.bus = bus
        self.editing: str | None = None  # the name of the entry in the form; None: a new entry

        self.list = QListWidget(self)
        self.list.setAccessibleName(words.list_name)
        self.add_button = button("Add", words.add_name, self)
        self.remove_button = button("Remove", words.remove_name, self)
        self.name = line_edit(words.name_field, self)
        self.test_button = button(words.test_text, words.test_name, self)
        self.save_button = button(words.save_text, words.save_name, self)
        self.status = status_line(words.status_name, self)

        self.left = QVBoxLayout()
        self.left.addWidget(self.list, 1)
        add_remove = QHBoxLayout()
        add_remove.addWidget(self.add_button)
        add_remove.addWidget(self.remove_button)
        self.left.addLayout(add_remove)
        self.form = QFormLayout()
        self.form.addRow("&Name", self.name)
        actions = QHBoxLayout()
        actions.addWidget(self.test_button)
        actions.addStretch(1)
        actions.addWidget(self.save_button)
        self.right = QVBoxLayout()
        self.right.addLayout(self.form)
        self.right.addLayout(actions)
        self.right.addWidget(self.status)
        layout = QHBoxLayout(self)
        layout.addLayout(self.left, 1)
        layout.addLayout(self.right, 2)

        self.list.currentItemChanged.connect(self._selected)
        self.add_button.clicked.connect(self.new_entry)
        self.remove_button.clicked.connect(self.remove_selected)
        self.save_button.clicked.connect(self.save)
        self.test_button.clicked.connect(self.run_test)

    # -- what the page says about its entries ------------------------------------------------
    # Each page defines these (the Qt metaclass rules out an abstract base class; mypy holds
    # every page to these signatures):
    #   entries()            the rows of the list, in order
    #   entry_named(name)    the saved entry called ``name`` (case-insensitive), if any
    #   fill_form(entry)     show ``entry`` in the page's own fields (Name is filled already)
    #   clear_form()         reset the page's own fields for a new entry (Name holds a free name)
    #   store()              validate and save the form: (saved name, what to tell the user);
    #                        ValueError for an invalid form, JawadError when saving failed
    #   delete(name)         remove ``name`` and what it keeps in the keyring: what to tell the
    #                        user; JawadError when nothing could be removed
    #   run_test()           the Test button: start the page's check, usually through run_busy
    entries: Callable[[], list[Entry]]
    entry_named: Callable[[str], C | None]
    fill_form: Callable[[C], None]
    clear_form: Callable[[], None]
    store: Callable[[], tuple[str, str]]
    delete: Callable[[str], str]
    run_test: Callable[[], None]

    # -- the list ----------------------------------------------------------------------------
    def refresh(self, select: str | None = None) -> None:
        """Fill the list again and select ``select``, else the entry being edited, else the
        first; with no entries at all, start a new one."""
        self.list.blockSignals(True)
        self.list.clear()
        for entry in self.entries():
            item = QListWidgetItem(entry.label)
            item.setData(Qt.ItemDataRole.UserRole, entry.name)
            item.setToolTip(entry.tooltip)
            self.list.addItem(item)
        self.list.blockSignals(False)
        target = select or self.editing
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == target:
                self.list.setCurrentRow(row)  # loads it into the form (_selected)
                return
        if self.list.count():
            self.list.setCurrentRow(0)
        else:
            self.new_entry()

    def selected_name(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def _selected(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is None:
            return
        found = self.entry_named(str(current.data(Qt.ItemDataRole.UserRole)))
        if found is not None:
            self.load(found)

    # -- the form ----------------------------------------------------------------------------
    def load(self, entry: C) -> None:
        """Show ``entry`` in the form; saving then replaces it."""
        self.editing = entry.name
        self.name.setText(entry.name)
        self.fill_form(entry)
        self.show_status("")

    def new_entry(self) -> None:
        """Clear the form for a new entry, named so that no entry has its name yet."""
        self.editing = None
        # No current row either, so that clicking the entry shown before loads it again.
        self.list.setCurrentRow(-1)
        self.list.clearSelection()
        self.name.setText(self.free_name(self.words.new_name))
        self.clear_form()
        # The form shows a new entry's usual values: say it is not saved yet (it looked like one that was).
        self.show_status(f"A new {self.words.noun}, not saved yet: check it, then press "
                         f"“{self.words.save_text.replace('&', '')}”.")
        self.name.setFocus()
        self.name.selectAll()

    def free_name(self, base: str) -> str:
        """``base``, or ``base 2``, ``base 3``... whichever no entry has yet."""
        name, n = base, 2
        while self.entry_named(name) is not None:
            name, n = f"{base} {n}", n + 1
        return name

    def check_name_free(self, name: str) -> None:
        """Raise ``ValueError`` when another entry than the one being edited is called ``name``."""
        clash = self.entry_named(name)
        if clash is not None and (self.editing is None or clash.name.casefold() != self.editing.casefold()):
            raise ValueError(f"Another {self.words.noun} is already named {name!r}")

    def show_status(self, text: str, *, error: bool = False) -> None:
        set_status(self.status, text, error=error)

    # -- saving and removing -----------------------------------------------------------------
    def save(self) -> bool:
        """Validate and save the form; a problem is shown on the status line, nothing is saved."""
        try:
            name, message = self.store()
        except ValueError as exc:
            self.show_status(str(exc), error=True)
            return False
        except JawadError as exc:
            self.show_status(error_text(exc), error=True)
            return False
        self.editing = name
        self.refresh(select=name)
        self.show_status(message)
        self.changed.emit()
        return True

    def remove_selected(self) -> None:
        """Remove the selected entry, with what it keeps in the keyring."""
        name = self.selected_name()
        if name is None:
            return
        try:
            message = self.delete(name)
        except JawadError as exc:
            self.show_status(error_text(exc), error=True)
            return
        self.editing = None
        self.refresh()
        self.show_status(message)
        self.changed.emit()

    # -- background work ---------------------------------------------------------------------
    def run_busy(
        self,
        control: QAbstractButton,
        work: Coroutine[Any, Any, T],
        *,
        what: str,
        busy_text: str,
        on_done: Callable[[T], None],
    ) -> None:
        """Run ``work`` in the background with ``control`` disabled and ``busy_text`` shown, then
        ``on_done(result)``; a failure is shown on the status line (not only in the log).
        ``what`` names the work for the user: "testing the connection"."""
        control.setEnabled(False)
        self.show_status(busy_text)

        def done(result: T) -> None:
            control.setEnabled(True)
            on_done(result)

        def failed(exc: BaseException) -> None:
            control.setEnabled(True)
            if isinstance(exc, JawadError):  # expected (offline, refused): says what to do itself
                log.info("%s failed: %s", what, exc)
            else:
                log.warning("%s failed", what, exc_info=exc)
            self.show_status(failure_text(what, exc), error=True)

        run_async(work, what=what, bus=self.bus, on_done=done, on_error=failed)
