"""The form that edits one step of a research draft (``StepEditor``): the agent that does it, its
task, its site and the kinds of action it may take. It only says what the user changed
(``edited``); the research panel applies the change to the plan (``ResearchPlan.update_step``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLineEdit, QWidget

from jawad_desktop.core.harbor.policy import PermissionLevel
from jawad_desktop.core.research.plan import AGENTS, ResearchStep


class StepEditor(QWidget):
    """Agent, task, site and permissions of the step shown; ``edited(change)`` names the fields
    the user changed (``agent``, ``task``, ``site`` or ``permissions``) with their new values."""

    edited = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loading = False
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.agent = QComboBox(self)
        self.agent.setObjectName("researchAgent")
        self.agent.setAccessibleName("Step agent")
        for name, (what, _how) in AGENTS.items():
            self.agent.addItem(name)
            self.agent.setItemData(self.agent.count() - 1, what, Qt.ItemDataRole.ToolTipRole)
        self.agent.currentTextChanged.connect(lambda value: self._edited(agent=value))
        self.task = QLineEdit(self)
        self.task.setObjectName("researchTask")
        self.task.setAccessibleName("Step task")
        self.task.editingFinished.connect(lambda: self._edited(task=self.task.text()))
        self.site = QLineEdit(self)
        self.site.setObjectName("researchSite")
        self.site.setAccessibleName("Step site")
        self.site.setPlaceholderText("https://… (optional)")
        self.site.editingFinished.connect(lambda: self._edited(site=self.site.text()))
        levels = QHBoxLayout()
        self.levels: dict[PermissionLevel, QCheckBox] = {}
        for level in PermissionLevel:
            box = QCheckBox(level.value, self)
            box.setObjectName(f"researchLevel-{level.value}")
            if level is PermissionLevel.READ_ONLY:
                box.setChecked(True)
                box.setEnabled(False)  # every step reads
            box.toggled.connect(lambda _checked: self._edited(permissions=self.checked_levels()))
            levels.addWidget(box)
            self.levels[level] = box
        form.addRow("Agent", self.agent)
        form.addRow("Task", self.task)
        form.addRow("Site", self.site)
        form.addRow("May", levels)

    def load(self, step: ResearchStep) -> None:
        """Show ``step``'s values (not a change: ``edited`` stays quiet)."""
        self._loading = True
        try:
            self.agent.setCurrentText(step.agent)
            self.task.setText(step.task)
            self.site.setText(step.site)
            for level, box in self.levels.items():
                box.setChecked(level in step.permissions)
        finally:
            self._loading = False

    def checked_levels(self) -> list[str]:
        """The kinds of action ticked, as the plan names them."""
        return [level.value for level, box in self.levels.items() if box.isChecked()]

    def _edited(self, **change: Any) -> None:
        if not self._loading:
            self.edited.emit(change)
