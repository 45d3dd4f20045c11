"""Privacy and security settings (issue 22): ticking "Share my data with partners" or turning off
two-factor sign-in asks whatever the levels and grants, unless the user asked for that change; an
ordinary setting, and a link whose words only mention such things, follow the levels as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.harbor import PermissionCheck, PermissionLevel
from jawad_desktop.core.harbor.policy import is_sensitive_setting
from tests.browser.wiring import wire_browser

Load = Callable[[str], str]


def test_sensitive_settings_are_known_in_several_languages() -> None:
    for label in ("Share my data with partners", "Turn off two-factor authentication", "Forward all mail to",
                  "Make my profile public", "Daten teilen mit Partnern", "共享我的数据给合作伙伴", "مشاركة بياناتي"):
        assert is_sensitive_setting(label), label
    for label in ("Send me the monthly newsletter", "Password", "Forward", "Express shipping",
                  "6 offres de vendeurs partenaires", "Remember me"):
        assert not is_sensitive_setting(label), label


def test_a_sensitive_setting_asks_unless_the_user_asked_for_it(web_page: QtWebEnginePage, load: Load,
                                                              arun: Callable[..., Any], tmp_path: Path) -> None:
    url = load("settings/privacy.html")
    wired = wire_browser(web_page, events.EventBus(), config_dir=tmp_path / "c", data_dir=tmp_path / "d",
                         highlight_s=0)
    try:
        reading = arun(wired.session.read())
        index = {item["label"]: item["index"] for item in reading.elements}

        def insight(tool: str, label: str, user: str) -> Any:
            args = {"index": index[label], "checked": True} if tool == "set_checked" else {"index": index[label]}
            check = PermissionCheck(tool=tool, call_id="c", arguments=args, level=PermissionLevel.INTERACT,
                                    site="127.0.0.1", current_site="127.0.0.1", run_id="r", user_texts=(user,))
            return arun(wired.gate.inspector(check))  # type: ignore[misc]

        planted = insight("set_checked", "Share my data with partners", "what is my order's status?")
        assert planted.force_ask and planted.from_page_content
        assert '"Share my data with partners" is a privacy or security setting' in planted.note
        assert insight("set_checked", "Two-factor sign-in", "check my order").force_ask
        asked_for = insight("set_checked", "Share my data with partners", "please share my data with partners")
        assert not asked_for.force_ask
        assert not insight("set_checked", "Send me the monthly newsletter", "check my order").force_ask
        assert not insight("click_element", "Why third-party cookies are going away", "read the blog").force_ask
        assert url.endswith("privacy.html")
    finally:
        wired.close()
