"""The agent: the loop that turns a request into tool calls and an answer.

Modules, each owning one thing:

- ``session``: ``AgentSession``, the loop the window and ``jawad ask`` drive
  (``await session.run(text)``, ``session.stop()``, ``session.clear()``), and the events it
  emits (ChatDelta, AgentStep, ActionLogUpdate, Notice, ChatResponse).
- ``permissions``: the ``PermissionGate`` protocol awaited before every call, the five
  ``PermissionDecision``s, ``LevelPolicyGate`` (the default policy) and ``PermissionAsker``
  (PERMISSION_REQUEST on the bus, answered with ``answer(id, decision)``).
- ``toolcalls``: repair and validation of calls (``check_calls``) with feedback for the model.
- ``textcalls``: calls written as XML or as the JSON contract, ``clean_response`` and
  ``StreamSanitizer`` so the user never sees tool markup.
- ``history``: ``ConversationHistory`` (100 messages, token budget, calls kept with results).
- ``budget``: ``ContextBudget``, the shares of a model's context window (answer, history, page
  text, tool results).
- ``probe``: the tool-calling test (native, XML, JSON or none), learned for each model.
- ``prompts``: the system prompt, the tool table and the untrusted page context.
- ``commands``: /tools, /clear, /summarize, /help.

Nothing here imports Qt; the tools themselves live in ``core.tools``.
"""
