"""Settings → Appearance: the theme (light, dark, follow the system, high contrast), the accent
colour (a few swatches or any colour) and the chat's font size. Each change is saved and
applied to the whole window at once (``changed`` → ``MainWindow.apply_appearance``)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QColorDialog,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QToolButton,
    QWidget,
)

from jawad_desktop.core.context import AppContext
from jawad_desktop.ui.look import theme
from jawad_desktop.ui.look.controls import help_line
from jawad_desktop.ui.look.icons import icon


def _swatch(colour: str, side: int = 18) -> QIcon:
    pixmap = QPixmap(side, side)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor(0, 0, 0, 60))
    painter.setBrush(QColor(colour))
    painter.drawEllipse(1, 1, side - 2, side - 2)
    painter.end()
    return QIcon(pixmap)


class AppearancePage(QWidget):
    """Theme, accent colour and font size."""

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        ui = ctx.settings.ui
        self.theme = QComboBox(self)
        self.theme.setAccessibleName("Theme")
        for value in theme.THEMES:
            self.theme.addItem(theme.THEME_LABELS[value], value)
        self.theme.setCurrentIndex(max(0, self.theme.findData(ui.theme)))

        self.swatches: dict[str, QToolButton] = {}
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        row = QHBoxLayout()
        row.setSpacing(theme.SPACE["xs"])
        for name, colour in theme.ACCENTS.items():
            swatch = QToolButton(self)
            swatch.setCheckable(True)
            swatch.setIcon(_swatch(colour))
            swatch.setIconSize(QSize(18, 18))
            swatch.setAccessibleName(f"{name} accent")
            swatch.setToolTip(f"{name} accent")
            swatch.clicked.connect(lambda _checked=False, c=colour: self.set_accent(c))
            self._group.addButton(swatch)
            self.swatches[colour] = swatch
            row.addWidget(swatch)
        self.custom_accent = QPushButton("&Other colour…", self)
        self.custom_accent.setIcon(icon("palette"))
        self.custom_accent.setAccessibleName("Choose another accent colour")
        self.custom_accent.clicked.connect(self._pick_accent)
        row.addWidget(self.custom_accent)
        row.addStretch(1)
        self.accent_label = QLabel("&Accent colour", self)
        self.accent_label.setBuddy(next(iter(self.swatches.values())))

        self.font_size = QSpinBox(self)
        self.font_size.setAccessibleName("Font size")
        self.font_size.setRange(7, 32)
        self.font_size.setValue(ui.font_size)

        form = QFormLayout(self)
        form.setVerticalSpacing(theme.SPACE["md"])
        form.addRow("&Theme", self.theme)
        form.addRow(help_line("High contrast is white on black with thick borders; Follow the system "
                              "switches between light and dark with the desktop.",
                              self, describes=self.theme))
        form.addRow(self.accent_label, row)
        form.addRow("&Font size", self.font_size)
        self._show_accent(ui.accent)
        self.theme.currentIndexChanged.connect(self._apply)
        self.font_size.valueChanged.connect(self._apply)

    def accent(self) -> str:
        return self.ctx.settings.ui.accent

    def set_accent(self, colour: str) -> None:
        """Use ``colour`` (#rrggbb) as the accent colour: saved and applied at once."""
        self.ctx.settings.ui.accent = QColor(colour).name()
        self._show_accent(self.ctx.settings.ui.accent)
        self._apply()

    def _show_accent(self, colour: str) -> None:
        swatch = self.swatches.get(colour.lower())
        if swatch is not None:
            swatch.setChecked(True)
            return
        self._group.setExclusive(False)  # a custom colour: no swatch is the chosen one
        for each in self.swatches.values():
            each.setChecked(False)
        self._group.setExclusive(True)

    def _pick_accent(self) -> None:
        chosen = QColorDialog.getColor(QColor(self.accent()), self, "Accent colour")
        if chosen.isValid():
            self.set_accent(chosen.name())

    def _apply(self) -> None:
        self.ctx.settings.ui.theme = self.theme.currentData()
        self.ctx.settings.ui.font_size = self.font_size.value()
        self.ctx.save_settings()
        self.changed.emit()
