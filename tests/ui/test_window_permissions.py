"""Permission requests in the real window: the panel follows the gate (its request, its clock,
its settling), the status line says where a run is, and the panes keep their size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jawad_desktop.core.harbor import Harbor, HarborGate, PermissionCheck, PermissionLevel


def test_a_request_the_gate_settles_closes_in_the_window(make_window: Any, profile_dir: Path, qtbot: Any,
                                                           arun: Any) -> None:
    """Through the real bus and bridge: the gate's timeout closes the panel it opened."""
    window = make_window(profile_dir)
    assistant = window.presenter.assistant
    assert assistant is not None
    gate = HarborGate(Harbor(), window.ctx.bus, timeout_s=0.5)
    check = PermissionCheck(tool="click_element", call_id="c1", arguments={"index": 1},
                            level=PermissionLevel.INTERACT, site="shop.test")
    decision = arun(gate.check(check))
    assert not decision.allowed and "nobody answered" in decision.reason
    qtbot.waitUntil(lambda: not window.permission_panel.isVisible(), timeout=3000)
