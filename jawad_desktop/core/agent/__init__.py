"""The agent: the loop that turns a request into tool calls and an answer.

It owns tool-call parsing and repair (native, XML and JSON formats), the sanitiser, the
conversation history with its token budget, the system prompt, slash commands and the
permission-gate interface. Public surface: see ``__all__`` of the submodules.
"""
