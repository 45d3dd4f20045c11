"""Critical by what an action does (issue 28): paying, ordering, deleting, subscribing and setting a
password are recognised from the page around the control, whatever its label says ("Continue", "OK",
"Next", "Weiter"), in a real page in QtWebEngine; a sign-in form, a search form, adding to a list or a
basket being edited stay ordinary; and through the gate such an action asks with its reason under every
level, grant and --allow, and is denied when nobody can be asked."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jawad_desktop.browser.driver import QtWebEnginePage
from jawad_desktop.core import events
from jawad_desktop.core.harbor import CallInsight, PermissionCheck, PermissionLevel
from jawad_desktop.core.harbor.policy import is_critical_action
from jawad_desktop.core.tools.browser.critical import ActionFacts, why_critical
from jawad_desktop.core.tools.page import ElementInfo
from tests.browser.wiring import WiredBrowser, wire_browser

Load = Callable[[str], str]
L = PermissionLevel
ALL_LEVELS = {L.READ_ONLY, L.NAVIGATE, L.INTERACT, L.SUBMIT}  # the widest --allow


@pytest.fixture
def wired(web_page: QtWebEnginePage, tmp_path: Path) -> Iterator[WiredBrowser]:
    browser = wire_browser(web_page, events.EventBus(), config_dir=tmp_path / "c", data_dir=tmp_path / "d",
                           highlight_s=0)
    yield browser
    browser.close()


def _check(tool: str, **arguments: Any) -> PermissionCheck:
    level = L.SUBMIT if tool == "fill_form" and arguments.get("submit") else L.INTERACT
    return PermissionCheck(tool=tool, call_id="c", arguments=arguments, level=level, site="127.0.0.1",
                           current_site="127.0.0.1", run_id="r", user_texts=("finish what I started here",))


def _insight(wired: WiredBrowser, arun: Callable[..., Any], tool: str = "click_element",
             **arguments: Any) -> CallInsight:
    assert wired.gate.inspector is not None
    insight = arun(wired.gate.inspector(_check(tool, **arguments)))
    assert insight is not None
    return insight  # type: ignore[no-any-return]


def _critical(wired: WiredBrowser, arun: Callable[..., Any], selector: str) -> tuple[bool, str]:
    insight = _insight(wired, arun, selector=selector)
    return insight.critical, insight.note


def test_card_fields_make_a_neutral_submit_critical(wired: WiredBrowser, load: Load, arun: Callable[..., Any]) -> None:
    load("critical/card.html")
    for selector, label in (("#by-autocomplete button[type=submit]", "Continue"), ("#by-name button", "Next"),
                            ("#by-pattern button", "OK")):
        critical, note = _critical(wired, arun, selector)
        assert critical and "payment card fields" in note, (label, note)
        assert not is_critical_action(label)  # the label alone says nothing
    assert "cc-number" in _critical(wired, arun, "#by-autocomplete button[type=submit]")[1]
    assert "iban" in _critical(wired, arun, "#by-name button")[1]
    # Backing out of the card form, searching, adding to a list: ordinary.
    for selector in ("#cancel-card", "#search button", "#list button"):
        assert _critical(wired, arun, selector) == (False, ""), selector
    # Typing into the card form is no payment; typing with Enter sends it.
    assert not _insight(wired, arun, "fill_form", selector="#by-autocomplete [name=f1]", text="x").critical
    assert _insight(wired, arun, "fill_form", selector="#by-name [name=holder]", text="x", submit=True).critical


def test_a_payment_providers_card_frame_makes_weiter_critical(wired: WiredBrowser, load: Load,
                                                              arun: Callable[..., Any]) -> None:
    load("critical/card.html")
    critical, note = _critical(wired, arun, "#by-frame button")
    assert critical and "payment provider's card frame (js.stripe.com)" in note, note


def test_a_form_sent_to_a_checkout_order_delete_or_provider_address_is_critical(
        wired: WiredBrowser, load: Load, arun: Callable[..., Any]) -> None:
    load("critical/action.html")
    critical, note = _critical(wired, arun, "#to-checkout button")
    assert critical and "/checkout/pay" in note, note
    critical, note = _critical(wired, arun, "#to-provider button")  # its own formaction, not the form's
    assert critical and "payment provider (www.paypal.com)" in note, note
    critical, note = _critical(wired, arun, "#to-orders button")
    assert critical and "/api/orders" in note, note
    assert _critical(wired, arun, "#to-delete button")[0]
    # Finding an order (a GET to /orders) orders nothing.
    assert _critical(wired, arun, "#to-search button") == (False, "")


def test_a_confirmation_dialog_about_paying_or_deleting_is_critical(wired: WiredBrowser, load: Load,
                                                                    arun: Callable[..., Any]) -> None:
    load("critical/dialog.html")
    critical, note = _critical(wired, arun, "#delete-ok")
    assert critical and "Delete project" in note, note
    critical, note = _critical(wired, arun, "#pay-continue")
    assert critical and "about to pay" in note, note
    # Destructive styling is only a hint: beside "cannot be undone" it counts, alone it does not.
    assert _critical(wired, arun, "#danger-yes")[0]
    # An edit dialog's Save is no deletion because the dialog also has a Delete button.
    assert _critical(wired, arun, "#edit-delete")[0]
    for selector in ("#delete-cancel", "#pay-back", "#plain-yes", "#colour-ok", "#edit-save"):
        assert _critical(wired, arun, selector) == (False, ""), selector


def test_an_amount_to_pay_beside_the_control_is_critical(wired: WiredBrowser, load: Load,
                                                         arun: Callable[..., Any]) -> None:
    load("critical/amount.html")
    critical, note = _critical(wired, arun, "#review-continue")
    assert critical and "Total: $49.99" in note, note
    critical, note = _critical(wired, arun, "#de button")
    assert critical and "Gesamtbetrag: 12,00 €" in note, note
    # A basket whose quantities are being changed, a product's price beside "Add to list": no payment.
    assert _critical(wired, arun, "#basket button") == (False, "")
    assert _critical(wired, arun, "#add") == (False, "")
    assert _critical(wired, arun, "#review-later") == (False, "")  # a link beside the total pays nothing


def test_a_password_change_is_critical_and_a_sign_in_is_not(wired: WiredBrowser, load: Load,
                                                           arun: Callable[..., Any]) -> None:
    load("critical/password.html")
    for selector in ("#change button", "#reset button"):
        critical, note = _critical(wired, arun, selector)
        assert critical and "sets a new password" in note, (selector, note)
    for selector in ("#signin button", "#signin-plain button"):  # the second posts to /login/password
        assert _critical(wired, arun, selector) == (False, ""), selector
    # Signing in with Enter in the password field is no password change either.
    assert not _insight(wired, arun, "press_key", selector="#signin [name=pw]", key="Enter").critical


def test_a_form_headed_by_deleting_or_subscribing_is_critical(wired: WiredBrowser, load: Load,
                                                              arun: Callable[..., Any]) -> None:
    load("critical/heading.html")
    for selector, heading in (("#close button", "Delete your account"), ("#news button", "Subscribe"),
                              ("#abo button", "Abo abschließen")):
        critical, note = _critical(wired, arun, selector)
        assert critical and heading in note, (selector, note)
    for selector in ("#signin button", "#orders button"):
        assert _critical(wired, arun, selector) == (False, ""), selector


def test_critical_words_on_a_page_in_many_languages(wired: WiredBrowser, load: Load, arun: Callable[..., Any]) -> None:
    load("critical/words.html")
    for text in ("Kup teraz", "注文する", "Zahlung bestätigen", "حذف الحساب", "Изменить пароль", "去结算", "Afrekenen",
                 "Procedi al pagamento", "Excluir conta", "Tramitar pedido", "Supprimer mon compte"):
        insight = _insight(wired, arun, "click_text", text=text)
        assert insight.critical and text in insight.note, (text, insight.note)
    for text in ("Weiter", "Dalej", "次へ", "Next"):
        assert not _insight(wired, arun, "click_text", text=text).critical, text


def test_the_gate_asks_for_a_neutral_critical_action_whatever_the_levels_and_grants(
        web_page: QtWebEnginePage, load: Load, arun: Callable[..., Any], tmp_path: Path) -> None:
    load("critical/card.html")
    bus = events.EventBus()
    wired = wire_browser(web_page, bus, config_dir=tmp_path / "c", data_dir=tmp_path / "d", highlight_s=0)
    try:
        gate = wired.gate
        wired.harbor.policy.auto_levels = set(ALL_LEVELS)
        wired.harbor.apply_decision("click_element", "127.0.0.1", "allow-site", level="interact")
        asked: list[events.PermissionRequest] = []

        def answer(event: events.Event) -> None:
            if isinstance(event, events.PermissionRequest):
                asked.append(event)
                gate.respond(event.id, "allow-site")

        bus.subscribe(answer)
        pay = _check("click_element", selector="#by-autocomplete button[type=submit]")
        for _ in range(2):  # an "allow on this site" does not make the next payment run unasked
            assert arun(gate.check(pay)).allowed
        assert len(asked) == 2 and all(r.critical for r in asked)
        assert "payment card fields" in asked[0].reason and "purchase, payment" in asked[0].reason
        # Searching under the same --allow and grant runs without a question.
        assert arun(gate.check(_check("click_element", selector="#search button"))).decision == "auto-approved"
        assert len(asked) == 2
        # Nobody to ask: denied, saying why.
        gate.ask_enabled = False
        denied = arun(gate.check(pay))
        assert not denied.allowed and "payment card fields" in denied.reason and "yes every time" in denied.reason
        assert len(asked) == 2
    finally:
        wired.close()


# -- the weighing alone, for what a test page does not show ----------------------------------------

BUTTON = ElementInfo(tag="button", role="BUTTON", label="Continue", selector="#b")


@pytest.mark.parametrize("text", [
    "Total: $49.99", "Order total 1,299.00 USD", "Amount due: £12", "À payer : 35,90 €", "Totale: € 12,50",
    "Te betalen: € 8,00", "Do zapłaty: 120,00 zł", "Итого: 990 ₽", "合计 ¥128.00", "合計 1,980円",
    "الإجمالي: 150 ر.س", "Importe total: 20,00 €", "Valor a pagar: R$ 59,90",
])
def test_an_amount_to_pay_in_many_languages(text: str) -> None:
    assert why_critical(ActionFacts(scope="form", text=f"Review. {text}"), BUTTON, submits=True)


@pytest.mark.parametrize("text", ["$19.99 · in stock", "Subtotal $49.99", "Free shipping over $50", "3 items",
                                  "Sale: 20% off"])
def test_a_price_among_others_is_no_amount_to_pay(text: str) -> None:
    assert not why_critical(ActionFacts(scope="section", text=text), BUTTON, submits=True)


def test_only_an_action_that_commits_counts() -> None:
    card = ActionFacts(scope="form", card_fields=("cc-number",))
    box = ElementInfo(tag="input", role="CHECKBOX", label="Save this card", selector="#s", type="checkbox")
    link = ElementInfo(tag="a", role="LINK", label="Terms", selector="#t", href="https://shop.test/terms")
    scripted = ElementInfo(tag="a", role="LINK", label="Continue", selector="#c", href="https://shop.test/pay#")
    assert why_critical(card, BUTTON, submits=False)
    assert not why_critical(card, box, submits=False)
    assert not why_critical(card, link, submits=False, page_url="https://shop.test/pay")
    assert why_critical(card, scripted, submits=False, page_url="https://shop.test/pay")
    for label in ("Cancel", "Abbrechen", "Annuler", "キャンセル", "إلغاء", "Отмена"):
        assert not why_critical(card, ElementInfo(tag="button", role="BUTTON", label=label, selector="#x"),
                                submits=False), label


@pytest.mark.parametrize("text", [
    "Kup teraz", "Zamawiam i płacę", "Usuń konto", "Zmień hasło", "Оформить заказ", "Удалить аккаунт",
    "Изменить пароль", "去结算", "确认支付", "注销账户", "修改密码", "注文する", "レジに進む", "退会",
    "パスワードを変更",
    "اطلب الآن", "حذف الحساب", "تغيير كلمة المرور", "Jetzt bezahlen", "Konto löschen", "Passwort ändern",
    "Payer maintenant", "Changer le mot de passe", "Pagar ahora", "Cambiar contraseña", "Comprar agora",
    "Alterar senha", "Procedi al pagamento", "Cambia password", "Afrekenen", "Wachtwoord wijzigen",
    "Cancel subscription", "Change password", "Confirm and pay",
    "Invite", "Add member", "Create deploy token", "Generate new token", "Add SSH key", "Transfer ownership",
])
def test_more_critical_words(text: str) -> None:
    assert is_critical_action(text)


@pytest.mark.parametrize("text", ["Continue", "OK", "Next", "Weiter", "Dalej", "Suivant", "Siguiente", "Avanti",
                                  "Volgende", "Далее", "下一步", "次へ", "التالي", "Sign in", "Add to list",
                                  "Search", "Payment methods", "Order history", "Forgot password?",
                                  "Invitation details", "Members", "Tokens"])
def test_neutral_words_stay_neutral(text: str) -> None:
    assert not is_critical_action(text)
