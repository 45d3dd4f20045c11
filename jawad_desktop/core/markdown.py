"""Markdown to HTML for the chat view: CommonMark with tables, code highlighted by Pygments.

Raw HTML in a message is escaped (a model or a page must not inject markup). Each code block
gets a "Copy" link (``copy:N``) whose code ``code_blocks(text)[N]`` returns. The HTML uses
inline styles only, because Qt's rich-text engine ignores most CSS classes.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from pygments.formatters import HtmlFormatter


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    # Imported on first use: the window shows before any message needs rendering.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True}).enable("table")


def _lexer(lang: str, code: str):  # type: ignore[no-untyped-def]
    from pygments.lexers import get_lexer_by_name, guess_lexer
    from pygments.util import ClassNotFound

    try:
        if lang:
            return get_lexer_by_name(lang)
        return guess_lexer(code) if len(code) > 40 else get_lexer_by_name("text")
    except ClassNotFound:
        return get_lexer_by_name("text")


@lru_cache(maxsize=4)
def _formatter(dark: bool) -> HtmlFormatter:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(noclasses=True, nowrap=True, style="monokai" if dark else "friendly")


def code_blocks(text: str) -> list[str]:
    """The fenced and indented code blocks of ``text``, in order."""
    return [tok.content for tok in _markdown().parse(text) if tok.type in ("fence", "code_block")]


def render_markdown(text: str, *, dark: bool = False) -> str:
    """HTML for ``text``; code blocks highlighted and followed by a Copy link."""
    from pygments import highlight

    md = _markdown()
    tokens = md.parse(text)
    counter = 0
    bg = "#272822" if dark else "#f4f4f4"
    link = "#8ab4f8" if dark else "#1a5fb4"

    def fence(tokens_, idx, options, env):  # type: ignore[no-untyped-def]
        nonlocal counter
        tok = tokens_[idx]
        code = tok.content
        lang = (tok.info or "").strip().split(" ")[0]
        body = highlight(code, _lexer(lang, code), _formatter(dark))
        label = html.escape(lang) + " · " if lang else ""
        out = (
            f'<table width="100%" cellpadding="6" style="background:{bg}; margin:4px 0;"><tr><td>'
            f'<pre style="margin:0; font-family:monospace;">{body}</pre></td></tr>'
            f'<tr><td align="right" style="font-size:small;">{label}'
            f'<a href="copy:{counter}" style="color:{link};">Copy</a></td></tr></table>'
        )
        counter += 1
        return out

    renderer: Any = md.renderer
    saved = renderer.rules.get("fence"), renderer.rules.get("code_block")
    renderer.rules["fence"] = fence
    renderer.rules["code_block"] = fence
    try:
        return renderer.render(tokens, md.options, {})
    finally:
        renderer.rules["fence"], renderer.rules["code_block"] = saved
