"""A loopback server answering the model-details endpoints providers document, for finding a
model's context window (``core.llm.context_window``).

One real HTTP/1.1 server on 127.0.0.1; each provider under its own path prefix, answering as
its documentation gives it:

- ``/openrouter/v1/models``: OpenRouter's model list, ``context_length`` per model;
- ``/ollama``: an Ollama with ``llama3.2:latest`` loaded with an 8,192-token context
  (``/api/ps`` ``context_length``); ``/ollama-idle``: nothing loaded, and ``/api/show`` (POST)
  gives ``tuned`` a ``num_ctx 16384`` parameter and ``plain`` only its trained
  ``llama.context_length`` (131,072);
- ``/llamacpp``: llama.cpp's server: ``/v1/models`` with ``meta.n_ctx_train`` 131,072 and
  ``/props`` with ``default_generation_settings.n_ctx`` 8,192 (what it runs with);
- ``/lmstudio``: LM Studio: ``/v1/models`` saying nothing of contexts, ``/api/v1/models``
  with ``qwen3-8b`` loaded at 4,096 tokens, ``/api/v0/models/{model}`` with
  ``max_context_length`` 32,768 (``gemma-3-4b`` is not loaded);
- ``/vllm/v1/models``: vLLM's list, ``max_model_len`` 32,768;
- ``/silent/v1/models``: a server whose list says nothing (everything else 404).

Every request is recorded in ``requests`` as (method, path).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_OPENROUTER = {"data": [
    {"id": "meta-llama/llama-3.1-8b-instruct", "name": "Meta: Llama 3.1 8B Instruct", "context_length": 131072,
     "architecture": {"modality": "text->text"}, "pricing": {"prompt": "0.00000002", "completion": "0.00000005"},
     "top_provider": {"context_length": 131072, "max_completion_tokens": 16384, "is_moderated": False}},
    {"id": "mistralai/mistral-7b-instruct", "name": "Mistral: Mistral 7B Instruct", "context_length": 32768,
     "top_provider": {"context_length": 32768, "max_completion_tokens": None, "is_moderated": False}},
]}
_OLLAMA_PS = {"models": [{
    "name": "llama3.2:latest", "model": "llama3.2:latest", "size": 3357226240,
    "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
    "details": {"format": "gguf", "family": "llama", "parameter_size": "3.2B", "quantization_level": "Q4_K_M"},
    "expires_at": "2099-01-01T00:00:00Z", "size_vram": 3357226240, "context_length": 8192,
}]}
_OLLAMA_SHOW = {
    "tuned": {"modelfile": "FROM llama3.2\nPARAMETER num_ctx 16384\n",
              "parameters": 'num_ctx                        16384\nstop                           "<|eot_id|>"',
              "template": "{{ .Prompt }}", "details": {"family": "llama"},
              "model_info": {"general.architecture": "llama", "llama.context_length": 131072}},
    "plain": {"modelfile": "FROM llama3.2\n", "parameters": 'stop                           "<|eot_id|>"',
              "template": "{{ .Prompt }}", "details": {"family": "llama"},
              "model_info": {"general.architecture": "llama", "llama.context_length": 131072,
                             "llama.embedding_length": 3072}},
}
_LLAMACPP_MODELS = {"object": "list", "data": [{
    "id": "model.gguf", "object": "model", "created": 1735000000, "owned_by": "llamacpp",
    "meta": {"vocab_type": 2, "n_vocab": 128256, "n_ctx_train": 131072, "n_embd": 3072,
             "n_params": 3212749888, "size": 1918024704},
}]}
_LLAMACPP_PROPS = {"default_generation_settings": {"n_ctx": 8192, "params": {"n_predict": -1}},
                   "total_slots": 1, "model_path": "/models/model.gguf", "chat_template": "..."}
_LMSTUDIO_V1 = {"models": [
    {"type": "llm", "key": "qwen3-8b", "display_name": "Qwen3 8B", "max_context_length": 32768,
     "loaded_instances": [{"id": "qwen3-8b", "config": {"context_length": 4096, "flash_attention": True}}]},
    {"type": "llm", "key": "gemma-3-4b", "display_name": "Gemma 3 4B", "max_context_length": 131072,
     "loaded_instances": []},
]}
_LMSTUDIO_V0 = {
    "qwen3-8b": {"id": "qwen3-8b", "object": "model", "type": "llm", "publisher": "lmstudio-community",
                 "arch": "qwen3", "compatibility_type": "gguf", "quantization": "Q4_K_M", "state": "loaded",
                 "max_context_length": 32768},
    "gemma-3-4b": {"id": "gemma-3-4b", "object": "model", "type": "llm", "publisher": "lmstudio-community",
                   "arch": "gemma3", "compatibility_type": "gguf", "quantization": "Q4_K_M",
                   "state": "not-loaded", "max_context_length": 131072},
}
_PLAIN_LIST = {"object": "list", "data": [{"id": "qwen3-8b", "object": "model", "owned_by": "organization_owner"},
                                          {"id": "gemma-3-4b", "object": "model", "owned_by": "organization_owner"},
                                          {"id": "mystery-model", "object": "model", "owned_by": "me"}]}
_VLLM = {"object": "list", "data": [{"id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "owned_by": "vllm",
                                     "root": "Qwen/Qwen2.5-7B-Instruct", "max_model_len": 32768}]}

_GET: dict[str, Any] = {
    "/openrouter/v1/models": _OPENROUTER,
    "/ollama/api/ps": _OLLAMA_PS,
    "/ollama-idle/api/ps": {"models": []},
    "/llamacpp/v1/models": _LLAMACPP_MODELS,
    "/llamacpp/props": _LLAMACPP_PROPS,
    "/lmstudio/v1/models": _PLAIN_LIST,
    "/lmstudio/api/v1/models": _LMSTUDIO_V1,
    "/vllm/v1/models": _VLLM,
    "/silent/v1/models": _PLAIN_LIST,
    **{f"/lmstudio/api/v0/models/{name}": body for name, body in _LMSTUDIO_V0.items()},
}


class ModelDetailsServer:
    """The server (see the module docstring); ``url(prefix)`` is where a provider lives."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                outer.requests.append(("GET", self.path))
                body = _GET.get(self.path.rstrip("/"))
                self._json(200, body) if body is not None else self._json(404, {"error": "not found"})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.requests.append(("POST", self.path))
                if self.path == "/ollama-idle/api/show":
                    asked = json.loads(raw or b"{}")
                    shown = _OLLAMA_SHOW.get(str(asked.get("model") or asked.get("name")).split(":")[0])
                    if shown is not None:
                        self._json(200, shown)
                        return
                    self._json(404, {"error": f"model '{asked.get('model')}' not found"})
                    return
                self._json(404, {"error": "not found"})

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="model-details", daemon=True)

    def url(self, prefix: str) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/{prefix}"

    def start(self) -> ModelDetailsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

