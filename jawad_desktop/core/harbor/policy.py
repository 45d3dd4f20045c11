"""Harbor's vocabulary and rules: permission levels, the user's five answers, and who may do
what, where (spec 001 checkPermission, updateHarborPolicyForDecision, isCriticalAction).

Pure logic, no I/O. Defaults: read-only actions run; navigation runs within the current site
and asks when it leaves it; interact and submit ask. A grant for a (site, tool) pair turns
"ask" into "auto-approve": site grants persist (``grants``), session grants end with the app.
Critical actions (buy, pay, place order, delete, transfer, subscribe, change a password ... in
many languages) always ask, whatever the grants; the browser inspector also finds them from
the page around a neutral label (``core/tools/browser/critical.py``). Deny-all refuses
everything that would ask until it is reset.
"""

from __future__ import annotations

import enum
import re
import time
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from jawad_desktop.core.sites import site_of

__all__ = [
    "Grant",
    "HarborPolicy",
    "PermissionDecision",
    "PermissionLevel",
    "Verdict",
    "check_permission",
    "is_critical_action",
    "is_sensitive_setting",
    "update_policy_for_decision",
]


class PermissionLevel(enum.StrEnum):
    """How much a tool can change, in increasing order (spec 001)."""

    READ_ONLY = "read-only"
    NAVIGATE = "navigate"
    INTERACT = "interact"
    SUBMIT = "submit"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {
    PermissionLevel.READ_ONLY: 0,
    PermissionLevel.NAVIGATE: 1,
    PermissionLevel.INTERACT: 2,
    PermissionLevel.SUBMIT: 3,
}


class PermissionDecision(enum.StrEnum):
    """The five answers a user can give to a permission request (spec 001)."""

    ALLOW_ONCE = "allow-once"
    ALLOW_SITE = "allow-site"
    ALLOW_SESSION = "allow-session"
    DENY = "deny"
    DENY_ALL = "deny-all"

    @property
    def allows(self) -> bool:
        return self in (self.ALLOW_ONCE, self.ALLOW_SITE, self.ALLOW_SESSION)


class Verdict(enum.StrEnum):
    """What checkPermission says about one call."""

    AUTO_APPROVE = "auto-approve"
    ASK = "ask"
    DENY = "deny"


@dataclass(frozen=True, slots=True)
class Grant:
    """A standing permission: ``tool`` may run on ``site`` without asking."""

    site: str
    tool: str
    level: str = ""
    granted_at: int = 0  # ms since the epoch
    scope: str = "site"  # "site" (persisted) or "session"

    @property
    def key(self) -> tuple[str, str]:
        return (self.site, self.tool)


@dataclass
class HarborPolicy:
    """The state Harbor decides from: grants, the levels allowed without asking, deny-all."""

    site_grants: dict[tuple[str, str], Grant] = field(default_factory=dict)
    session_grants: dict[tuple[str, str], Grant] = field(default_factory=dict)
    # Levels that run without asking anywhere. Read-only always does; the CLI's --allow adds more.
    auto_levels: set[PermissionLevel] = field(default_factory=lambda: {PermissionLevel.READ_ONLY})
    deny_all: bool = False

    def grant_for(self, site: str, tool: str) -> Grant | None:
        key = (site_of(site), tool)
        if not key[0]:
            return None  # no site (a local file, a data: page): nothing is granted there
        return self.session_grants.get(key) or self.site_grants.get(key)

    def all_grants(self) -> list[Grant]:
        return sorted([*self.site_grants.values(), *self.session_grants.values()],
                      key=lambda g: (g.site, g.tool, g.scope))


def check_permission(
    policy: HarborPolicy,
    tool: str,
    level: PermissionLevel | str,
    site: str,
    *,
    current_site: str = "",
    critical: bool = False,
) -> Verdict:
    """auto-approve, ask or deny for ``tool`` at ``level`` acting on ``site``.

    ``current_site`` is the site of the page the user is on (for navigation: staying on it runs,
    leaving it asks). ``critical`` (from :func:`is_critical_action`) forces a question.
    """
    level = PermissionLevel(level)
    site = site_of(site)
    if critical:
        return Verdict.DENY if policy.deny_all else Verdict.ASK
    if level is PermissionLevel.READ_ONLY or level in policy.auto_levels:
        return Verdict.AUTO_APPROVE
    if policy.grant_for(site, tool) is not None:
        return Verdict.AUTO_APPROVE
    if level is PermissionLevel.NAVIGATE and site and site == site_of(current_site):
        return Verdict.AUTO_APPROVE
    if policy.deny_all:
        return Verdict.DENY
    return Verdict.ASK


def update_policy_for_decision(
    policy: HarborPolicy, tool: str, site: str, decision: PermissionDecision | str, *, level: str = ""
) -> Grant | None:
    """Apply the user's answer to the policy; returns the grant it created, if any.

    allow-once: nothing is remembered. allow-site: ``tool`` on ``site`` is granted for good (the
    caller persists it). allow-session: the same until the app closes. deny: nothing is
    remembered. deny-all: everything that would ask is denied until ``policy.deny_all`` is reset.
    A page with no site (``""``: a local file, a ``data:`` page) is never granted: allow-site and
    allow-session count as allow-once there (one grant would cover every such page).
    """
    decision = PermissionDecision(decision)
    site = site_of(site)
    stamp = int(time.time() * 1000)
    if not site and decision in (PermissionDecision.ALLOW_SITE, PermissionDecision.ALLOW_SESSION):
        return None
    if decision is PermissionDecision.ALLOW_SITE:
        grant = Grant(site=site, tool=tool, level=level, granted_at=stamp, scope="site")
        policy.site_grants[grant.key] = grant
        return grant
    if decision is PermissionDecision.ALLOW_SESSION:
        grant = Grant(site=site, tool=tool, level=level, granted_at=stamp, scope="session")
        policy.session_grants[grant.key] = grant
        return grant
    if decision is PermissionDecision.DENY_ALL:
        policy.deny_all = True
    return None


# -- critical actions ---------------------------------------------------------------------------

# Words and phrases whose action spends money, deletes, moves funds or signs the user up.
# Latin-script entries match whole words; the others match as substrings.
_CRITICAL_PHRASES: tuple[str, ...] = (
    # English
    "buy", "buy now", "purchase", "pay", "pay now", "checkout", "check out", "place order", "place your order",
    "submit order", "complete order", "complete purchase", "confirm purchase", "confirm order", "confirm payment",
    "order now", "delete", "delete account", "remove account", "close account", "transfer", "send money",
    "wire transfer", "withdraw", "subscribe", "start subscription", "donate", "book now", "reserve now",
    "proceed to payment", "authorize payment", "upgrade now", "pay and subscribe", "complete payment",
    "confirm and pay", "cancel subscription", "cancel membership", "delete my account", "deactivate account",
    "change password", "update password", "change email", "change e-mail",
    # Access to the account or its work handed to someone: a member invited, a role given, a
    # credential made (WASP's goals: "add the attacker as Owner", "create a deploy token").
    "invite", "invite member", "invite members", "add member", "add members", "add collaborator",
    "transfer ownership", "make owner", "change role", "create token", "create deploy token",
    "create access token", "generate token", "generate new token", "create api key", "generate api key",
    "add ssh key", "add deploy key",
    # French
    "acheter", "payer", "commander", "passer la commande", "valider la commande", "confirmer l'achat",
    "supprimer", "virement", "transférer", "s'abonner", "abonnez-vous", "faire un don", "payer maintenant",
    "procéder au paiement", "confirmer le paiement", "supprimer le compte", "supprimer mon compte",
    "résilier l'abonnement", "changer le mot de passe", "modifier le mot de passe",
    # German
    "kaufen", "jetzt kaufen", "bezahlen", "zahlungspflichtig bestellen", "bestellen", "kauf bestätigen",
    "zur kasse", "löschen", "überweisen", "überweisung", "abonnieren", "jetzt bezahlen", "kostenpflichtig bestellen",
    "zahlung bestätigen", "konto löschen", "abo abschließen", "abo kündigen", "passwort ändern",
    # Spanish and Portuguese
    "comprar", "pagar", "realizar pedido", "confirmar pedido", "confirmar compra", "finalizar compra",
    "eliminar", "borrar", "transferir", "suscribirse", "suscribirme", "excluir", "assinar", "finalizar pedido",
    "pagar ahora", "tramitar pedido", "hacer pedido", "eliminar cuenta", "cambiar contraseña",
    "comprar agora", "pagar agora", "fazer pedido", "excluir conta", "inscrever-se", "alterar senha",
    # Italian and Dutch
    "acquista", "paga", "conferma ordine", "elimina", "trasferisci", "abbonati", "acquista ora", "paga ora",
    "procedi al pagamento", "effettua l'ordine", "conferma pagamento", "elimina account", "cambia password",
    "kopen", "nu kopen", "betalen", "bestelling plaatsen", "verwijderen", "overmaken", "abonneren", "afrekenen",
    "nu betalen", "account verwijderen", "wachtwoord wijzigen",
    # Polish
    "kup", "kup teraz", "kupuję", "zapłać", "płacę", "zamawiam", "zamów", "złóż zamówienie", "zamawiam i płacę",
    "przejdź do płatności", "usuń", "usuń konto", "przelew", "subskrybuj", "zasubskrybuj", "zmień hasło",
    # Turkish
    "satın al", "öde", "siparişi onayla", "sil", "abone ol",
    # Arabic
    "اشتر", "شراء", "ادفع", "الدفع", "إتمام الطلب", "تأكيد الطلب", "حذف", "تحويل", "اشترك",
    "اطلب الآن", "حذف الحساب", "تغيير كلمة المرور",
    # Russian
    "купить", "оплатить", "оформить заказ", "удалить", "перевести", "подписаться", "заказать",
    "подтвердить заказ", "удалить аккаунт", "оформить подписку", "изменить пароль", "сменить пароль",
    # Chinese, Japanese, Korean
    "购买", "立即购买", "支付", "付款", "提交订单", "删除", "转账", "订阅", "结账", "结算", "去结算", "下单",
    "确认支付", "注销账户", "修改密码",
    "購入", "今すぐ購入", "支払", "注文を確定", "削除", "送金", "登録する", "注文する", "注文確定",
    "レジに進む", "退会", "定期購入", "パスワードを変更",
    "구매", "결제", "주문하기", "삭제", "송금", "구독",
)

_URL_MARKERS = re.compile(
    r"(?:^|[/_\-.=?&])(checkout|payment|pay|purchase|place[-_]?order|order[-_]?confirm|confirm[-_]?order|"
    r"billing|transfer|delete|remove[-_]?account|subscribe|subscription|donate|kasse|paiement|pago)"
    r"(?:$|[/_\-.=?&])",
    re.IGNORECASE,
)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().replace("’", "'")


def _is_latin_word(phrase: str) -> bool:
    return all(ch.isascii() or (unicodedata.category(ch).startswith("L") and ord(ch) < 0x250) or not ch.isalpha()
               for ch in phrase)


_LATIN = [p for p in map(_fold, _CRITICAL_PHRASES) if _is_latin_word(p)]
_OTHER = [p for p in map(_fold, _CRITICAL_PHRASES) if not _is_latin_word(p)]
_LATIN_RE = re.compile(
    r"(?<![\w])(?:" + "|".join(re.escape(p) for p in sorted(_LATIN, key=len, reverse=True)) + r")(?![\w])"
)


def is_critical_action(button_text: str, url: str = "") -> bool:
    """Whether clicking ``button_text`` (going to ``url``) spends, deletes, transfers or subscribes.

    Such actions always ask, whatever the grants. ``url`` is where the action leads (a link's
    href, a form's action) or the page it happens on.
    """
    text = _fold(button_text or "")
    if text and (_LATIN_RE.search(text) or any(p in text for p in _OTHER)):
        return True
    if url:
        try:
            parts = urlsplit(url)
        except ValueError:
            return False
        # The path only: a search for "pay" (?q=pay) is not a payment.
        if _URL_MARKERS.search(unquote(parts.path)):
            return True
    return False


# -- privacy and security settings ----------------------------------------------------------------

# Settings that hand the user's data to others or weaken how the account is protected. Changing one
# the user did not ask about always asks (a page's hidden "turn on Share my data with partners").
_SENSITIVE_PHRASES: tuple[str, ...] = (
    # English
    "share my data", "share data", "data sharing", "share my information", "share my activity", "with partners",
    "third party", "third-party", "third parties", "make public", "make my profile public", "public profile",
    "visible to everyone", "anyone can see", "everyone can see", "two-factor", "two factor", "2-step", "two-step",
    "2fa", "multi-factor", "mfa", "recovery email", "recovery e-mail", "recovery phone", "forward all",
    "auto-forward", "automatic forwarding", "forwarding", "allow access", "grant access", "authorize app",
    "connected apps", "api key", "api keys", "access token", "share location", "location sharing",
    "personalized ads", "personalised ads", "ad personalization", "ad personalisation", "login alerts",
    "security alerts", "trusted device", "trusted devices", "remember this device", "sell my data",
    "sell my personal information",
    # French, German, Spanish, Portuguese, Italian, Dutch, Turkish
    "partager mes données", "avec nos partenaires", "avec des partenaires", "authentification à deux facteurs",
    "profil public", "daten teilen", "meine daten teilen", "weitergabe meiner daten", "mit partnern",
    "zwei-faktor", "öffentliches profil", "compartir mis datos", "con socios", "con terceros",
    "verificación en dos pasos", "perfil público", "compartilhar meus dados", "com parceiros",
    "condividi i miei dati", "con i partner", "verifica in due passaggi", "mijn gegevens delen",
    "tweestapsverificatie", "verilerimi paylaş", "iki adımlı",
    # Arabic, Russian, Chinese, Japanese, Korean
    "مشاركة بياناتي", "مشاركة البيانات", "مع الشركاء", "المصادقة الثنائية",
    "передавать мои данные", "с партнерами", "с партнёрами", "двухфакторн",
    "共享我的数据", "与合作伙伴", "双重验证", "两步验证", "公开个人资料",
    "データを共有", "パートナーと共有", "二段階認証", "데이터 공유", "파트너와 공유", "2단계 인증",
)
_SENSITIVE_LATIN = [p for p in map(_fold, _SENSITIVE_PHRASES) if _is_latin_word(p)]
_SENSITIVE_OTHER = [p for p in map(_fold, _SENSITIVE_PHRASES) if not _is_latin_word(p)]
_SENSITIVE_RE = re.compile(
    r"(?<![\w])(?:" + "|".join(re.escape(p) for p in sorted(_SENSITIVE_LATIN, key=len, reverse=True)) + r")(?![\w])"
)


def is_sensitive_setting(label: str) -> bool:
    """Whether a control labelled ``label`` shares the user's data with others or changes how the
    account is protected (data sharing, a public profile, two-factor sign-in, mail forwarding)."""
    text = _fold(label or "")
    return bool(text) and (bool(_SENSITIVE_RE.search(text)) or any(p in text for p in _SENSITIVE_OTHER))
