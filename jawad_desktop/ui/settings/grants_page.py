"""The Settings page "Site permissions": every grant Harbor holds, with Revoke.

Site grants ("allow on this site") are saved and survive restarts; session grants end when
Jawad closes. Revoking one takes effect at once (the next action asks again). The page
refreshes itself when Harbor's grants change, wherever they were changed: Harbor announces each
change as ``GrantsChanged`` on the event bus, which the window's ``EventBridge`` turns into its
``grants_changed`` signal (queued to the GUI thread).
"""

from __future__ import annotations

import logging
import time

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QLabel, QTableWidgetItem, QVBoxLayout, QWidget

from jawad_desktop.core.harbor import Grant, Harbor
from jawad_desktop.ui.look.controls import button, data_table, row_of

log = logging.getLogger("jawad.ui.grants")

COLUMNS = ("Site", "Tool", "Level", "Kept", "Granted")


class GrantsPage(QWidget):
    """A table of grants with Revoke and Revoke all. Add it with ``dialog.add_page("Site
    permissions", GrantsPage(harbor, bridge.grants_changed, dialog))``."""

    def __init__(self, harbor: Harbor, grants_changed: SignalInstance, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.harbor = harbor
        self.grants: list[Grant] = []
        intro = QLabel(
            "Actions Jawad may take without asking, per site. Buying, paying, deleting and similar "
            "critical actions always ask, whatever is listed here.", self)
        intro.setWordWrap(True)
        self.problem = QLabel(self)
        self.problem.setWordWrap(True)
        self.problem.setProperty("role", "warning")  # the theme's warning colour
        self.table = data_table("Site permissions", COLUMNS, self, stretch=-1)
        self.table.setObjectName("grantsTable")
        self.empty = QLabel("No site permissions: Jawad asks before every action that changes something.", self)
        self.revoke_button = button("&Revoke", "Revoke the selected site permission", self)
        self.revoke_button.setObjectName("revokeGrant")
        self.revoke_all_button = button("Revoke a&ll", "Revoke every site permission", self)
        self.revoke_all_button.setObjectName("revokeAllGrants")
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.revoke_all_button.clicked.connect(self.revoke_all)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.problem)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(row_of(self.revoke_button, self.revoke_all_button))
        grants_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.grants = self.harbor.grants()
        self.table.setRowCount(len(self.grants))
        for row, grant in enumerate(self.grants):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(grant.granted_at / 1000)) if grant.granted_at else ""
            kept = "saved" if grant.scope == "site" else "until Jawad closes"
            for col, text in enumerate((grant.site or "(no site)", grant.tool, grant.level, kept, when)):
                self.table.setItem(row, col, QTableWidgetItem(text))
        store = self.harbor.store
        self.problem.setText(store.problem if store is not None else "")
        self.problem.setVisible(bool(self.problem.text()))
        self.empty.setVisible(not self.grants)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.revoke_button.setEnabled(bool(self.table.selectionModel().selectedRows()))
        self.revoke_all_button.setEnabled(bool(self.grants))

    def revoke_selected(self) -> None:
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        chosen = [self.grants[r] for r in rows if r < len(self.grants)]
        for grant in chosen:
            self.harbor.revoke(grant.site, grant.tool, grant.scope)
            log.info("revoked %s on %s (%s)", grant.tool, grant.site, grant.scope)
        # The table follows from Harbor's GrantsChanged, like any other change.

    def revoke_all(self) -> None:
        self.harbor.revoke_all()
