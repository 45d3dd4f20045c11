"""The facts Harbor weighs before a critical action (12_critical.js, ``actionFacts``): the form or
dialog the element acts in, its payment and password fields, its address and method, and words
that say it destroys something."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def test_a_payment_form(open_html: Callable[..., str], call: Call) -> None:
    open_html("<h2>Checkout</h2><form action='/pay' method='post'><input autocomplete='cc-number'>"
              "<input name='cvc' placeholder='CVC'><input type='number' name='quantity' value='1'>"
              "<iframe title='Secure card payment' src='about:blank'></iframe><button id='pay'>Pay $40</button></form>")
    facts = call("actionFacts", {"selector": "#pay"})
    assert facts["scope"] == "form" and facts["method"] == "post" and facts["action"].endswith("/pay")
    assert "cc-number" in facts["cardFields"] and len(facts["cardFields"]) == 2
    assert facts["quantities"] == 1
    assert facts["frames"] == [{"src": "about:blank", "title": "Secure card payment"}]
    assert facts["destructive"] is False


def test_a_destructive_button_in_a_dialog(open_html: Callable[..., str], call: Call) -> None:
    open_html("<div role='dialog' aria-modal='true' aria-labelledby='t'><h2 id='t'>Delete account?</h2>"
              "<p>This removes all your data.</p><button id='del' class='btn btn-danger'>Yes</button></div>")
    facts = call("actionFacts", {"selector": "#del"})
    assert facts["scope"] == "dialog" and facts["destructive"] is True
    assert "Delete account?" in facts["dialogText"] and "removes all your data" in facts["dialogText"]


def test_a_password_change(open_html: Callable[..., str], call: Call) -> None:
    open_html("<form><input type='password' autocomplete='current-password'>"
              "<input type='password' autocomplete='new-password'><input type='password' autocomplete='new-password'>"
              "<button id='save'>Save</button></form>")
    facts = call("actionFacts", {"selector": "#save"})
    assert (facts["passwords"], facts["newPasswords"], facts["currentPasswords"]) == (3, 2, 1)
    assert call("actionFacts", {"selector": "#missing"}) == {"ok": False, "error": "not_found"}
