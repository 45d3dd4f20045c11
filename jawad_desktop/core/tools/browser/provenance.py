"""Where text came from: the page or the user.

Page text is data, never instructions: ``wrap_untrusted`` (``core.tools.untrusted``) fences it for the model,
``find_injections`` flags sentences of it that speak to an AI assistant, and ``said_by_user``
and ``carries_page_data`` tell Harbor's inspector whether an action's target, its text or the
URL it opens comes from what the user asked or from the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote_plus, urlsplit

from jawad_desktop.core.lazy_pattern import LazyPattern
from jawad_desktop.core.tools.untrusted import wrap_untrusted

__all__ = ["carries_page_data", "find_injections", "said_by_user", "wrap_untrusted"]


# -- prompt injection -----------------------------------------------------------------------------

_INJECTION_PATTERNS = [
    r"ignore (?:all |any |your |the )?(?:previous |prior |above |earlier )?(?:instructions|prompts?|rules)",
    r"disregard (?:all |your |the )?(?:previous |prior |above )?(?:instructions|rules)",
    r"(?:you are|act as) (?:now )?(?:an? )?(?:ai|assistant|chatbot|language model)\b",
    r"\b(?:ai|llm) (?:assistant|agent)s?\s*[:,]",
    r"system prompt", r"new instructions\s*:", r"\bjailbreak", r"do not tell the user",
    r"(?:send|email|forward|post) (?:the |this )?user'?s? (?:email|password|data|address|card|details)",
]
_INJECTION_RE = LazyPattern("|".join(f"(?:{p})" for p in _INJECTION_PATTERNS), re.IGNORECASE)


def find_injections(text: str, limit: int = 3) -> list[str]:
    """Sentences of page text that look like instructions aimed at an AI assistant."""
    found: list[str] = []
    for match in _INJECTION_RE.finditer(text):
        start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
        end_candidates = [i for i in (text.find(".", match.end()), text.find("\n", match.end())) if i >= 0]
        end = min(end_candidates) + 1 if end_candidates else len(text)
        sentence = " ".join(text[start:end].split())[:240]
        if sentence and sentence not in found:
            found.append(sentence)
        if len(found) >= limit:
            break
    return found


# -- provenance -----------------------------------------------------------------------------------

_STOP = {"the", "and", "for", "with", "this", "that", "you", "your", "now", "a", "an", "to", "of", "on", "in",
         "it", "me", "my", "please", "click", "button", "link"}


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[\w@.+-]{2,}", text.casefold()) if w not in _STOP]


def said_by_user(fragment: str, user_texts: Iterable[str]) -> bool:
    """Whether ``fragment`` (a label, a text to type) comes from what the user said."""
    fragment = " ".join(fragment.split()).casefold()
    if not fragment:
        return True
    said = " ".join(" ".join(t.split()) for t in user_texts).casefold()
    if fragment in said:
        return True
    words = _words(fragment)
    if not words:
        return False
    spoken = set(_words(said))
    hits = sum(1 for w in words if w in spoken or any(s.startswith(w[:4]) for s in spoken if len(w) >= 5))
    return hits / len(words) >= 0.5


def carries_page_data(url: str, page_text: str, user_texts: Iterable[str]) -> bool:
    """Whether a URL would carry text from the page (and not from the user) to its site."""
    parts = urlsplit(url)
    tokens = _tokens(unquote_plus(parts.path + " " + parts.query))
    page = " ".join(_tokens(page_text))
    if not page or not tokens:
        return False
    said = " ".join(_tokens(" ".join(user_texts)))
    for token in tokens:  # an address or a long number is data on its own
        if ("@" in token or (token.isdigit() and len(token) >= 6)) and token in page and token not in said:
            return True
    for i in range(len(tokens) - 3):  # four words in a row, as the page has them
        phrase = " ".join(tokens[i:i + 4])
        if phrase in page and phrase not in said:
            return True
    return False


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w@.+-]+", text.casefold())
