"""The LLM layer: one async client for every provider, its errors, retries and streaming."""
