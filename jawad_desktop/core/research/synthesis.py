"""The final answer of a research: the model combines the steps' results, and the citations are
the pages the steps actually read, numbered by Jawad, never addresses the model wrote.

The model is given the numbered list of visited pages and asked to cite them as ``[n]``. Its
answer is then cleaned: markers that point nowhere are dropped, links and bare addresses to
pages no step read are removed (the link text stays), and a "Sources" list built from the
visited pages (title and URL as the read tools returned them) is appended.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from jawad_desktop.core.messages import Message
from jawad_desktop.core.research.plan import ResearchPlan, Source, StepStatus

log = logging.getLogger("jawad.research")

RESULT_CHARS = 2_500  # of one step's result, in the synthesis prompt

_MARKER = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_MD_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
_BARE_URL = re.compile(r"(?<![(\w])https?://[^\s)\]>\"']+")


def synthesis_messages(plan: ResearchPlan, sources: list[Source]) -> list[Message]:
    """The request for the final answer: the intent, each step's outcome, the numbered pages."""
    system = (
        "You write the final answer of a research Jawad did in a web browser. Use only the step results "
        "below; do not add facts from memory. Answer the user's intent directly and concisely (a short "
        "comparison table or a few bullet points when it helps). Cite the pages you rely on with their "
        "number in square brackets, e.g. [1] or [2, 3]; use only the numbers listed and never write URLs. "
        "If a step failed or found nothing, say what is missing."
    )
    lines = [f"Research intent: {plan.intent}", "", "Step results:"]
    for number, step in enumerate(plan.steps, 1):
        result = step.result.strip() or "(no result)"
        if len(result) > RESULT_CHARS:
            result = result[:RESULT_CHARS] + " […]"
        where = f" (site: {step.site})" if step.site else ""
        pages = ", ".join(f"[{sources.index(s) + 1}]" for s in step.sources if s in sources)
        read = f" Pages read: {pages}." if pages else ""
        lines.append(f"{number}. {step.task}{where} — {step.status.value}.{read}\n   {result}")
    lines += ["", "Pages visited:"]
    lines += [f"[{i}] {s.title or '(untitled)'} — {s.url}" for i, s in enumerate(sources, 1)] or ["(none)"]
    return [Message(role="system", content=system), Message(role="user", content="\n".join(lines))]


def clean_answer(text: str, sources: list[Source]) -> str:
    """The model's answer with citations that point nowhere and addresses nobody visited removed."""
    visited = {_norm(s.url) for s in sources}

    def marker(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        kept = [n for n in numbers if 1 <= n <= len(sources)]
        return f"[{', '.join(str(n) for n in kept)}]" if kept else ""

    def link(match: re.Match[str]) -> str:
        if _norm(match.group(2)) in visited:
            return match.group(0)
        log.info("dropped a link to a page no step visited: %s", match.group(2))
        return match.group(1)

    def bare(match: re.Match[str]) -> str:
        url = match.group(0).rstrip(".,;:")
        if _norm(url) in visited:
            return match.group(0)
        log.info("dropped an address no step visited: %s", url)
        return match.group(0)[len(url):]

    text = _MD_LINK.sub(link, text)
    text = _BARE_URL.sub(bare, text)
    text = _MARKER.sub(marker, text)
    return re.sub(r"[ \t]+\n", "\n", re.sub(r"[ \t]{2,}", " ", text)).strip()


def sources_block(sources: Iterable[Source]) -> str:
    items = [f"[{i}] {s.title or s.url} — {s.url}" for i, s in enumerate(sources, 1)]
    return "Sources:\n" + "\n".join(items) if items else ""


def with_sources(answer: str, sources: list[Source]) -> str:
    block = sources_block(sources)
    return f"{answer.rstrip()}\n\n{block}" if block else answer


def fallback_answer(plan: ResearchPlan, reason: str) -> str:
    """What the user gets when the summary cannot be written: the steps' own results."""
    lines = [f"The final summary could not be written ({reason}). What the steps found:"]
    for step in plan.steps:
        if step.status is StepStatus.COMPLETED and step.result.strip():
            lines.append(f"- {step.task}: {' '.join(step.result.split())[:500]}")
    return "\n".join(lines)


def _norm(url: str) -> str:
    return url.strip().split("#", 1)[0].rstrip("/").lower()
