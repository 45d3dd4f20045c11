"""The Assistant: the one place an assistant is assembled, and what every face of the app drives.

The window, ``jawad ask`` (with and without ``--url``), ``jawad research`` and ``jawad
read-page`` all build an ``Assistant`` from the app context, optionally with a browser
``Page`` the tools act on. It assembles, once:

- the tools: the basic ones, the file tools (``read_attachment`` for the files attached to a
  message, ``search_documents`` over the user's document library, ``core.tools.files``), the
  browser tools when there is a page, and the MCP servers' tools (``connect_mcp``; a name a
  built-in tool already uses is prefixed and reported); their prompts run as slash commands
  (``/<prompt> arguments``), their resources attach to a message (``read_mcp_resource``), and a
  server's request for the model (sampling) passes the same gate as every action;
- Harbor with the user's site grants, and the one permission gate (``HarborGate``) that
  inspects browser actions on the page and asks through the bus, or denies when nobody can
  be asked;
- the agent session (``AgentSession``), on the client for the active provider (rebuilt when
  the provider changes) or on the client it was given;
- the recorder that saves every turn from the events (when saving is on);
- research (``plan_research``, ``research_executor``) on the same tools, gate and page.

It offers what a user does: ``send``, ``stop``, ``new_chat``, ``open_conversation``,
``regenerate``, ``edit_last``, ``read_page``; and ``speculate`` for conversation mode: an answer
started before the user has surely finished speaking, held back (nothing shown, saved or acted
on) until it is committed, and dropped without a trace when the user goes on. Everything it does is announced on the bus
(``ctx.bus``): turns, deltas, action-log entries, permission requests and their settling,
conversation changes, notices. It imports nothing of Qt.

Modules: ``assistant`` (the ``Assistant``), ``mcp_use`` (the MCP servers' prompts and resources),
``speculation`` (conversation mode's answer started ahead).
"""

from jawad_desktop.core.assistant.assistant import Assistant, OpenedConversation
from jawad_desktop.core.assistant.speculation import Speculation

__all__ = ["Assistant", "OpenedConversation", "Speculation"]
