"""The model picker above the chat: the provider and model in use, and a searchable list of the
saved ones with what each can do (``core.llm.model_card``); choosing one makes it the active
provider for the next message. "Manage providers…" opens Settings → Providers.

The picker only shows and asks: the window saves the choice (``chosen(name)``) and refreshes
the picker after any change of providers (``refresh``).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core.context import AppContext
from jawad_desktop.core.llm.model_card import model_card
from jawad_desktop.ui.look.icons import icon
from jawad_desktop.ui.look.theme import SPACE

NO_PROVIDER = "No provider — Settings → Providers (Ctrl+,)"


class _Popup(QFrame):
    """The list that drops down from the picker: a search box over the saved providers."""

    chosen = Signal(str)
    manage_requested = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Choose the provider and model")
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search providers and models")
        self.search.setAccessibleName("Search providers and models")
        self.search.setClearButtonEnabled(True)
        self.list = QListWidget(self)
        self.list.setAccessibleName("Saved providers and their models")
        self.list.setWordWrap(True)
        self.empty = QLabel("No saved provider matches.", self)
        self.empty.hide()
        self.manage = QPushButton("Manage providers…", self)
        self.manage.setAccessibleName("Manage providers in Settings")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(*[SPACE["xs"]] * 4)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.manage)
        self.search.textChanged.connect(self._filter)
        self.search.installEventFilter(self)
        self.list.itemActivated.connect(self._choose)
        self.list.itemClicked.connect(self._choose)
        self.manage.clicked.connect(self._manage)

    def fill(self, ctx: AppContext) -> None:
        self.list.clear()
        active = ctx.settings.active()
        for provider in ctx.settings.providers:
            card = model_card(provider, ctx.model_facts)
            item = QListWidgetItem(f"{card.title}\n{card.details}")
            item.setData(Qt.ItemDataRole.UserRole, provider.name)
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{card.title}: {card.details}")
            if active is not None and provider.name == active.name:
                item.setIcon(icon("check"))
                self.list.addItem(item)
                self.list.setCurrentItem(item)
            else:
                self.list.addItem(item)
        self.search.clear()
        self._filter("")

    def _filter(self, text: str) -> None:
        words = text.casefold().split()
        shown = 0
        for row in range(self.list.count()):
            item = self.list.item(row)
            hidden = not all(w in item.text().casefold() for w in words)
            item.setHidden(hidden)
            shown += not hidden
        self.empty.setVisible(shown == 0)
        current = self.list.currentItem()
        if current is None or current.isHidden():
            shown_rows = [r for r in range(self.list.count()) if not self.list.item(r).isHidden()]
            self.list.setCurrentRow(shown_rows[0] if shown_rows else -1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Up, Down and Enter in the search box move in and choose from the list.
        if watched is self.search and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down):
                row = self.list.currentRow()
                rows = [r for r in range(self.list.count()) if not self.list.item(r).isHidden()]
                if rows:
                    at = rows.index(row) if row in rows else -1
                    step = 1 if event.key() == Qt.Key.Key_Down else -1
                    self.list.setCurrentRow(rows[max(0, min(len(rows) - 1, at + step))])
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                item = self.list.currentItem()
                if item is not None and not item.isHidden():
                    self._choose(item)
                return True
        return super().eventFilter(watched, event)

    def _choose(self, item: QListWidgetItem) -> None:
        self.hide()
        self.chosen.emit(str(item.data(Qt.ItemDataRole.UserRole)))

    def _manage(self) -> None:
        self.hide()
        self.manage_requested.emit()


class ModelPicker(QToolButton):
    """The provider and model in use, on a button that opens the list of saved ones."""

    chosen = Signal(str)  # a saved provider's name
    manage_requested = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setAccessibleName("Active provider and model")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setIcon(icon("chevron-down"))
        self.setLayoutDirection(Qt.LayoutDirection.RightToLeft)  # the arrow after the words
        self.setAutoRaise(True)
        self.popup = _Popup(self)
        self.popup.chosen.connect(self.chosen)
        self.popup.manage_requested.connect(self.manage_requested)
        self.clicked.connect(self.open_list)
        self.refresh()

    def refresh(self) -> None:
        """Show the active provider and model (after any change of providers)."""
        provider = self.ctx.settings.active()
        if provider is None:
            self.setText(NO_PROVIDER)
            self.setToolTip("Add a provider in Settings → Providers")
            return
        card = model_card(provider, self.ctx.model_facts)
        self.setText(card.title)
        self.setToolTip(f"{card.details}\nChoose another provider or model (Ctrl+Shift+K)")

    def open_list(self) -> None:
        """Drop the list down under the button, the search box focused."""
        if not self.ctx.settings.providers:
            self.manage_requested.emit()
            return
        self.popup.fill(self.ctx)
        self.popup.resize(max(self.width(), 360), min(420, 90 + 48 * len(self.ctx.settings.providers)))
        self.popup.move(self.mapToGlobal(QPoint(0, self.height())))
        self.popup.show()
        self.popup.search.setFocus()
