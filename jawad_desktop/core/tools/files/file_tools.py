"""The tools over the user's files: ``read_attachment`` and ``search_documents`` (both read-only).

- ``read_attachment(name, part)``: a part (a PDF's page) of a file attached in this conversation
  that did not fit in the message (``attachments``); the conversation's files are in the tool
  context's ``extras["attachments"]`` (an ``AttachedFiles``).
- ``search_documents(query, limit)``: the pages of the document library (``library``; the tool
  context's ``extras["library"]``) that match, each with its file and page, so the answer can cite
  "report.pdf, page 3".

``hidden_file_tools(extras)`` names the ones with nothing to work on (no attachment, an empty
library): the agent does not offer those to the model.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from jawad_desktop.core.tools.files.attachments import AttachedFiles, render_parts
from jawad_desktop.core.tools.files.library import DocumentLibrary
from jawad_desktop.core.tools.registry import ToolError, ToolRegistry
from jawad_desktop.core.tools.tool_context import ToolContext
from jawad_desktop.core.tools.untrusted import wrap_untrusted

__all__ = ["READ_ATTACHMENT", "SEARCH_DOCUMENTS", "files_registry", "hidden_file_tools"]

READ_ATTACHMENT = "read_attachment"
SEARCH_DOCUMENTS = "search_documents"


def hidden_file_tools(extras: dict[str, Any]) -> set[str]:
    """The file tools that have nothing to work on now, so they are not offered."""
    hidden: set[str] = set()
    attached = extras.get("attachments")
    if not isinstance(attached, AttachedFiles) or not attached:
        hidden.add(READ_ATTACHMENT)
    library = extras.get("library")
    if not isinstance(library, DocumentLibrary) or not library.sources:
        hidden.add(SEARCH_DOCUMENTS)
    return hidden


# Where what these tools read comes from, for the data-flow record (``core.harbor.dataflow``): the
# user's files are no website, so what was read in them is taint for every site it would go to.
FILES_SITE = "your files"


def _files_site(ctx: ToolContext, args: object) -> str:
    return FILES_SITE


def files_registry() -> ToolRegistry:
    """A new registry holding ``read_attachment`` and ``search_documents``."""
    registry = ToolRegistry()

    @registry.tool(name=READ_ATTACHMENT, aliases=("read_file_part", "read_attached_file"), site=_files_site)
    def read_attachment(
        ctx: ToolContext,
        name: Annotated[str, Field(description="The attached file's name, as the message lists it")],
        part: Annotated[int, Field(ge=1, description="The page (PDF) or part number to start from")] = 1,
    ) -> str:
        """Read more of a file the user attached: the pages or parts that did not fit in the message."""
        attached = ctx.extras.get("attachments")
        file = attached.get(name) if isinstance(attached, AttachedFiles) else None
        if file is None:
            known = ", ".join(attached.files) if isinstance(attached, AttachedFiles) and attached.files else "none"
            raise ToolError(f"no attached file is called '{name}' (attached: {known})")
        rest = [p for p in file.parts if p.number >= part]
        if not rest:
            last = file.parts[-1].number if file.parts else 0
            raise ToolError(f"{name} has no part {part} (its parts go from 1 to {last})")
        budget = ctx.result_chars_for("\n".join(p.text for p in rest[:50])) or 8_000
        body, shown = render_parts(name, rest, budget - 400)
        after = rest[shown:]
        more = (f"\n[{len(after)} more parts; call read_attachment with part {after[0].number} to go on.]"
                if after else "\n[This is the end of the file.]")
        return wrap_untrusted(body, f"file {name}") + more

    @registry.tool(name=SEARCH_DOCUMENTS, aliases=("search_library", "search_files", "document_search"),
                   site=_files_site)
    async def search_documents(
        ctx: ToolContext,
        query: Annotated[str, Field(description="Words to look for in the user's documents")],
        limit: Annotated[int, Field(ge=1, le=20, description="How many pages to return")] = 5,
    ) -> str:
        """Search the user's document library (their own folders and files) for pages about a topic.
        Each result names its file and page: cite them in the answer as (file, page N)."""
        library = ctx.extras.get("library")
        if not isinstance(library, DocumentLibrary) or not library.sources:
            raise ToolError("the user has no document library; answer without it")
        await library.refresh()
        within = tuple(ctx.extras.get("library_scope") or ())  # a project's folders: only its files
        hits = await library.search(query, limit, within=within)
        if not hits:
            return f"No page of the user's documents matches '{query}'. Try other or fewer words."
        lines = [f"{i}. ({hit.citation()}) {hit.snippet}" for i, hit in enumerate(hits, 1)]
        body = "\n".join(lines)
        return (wrap_untrusted(body, "the user's document library")
                + "\nCite what you use as (file, page N), as each result is labelled.")

    return registry
