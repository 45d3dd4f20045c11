"""The LLM layer: one async client for every provider, its errors, retries and streaming.

- ``types``: StreamDelta, ToolCallFragment, ChatResponse, Usage (Message and ToolCall live
  in ``core.messages``; ProviderKind and ProviderConfig, what the user configures, in
  ``core.config.providers``; keys in the keyring)
- ``client``: LLMClient, ChatStream, RetryPolicy, forget_capabilities
- ``chat_api``: ChatCall and the public hooks a provider with another API overrides in its
  ``LLMClient`` subclass (request_body, chat_url, request_headers, response_for...)
- ``errors``: LLMError and its kinds (AuthError, RateLimitedError, ModelNotFoundError,
  BadRequestError, ToolsRejectedError, ServerError, NetworkError, LLMTimeoutError, ProtocolError,
  CancelledRequest)
- ``wire``: the OpenAI chat-completions format both ways (pure, property-tested)
- ``dialects``: ONE table of what each provider kind and model family wants in a request
  (max_completion_tokens, no temperature, reasoning effort, thinking budgets); the client
  applies it, then what a model refused before (``errors.parameter_refusal``, kept in
  ``ModelFactsStore``)
- ``connection``: test_connection, list_models (Settings); ``discovery``: discover_providers (first
  start, without the client)
- ``factory``: client_for / resolve_provider (saved, active or command-line provider)
- ``local_server``: the built-in llama.cpp server with the bundled SmolLM2 model or a chosen gguf
- ``catalog``, ``local_models``: the recommended GGUF models; downloading (``core.store.hub_download``),
  removing and choosing the one the local provider runs
- ``context_window``: each model's context window (the user's setting, what was learned, the
  provider's model details, a table of model families)
- ``providers``: make_client, the client class for each kind; the kinds with their own wire
  format: ``anthropic`` (Messages API), ``gemini``, ``responses`` (OpenAI Responses API,
  stateless), ``ollama_native`` (/api/chat; /api/tags and /api/pull), ``bedrock`` (Converse, SigV4 in ``sigv4``);
  ``formats`` holds what they share (tool definitions, alternating turns, typed-event streams)
- ``embeddings``: Embedder (single and batch; OpenAI, Gemini, Ollama)
- ``structured``: generate_structured (a validated pydantic object, with retries)
- ``context``: PromptContexts and ContextualClient (static and dynamic prompt context)

Nothing is imported here: importing one module must not pull in the client and every provider.
"""
