"""Critical by what an action does: a click or a submit that pays, orders, deletes, subscribes or sets a
new password, recognised from the page around the control, whatever its label says (issue 28).

A checkout's "Continue", a dialog's "OK" or a settings form's "Weiter" say nothing; the page around
them does. The page library (``J.actionFacts`` in the page library (``core/tools/js/page``)) reports what surrounds the
control as ``ActionFacts``: its form (or dialog, or section), the card fields and payment providers'
frames there, the password fields and what their autocomplete says, where the form posts, the
dialog's words, the form's headings and the region's text. ``why_critical`` weighs them and returns the reason in the
words the permission question shows ("It submits a form with payment card fields"), or "" when
nothing makes the action critical. The label's own words and the destination's path are Harbor's
(``core.harbor.policy.is_critical_action``); the inspector asks both.

Only an action that commits counts (a submit, a button, a scripted link; for an amount, a submit
or a button): typing into a card field or ticking a box in a payment form is not a payment. A
sign-in form (one password field) is no password change; a basket whose quantities are being
edited is no payment though it shows a total; a dialog's Cancel or Close is never critical.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from jawad_desktop.core.harbor.policy import is_critical_action
from jawad_desktop.core.lazy_pattern import LazyPattern
from jawad_desktop.core.tools.page import ElementInfo, Page, PageError, Target

log = logging.getLogger("jawad.browser")

__all__ = ["ActionFacts", "action_facts", "why_critical"]

# Hosts of payment providers: a form posting to one, or a provider's card frame in the form, pays.
PAYMENT_HOSTS = (
    "stripe.com", "stripe.network", "paypal.com", "paypalobjects.com", "adyen.com", "adyenpayments.com",
    "braintreegateway.com", "braintree-api.com", "braintreepayments.com", "klarna.com", "klarnacdn.net",
    "klarnaservices.com", "squareup.com", "squarecdn.com", "checkout.com", "mollie.com", "razorpay.com",
    "authorize.net", "worldpay.com", "paddle.com", "przelewy24.pl", "payu.com", "secure.payu.com", "2checkout.com",
    "pay.google.com", "apple-pay-gateway.apple.com", "affirm.com", "afterpay.com", "sumup.com", "wepay.com",
    "alipay.com", "wechatpay.com", "payfort.com", "tap.company", "yookassa.ru", "yoomoney.ru", "cloudpayments.ru",
)

# A frame's title that says it takes a card (Stripe: "Secure card payment input frame").
_FRAME_TITLE = LazyPattern(r"card (number|payment)|payment (input|frame|form|method)|secure (card|payment)|"
                          r"kartenzahlung|paiement sécurisé|pago seguro|pagamento sicuro", re.IGNORECASE)

# Path segments of a POSTed form's action that order, pay, delete or (un)subscribe (besides
# ``is_critical_action``'s markers, which hold for any destination).
_POST_MARKERS = LazyPattern(
    r"(?:^|[/_\-.])(orders?|pay|payments?|charge|purchase|buy|subscriptions?|unsubscribe|cancel[-_]?subscription|"
    r"destroy|delete|account[-_]?delete|deactivate|close[-_]?account|change[-_]?password|"
    r"bestellung|commande|pedido|ordine|bestelling|zamowienie)(?:$|[/_\-.])",
    re.IGNORECASE,
)

_CURRENCY = (r"(?:[$€£¥₹₽₩₺₪₫฿₴₦]|R\$|zł|kr|CHF|USD|EUR|GBP|JPY|CNY|RMB|PLN|RUB|INR|AUD|CAD|SEK|NOK|DKK|BRL|MXN|"
             r"AED|SAR|TRY|руб\.?|₽|元|円|ر\.س|د\.إ|ريال|درهم)")
_NUMBER = r"\d{1,3}(?:[.,  ]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_AMOUNT = rf"(?:{_CURRENCY}\s?(?:{_NUMBER})|(?:{_NUMBER})\s?{_CURRENCY})"
# Words that put an amount to be paid (not a price among others): "Total: $49.99", "Pay €12.00".
_TOTAL_WORDS = (
    "total", "grand total", "order total", "total due", "amount due", "amount", "due today", "to pay", "you pay",
    "you'll pay", "you will pay", "you will be charged", "charged", "pay", "pay now",
    "gesamt", "gesamtbetrag", "gesamtsumme", "summe", "endbetrag", "betrag", "zu zahlen", "zahlen",
    "montant", "à payer", "total ttc", "payer", "importe", "a pagar", "pagar", "totale", "importo", "da pagare",
    "pagare", "valor", "totaal", "bedrag", "te betalen", "betalen", "razem", "suma", "do zapłaty", "kwota",
    "zapłać", "итого", "сумма", "к оплате", "оплатить", "合计", "总计", "总额", "应付", "实付", "支付", "合計",
    "お支払い", "支払", "総額", "請求額", "الإجمالي", "المجموع", "المبلغ", "ادفع", "الدفع",
)
_TOTAL = "|".join(re.escape(w) for w in sorted(_TOTAL_WORDS, key=len, reverse=True))
_AMOUNT_TO_PAY = LazyPattern(
    rf"(?<![\w])(?:{_TOTAL})(?![\w])[^\d\n]{{0,24}}?{_AMOUNT}|{_AMOUNT}\s*(?:{_TOTAL})(?![\w])", re.IGNORECASE)

# A dialog or page that warns the action cannot be taken back (with destructive styling: critical).
_IRREVERSIBLE = LazyPattern(
    r"are you sure|cannot be undone|can't be undone|can not be undone|permanently|irreversibl|"
    r"sind sie sicher|bist du sicher|endgültig|unwiderruflich|êtes-vous sûr|définitivement|irréversible|"
    r"estás seguro|está seguro|permanentemente|no se puede deshacer|sei sicuro|è sicuro|definitivamente|"
    r"tem certeza|weet je het zeker|weet u zeker|definitief|czy na pewno|nieodwracaln|trwale|вы уверены|"
    r"безвозвратно|нельзя отменить|确定要|无法撤销|不可恢复|本当に|元に戻せません|هل أنت متأكد|لا يمكن التراجع",
    re.IGNORECASE,
)

# Words that say a single new-password field changes or resets the account's password.
_PASSWORD_CHANGE = LazyPattern(
    r"(change|update|reset|new|set) (your |a )?password|passwort (ändern|zurücksetzen)|neues passwort|"
    r"(changer|modifier|réinitialiser) (le |votre )?mot de passe|nouveau mot de passe|"
    r"(cambiar|restablecer) (la |tu |su )?contraseña|nueva contraseña|(cambia|modifica|reimposta) (la )?password|"
    r"nuova password|(alterar|redefinir|mudar) (a )?senha|nova senha|wachtwoord (wijzigen|herstellen)|"
    r"nieuw wachtwoord|zmień hasło|nowe hasło|(изменить|сменить|сбросить) пароль|новый пароль|"
    r"修改密码|更改密码|重置密码|新密码|パスワード(を)?(変更|再設定)|新しいパスワード|"
    r"تغيير كلمة المرور|كلمة المرور الجديدة|إعادة تعيين كلمة المرور",
    re.IGNORECASE,
)

# Labels that back out of a dialog or form: never critical by what surrounds them.
_DISMISS = frozenset((
    "cancel", "close", "no", "no thanks", "not now", "back", "go back", "keep", "dismiss", "later", "×", "x", "✕",
    "abbrechen", "schließen", "nein", "zurück", "annuler", "fermer", "non", "retour", "cancelar", "cerrar", "volver",
    "annulla", "chiudi", "indietro", "fechar", "voltar", "não", "annuleren", "sluiten", "terug", "nee", "anuluj",
    "zamknij", "wstecz", "nie", "отмена", "отменить", "закрыть", "назад", "нет", "取消", "关闭", "返回",
    "キャンセル", "閉じる", "戻る", "いいえ", "إلغاء", "إغلاق", "رجوع", "لا",
))


@dataclass(frozen=True, slots=True)
class ActionFacts:
    """What surrounds a control on the page (``J.actionFacts``); values of fields never cross over.

    ``scope``: what "around" is (form, dialog, section, or region: the largest short block above it).
    ``card_fields``: what marks each payment field there (``cc-number``, a name such as ``cvv``).
    ``frames``: the (address, title) of each iframe there. ``passwords``, ``new_passwords``,
    ``current_passwords``: password fields and what their autocomplete says. ``quantities``: quantity
    fields (a basket being edited). ``action``/``method``: where and how the control's form submits
    (its own formaction first). ``dialog_text``: the name, headings and first words of the dialog it is
    in ("" outside one). ``heading``: the name and headings of its form, section or dialog (or the
    heading just before it). ``text``: the scope's text. ``destructive``: danger-like styling (a weak hint).
    """

    scope: str = ""
    card_fields: tuple[str, ...] = ()
    frames: tuple[tuple[str, str], ...] = ()
    passwords: int = 0
    new_passwords: int = 0
    current_passwords: int = 0
    quantities: int = 0
    action: str = ""
    method: str = ""
    dialog_text: str = ""
    heading: str = ""
    text: str = ""
    destructive: bool = False

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> ActionFacts:
        frames = tuple((str(f.get("src", "")), str(f.get("title", "")))
                       for f in data.get("frames") or () if isinstance(f, dict))
        return cls(
            scope=str(data.get("scope", "")),
            card_fields=tuple(str(f) for f in data.get("cardFields") or ()),
            frames=frames,
            passwords=int(data.get("passwords") or 0),
            new_passwords=int(data.get("newPasswords") or 0),
            current_passwords=int(data.get("currentPasswords") or 0),
            quantities=int(data.get("quantities") or 0),
            action=str(data.get("action", "")),
            method=str(data.get("method", "")).lower(),
            dialog_text=str(data.get("dialogText", "")),
            heading=str(data.get("heading", "")),
            text=str(data.get("text", "")),
            destructive=bool(data.get("destructive", False)),
        )


async def action_facts(page: Page, target: Target) -> ActionFacts | None:
    """The facts around ``target`` on ``page``; None when the page library cannot tell (the element
    went away, a page without the library)."""
    try:
        data = await page.call("actionFacts", target.as_js(), timeout=5.0)
    except PageError:
        log.debug("could not read what surrounds %s", target, exc_info=True)
        return None
    return ActionFacts.from_js(data) if isinstance(data, dict) and data.get("ok") else None


def why_critical(facts: ActionFacts, info: ElementInfo, *, submits: bool, page_url: str = "") -> str:
    """Why acting on ``info`` is critical, from the page around it: a sentence for the permission
    question, or "" when nothing around it pays, orders, deletes, subscribes or sets a password."""
    if not _commits(info, submits=submits, page_url=page_url) or _fold(info.label).strip(" .!?…") in _DISMISS:
        return ""
    verb = "submits" if submits else "is the button of"
    if facts.card_fields:
        shown = ", ".join(dict.fromkeys(facts.card_fields[:3]))
        return f"It {verb} a form with payment card fields ({shown})"
    providers = [src for src, title in facts.frames if _payment_host(src) or _FRAME_TITLE.search(title)]
    if providers:
        return f"It {verb} a form with a payment provider's card frame ({_host(providers[0]) or 'embedded'})"
    action = facts.action if submits else ""
    if action and _payment_host(action):
        return f"Its form is sent to a payment provider ({_host(action)})"
    if action and (is_critical_action("", action) or (facts.method == "post" and _posts_critically(action))):
        return f"Its form is sent to {urlsplit(action).path or action}, an address that pays, orders or deletes"
    if facts.passwords >= 2 or (facts.new_passwords and (
            facts.current_passwords or _PASSWORD_CHANGE.search(facts.text))):
        return f"It {verb} a form that sets a new password"
    if facts.dialog_text and (is_critical_action(facts.dialog_text)
                              or (facts.destructive and _IRREVERSIBLE.search(facts.dialog_text))):
        return f'It confirms a dialog about paying, ordering or deleting ("{_clip(facts.dialog_text, 90)}")'
    pressed = submits or info.role.upper() == "BUTTON"  # not a link beside the heading or the total
    if pressed and facts.heading and is_critical_action(facts.heading):
        return f'It {verb} a {facts.scope or "form"} headed "{_clip(facts.heading, 90)}"'
    if pressed and not facts.quantities:
        amount = _AMOUNT_TO_PAY.search(facts.text)
        if amount:
            return f'It {verb} a {facts.scope or "form"} that shows an amount to pay ("{amount.group(0).strip()}")'
    if facts.destructive and _IRREVERSIBLE.search(facts.text):
        return "It is styled as a destructive action beside a warning that it cannot be undone"
    return ""


def _commits(info: ElementInfo, *, submits: bool, page_url: str = "") -> bool:
    """Whether acting on ``info`` carries out what its surroundings are for: a submit, a button, a
    clickable, or a link that only runs a script (no address of its own beyond ``page_url``)."""
    if submits:
        return True
    role = info.role.upper()
    if role in ("BUTTON", "CLICKABLE", "MENUITEM") or info.tag == "button":
        return True
    return role == "LINK" and _same_document(info.href, page_url)


def _posts_critically(action: str) -> bool:
    try:
        path = unquote(urlsplit(action).path)
    except ValueError:
        return False
    return bool(_POST_MARKERS.search(path))


def _payment_host(url: str) -> bool:
    host = _host(url)
    return bool(host) and any(host == h or host.endswith("." + h) for h in PAYMENT_HOSTS)


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").casefold()
    except ValueError:
        return ""


def _same_document(href: str, page_url: str) -> bool:
    """A link that goes nowhere of its own: none, ``#...`` on this page, or a ``javascript:`` address."""
    if not href or href.startswith("javascript:"):
        return True
    return "#" in href and href.split("#", 1)[0] == page_url.split("#", 1)[0]


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold().strip()


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
