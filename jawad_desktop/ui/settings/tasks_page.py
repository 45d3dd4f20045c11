"""Settings → Tasks: prompts Jawad runs on a schedule (``core.tasks``), and their last runs.

Making a task: what to do, when (in words, said back as a rule with its next time as you type),
and what it may do — the sites it may act on and the kinds of action there (reading is always
allowed). That scope is approved here, once; at run time anything outside it is refused and the
run stops, saying what it would have needed. The list shows each task's rule, next time and last
outcome; Run now, Pause/Resume and Remove act on the selected task, whose last runs show below.
The list follows every change, made here or by ``jawad tasks`` (``TasksChanged``).
"""

from __future__ import annotations

import logging
from datetime import datetime

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QVBoxLayout,
    QWidget,
)

from jawad_desktop.core import events as ev
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.tasks.schedule import parse_schedule
from jawad_desktop.core.tasks.task_store import Task, TaskStore
from jawad_desktop.ui.base.background import run_async
from jawad_desktop.ui.base.remedies import error_text
from jawad_desktop.ui.desktop.task_scheduler import ScheduledTasks
from jawad_desktop.ui.look.controls import (
    button,
    fill_list,
    help_line,
    line_edit,
    section_heading,
    set_status,
    status_line,
)

log = logging.getLogger("jawad.ui.settings")

# The page's heading says what a task is (ui/settings/guide.py); this line adds what a run does.
HELP = "Each run tells you its answer in a notification; the sites and actions it may use are set when you add it."
KIND_LABELS = {"navigate": "&Open pages", "interact": "&Click and type", "submit": "Send &forms",
               "download": "&Download files"}


def _when(ms: int | None) -> str:
    return "never again" if ms is None else datetime.fromtimestamp(ms / 1000).astimezone().strftime("%a %d %b %H:%M")


class TasksPage(QWidget):
    """Settings → Tasks."""

    def __init__(self, tasks: ScheduledTasks, events: SignalInstance, parent: QWidget | None = None) -> None:
        """``events``: the bridge's signal for core events without one of their own (``other``)."""
        super().__init__(parent)
        self.tasks = tasks
        self.store: TaskStore = tasks.store
        self.list = QListWidget(self)
        self.list.setAccessibleName("Scheduled tasks")
        self.list.setWordWrap(True)
        self.history = QLabel(self)
        self.history.setAccessibleName("The selected task's last runs")
        self.history.setWordWrap(True)
        self.history.setTextFormat(Qt.TextFormat.PlainText)
        self.run_button = button("&Run now", "Run the selected task now", self)
        self.pause_button = button("&Pause", "Pause or resume the selected task", self)
        self.remove_button = button("Re&move", "Remove the selected task and its history", self)
        self.prompt = line_edit("What Jawad should do", self, hint="e.g. Check the price of the kettle at shop.example")
        self.when = line_edit("When", self, hint="e.g. every weekday at 8, every 3 hours, tomorrow at 9")
        self.rule = QLabel(self)
        self.rule.setAccessibleName("The schedule, as Jawad reads it")
        self.sites = line_edit("Sites it may act on", self, hint="e.g. shop.example, news.example")
        self.kinds = {kind: QCheckBox(label, self) for kind, label in KIND_LABELS.items()}
        self.add_button = button("&Add task", "Schedule this task", self)
        self.status = status_line("Tasks status", self)
        actions = QHBoxLayout()
        for b in (self.run_button, self.pause_button, self.remove_button):
            actions.addWidget(b)
        actions.addStretch(1)
        kinds = QHBoxLayout()
        kinds.addWidget(QLabel("On those sites it may:", self))
        for box in self.kinds.values():
            kinds.addWidget(box)
        kinds.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(help_line(HELP, self, describes=self.list))
        layout.addWidget(self.list, 1)
        layout.addLayout(actions)
        layout.addWidget(self.history)
        layout.addWidget(section_heading("New task", self))
        layout.addWidget(self.prompt)
        layout.addWidget(self.when)
        layout.addWidget(self.rule)
        layout.addWidget(self.sites)
        layout.addLayout(kinds)
        layout.addWidget(help_line("It may always read pages. Paying, ordering and deleting always need your "
                                   "yes, so a task never does them.", self, describes=self.add_button))
        layout.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        self.when.textChanged.connect(self._read_rule)
        self.add_button.clicked.connect(self.add_task)
        self.run_button.clicked.connect(self.run_selected)
        self.pause_button.clicked.connect(self.toggle_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.list.itemSelectionChanged.connect(self._selected)
        events.connect(self._event)
        self.refresh()
        self._read_rule()

    def refresh(self) -> None:
        """Fill the list from the store, keeping the selection."""
        chosen = self.selected_id()
        try:
            tasks = self.store.tasks()
        except JawadError as exc:
            set_status(self.status, error_text(exc), error=True)
            tasks = []
        fill_list(self.list, ((self._line(t), t.id) for t in tasks), chosen=chosen,
                  empty="No scheduled tasks yet: make one below.")
        self._selected()

    def _line(self, task: Task) -> str:
        runs = self.store.runs(task.id, limit=1)
        last = f"last run: {runs[0].outcome}" if runs else "not run yet"
        state = "paused" if not task.enabled else f"next: {_when(task.next_at)}"
        return f"{task.name}\n{task.schedule.describe()} · {state} · {last}\n{task.scope_text()}"

    def selected_id(self) -> int | None:
        items = self.list.selectedItems()
        value = items[0].data(Qt.ItemDataRole.UserRole) if items else None
        return int(value) if value is not None else None

    def _selected(self) -> None:
        task_id = self.selected_id()
        for b in (self.run_button, self.pause_button, self.remove_button):
            b.setEnabled(task_id is not None)
        if task_id is None:
            self.history.setText("")
            return
        task = self.store.get(task_id)
        self.pause_button.setText("Res&ume" if not task.enabled else "&Pause")
        runs = self.store.runs(task_id, limit=5)
        self.history.setText("\n".join(
            f"{_when(r.started_at)}: {r.outcome} — {' '.join((r.reason or r.answer).split())[:160]}" for r in runs)
            or "This task has not run yet.")

    def _read_rule(self) -> None:
        words = self.when.text()
        if not words.strip():
            self.rule.setText("")
            return
        try:
            schedule = parse_schedule(words, datetime.now().astimezone())
        except JawadError as exc:
            self.rule.setText(exc.message)
            return
        following = schedule.next_after(datetime.now().astimezone())
        nxt = following.strftime("%a %d %b %H:%M") if following else "never"
        self.rule.setText(f"{schedule.describe()} — first run {nxt}")

    def add_task(self) -> None:
        now = datetime.now().astimezone()
        try:
            schedule = parse_schedule(self.when.text(), now)
            sites = [s.strip() for s in self.sites.text().replace(";", ",").split(",") if s.strip()]
            kinds = [kind for kind, box in self.kinds.items() if box.isChecked()]
            task = self.store.add(self.prompt.text(), schedule, now=now, wording=self.when.text(),
                                  sites=sites, kinds=kinds)
        except JawadError as exc:
            set_status(self.status, error_text(exc), error=True)
            return
        for field in (self.prompt, self.when, self.sites):
            field.clear()
        for box in self.kinds.values():
            box.setChecked(False)
        set_status(self.status, f"Scheduled: {task.name} ({task.schedule.describe()}).")

    def run_selected(self) -> None:
        task_id = self.selected_id()
        if task_id is None:
            return
        set_status(self.status, "Running the task…")
        self.run_button.setEnabled(False)

        def done(finished: ev.TaskRunFinished) -> None:
            set_status(self.status, f"{finished.name}: {finished.outcome}. {finished.reason or finished.answer}",
                       error=finished.outcome == "failed")
            self._selected()

        run_async(self.tasks.run_now(task_id), what="running the task", bus=self.tasks.ctx.bus, on_done=done)

    def toggle_selected(self) -> None:
        task_id = self.selected_id()
        if task_id is not None:
            task = self.store.get(task_id)
            self.store.set_enabled(task_id, not task.enabled)

    def remove_selected(self) -> None:
        task_id = self.selected_id()
        if task_id is not None and self.store.remove(task_id):
            set_status(self.status, "Task removed.")

    def _event(self, event: object) -> None:
        if isinstance(event, ev.TasksChanged | ev.TaskRunFinished):
            self.refresh()
