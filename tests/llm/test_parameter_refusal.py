"""Recognising a 400 that names a request parameter the model refuses, in the words OpenAI,
gateways (LiteLLM, OpenRouter, Azure and others), Anthropic, Bedrock and Gemini use; and
never mistaking it for a tools rejection, nor a tools rejection for it."""

from __future__ import annotations

import json

import pytest

from jawad_desktop.core.llm.errors import ParameterRefusal, error_text_from_body, parameter_refusal
from jawad_desktop.core.llm.wire import is_tools_rejection
from tests.servers import openai_rules

MAX_TOKENS = {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                   "Use 'max_completion_tokens' instead.", "type": "invalid_request_error",
                        "param": "max_tokens", "code": "unsupported_parameter"}}
TEMPERATURE = {"error": {"message": "Unsupported value: 'temperature' does not support 0.3 with this model. "
                                    "Only the default (1) value is supported.", "type": "invalid_request_error",
                         "param": "temperature", "code": "unsupported_value"}}
RENAME = ParameterRefusal("max_tokens", "max_completion_tokens")
DROP_VALUE = ParameterRefusal("temperature", value="0.3")

CASES: list[tuple[str, object, ParameterRefusal]] = [
    ("openai max_tokens", MAX_TOKENS, RENAME),
    ("openai temperature", TEMPERATURE, DROP_VALUE),
    ("litellm proxy", openai_rules.wrap(MAX_TOKENS, "litellm"), RENAME),
    ("litellm proxy, value", openai_rules.wrap(TEMPERATURE, "litellm"), DROP_VALUE),
    ("openrouter raw", openai_rules.wrap(MAX_TOKENS, "openrouter"), RENAME),
    ("openrouter raw, value", openai_rules.wrap(TEMPERATURE, "openrouter"), DROP_VALUE),
    # OpenRouter passing o1-pro's refusal on with code null (RooCode issue #3725)
    ("openrouter code null", {"error": {"message": "Unsupported parameter: 'temperature' is not supported with "
                                        "this model.", "type": "invalid_request_error", "param": "temperature",
                              "code": None}}, ParameterRefusal("temperature")),
    # a gateway carrying OpenAI's body as text in a field of its own
    ("wrapped as text", {"error": {"cause": json.dumps(TEMPERATURE, indent=1), "code": 400,
                                   "message": "model call failed", "status": "FAILED_RESPONSE"}}, DROP_VALUE),
    ("plain text", "400 Unsupported parameter: 'temperature' is not supported with this model. (request id: 1)",
     ParameterRefusal("temperature")),
    ("gpt-5.1 effort", {"error": {"message": "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' "
                                             "model. Supported values are: 'none', 'low', 'medium', and 'high'.",
                                  "type": "invalid_request_error", "param": "reasoning.effort",
                                  "code": "unsupported_value"}}, ParameterRefusal("reasoning.effort", value="minimal")),
    ("effort value, text only", "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model.",
     ParameterRefusal("", value="minimal")),
    ("o-series effort", {"error": {"message": "Unsupported value: 'reasoning_effort' does not support 'minimal' "
                                              "with this model. Supported values are: 'low', 'medium', and 'high'.",
                                   "type": "invalid_request_error", "param": "reasoning_effort",
                                   "code": "unsupported_value"}},
     ParameterRefusal("reasoning_effort", value="minimal")),
    # function tools with reasoning_effort: the parameter named is reasoning_effort, not tools
    ("param with tools in the words", {"error": {
        "message": "Function tools with reasoning_effort are not supported for gpt-5.6-luna in /v1/chat/completions.",
        "type": "invalid_request_error", "param": "reasoning_effort", "code": None}},
     ParameterRefusal("reasoning_effort")),
    ("litellm drop_params", "litellm.UnsupportedParamsError: openai does not support parameters: ['temperature'], "
                            "for model=o1. To drop these, set `litellm.drop_params=True`",
     ParameterRefusal("temperature")),
    ("anthropic", {"type": "error", "error": {"type": "invalid_request_error",
                                              "message": "`temperature` is deprecated for this model."}},
     ParameterRefusal("temperature")),
    ("bedrock", {"message": "This model doesn't support the temperature field. Remove temperature and try again."},
     ParameterRefusal("temperature")),
    ("moonshot", {"error": {"message": "invalid temperature: only 1 is allowed for this model",
                            "type": "invalid_request_error"}}, ParameterRefusal("temperature")),
    ("gemini level", {"error": {"code": 400, "message": "Thinking level is not supported for this model.",
                                "status": "INVALID_ARGUMENT"}}, ParameterRefusal("thinking_level")),
    ("gemini budget", {"error": {"code": 400, "message": "Budget 0 is invalid. This model only works in thinking "
                                                         "mode.", "status": "INVALID_ARGUMENT"}},
     ParameterRefusal("thinking_budget")),
    ("gemini budget 2", {"error": {"message": json.dumps({"error": {"code": 400, "message":
                                   "The thinking budget (52428) is invalid.", "status": "INVALID_ARGUMENT"}}),
                                   "code": 400, "status": "Bad Request"}}, ParameterRefusal("thinking_budget")),
]

TOOLS_REJECTIONS: list[tuple[int, object]] = [
    (400, {"error": {"message": "tools is not supported in this model.", "type": "invalid_request_error",
                     "param": "tools"}}),
    (400, {"error": "registry.ollama.ai/library/llama2:latest does not support tools"}),
    (400, {"error": {"message": "Unsupported parameter: 'tools' is not supported with this model.",
                     "type": "invalid_request_error", "param": "tools", "code": "unsupported_parameter"}}),
    (400, {"error": {"message": "'tool_choice' is not supported with this model.", "param": "tool_choice"}}),
    (422, {"detail": [{"loc": ["body", "tools"], "msg": "Extra inputs are not permitted", "type": "extra_forbidden"}]}),
    (404, {"error": {"message": "No endpoints found that support tool use.", "code": 404}}),
]


def _text(body: object) -> str:
    return body if isinstance(body, str) else json.dumps(body)


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_refused_parameter_is_named(body: object, expected: ParameterRefusal) -> None:
    assert parameter_refusal(400, _text(body)) == expected


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_refused_parameter_is_no_tools_rejection(body: object, expected: ParameterRefusal) -> None:
    text = _text(body)
    assert not is_tools_rejection(400, text)
    if expected.param != "reasoning_effort" or "Function tools" not in text:
        # (That one's words alone speak of tools: only its "param" says which to drop, and
        # the client reads the whole body first.)
        assert not is_tools_rejection(400, error_text_from_body(text))


@pytest.mark.parametrize(("status", "body"), TOOLS_REJECTIONS)
def test_a_tools_rejection_is_no_parameter_refusal(status: int, body: object) -> None:
    text = _text(body)
    assert is_tools_rejection(status, error_text_from_body(text))
    assert parameter_refusal(status, text) is None


@pytest.mark.parametrize("body", [
    {"error": {"message": "This model's maximum context length is 128000 tokens.", "type": "invalid_request_error",
               "param": "messages", "code": "context_length_exceeded"}},
    {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "param": None,
               "code": "invalid_api_key"}},
    {"error": {"message": "litellm.BadRequestError: You passed in model=None.", "type": "None", "param": "None",
               "code": "400"}},
    "context length exceeded",
])
def test_other_bad_requests_are_neither(body: object) -> None:
    assert parameter_refusal(400, _text(body)) is None


def test_only_a_bad_request_is_a_refusal() -> None:
    text = json.dumps(MAX_TOKENS)
    assert parameter_refusal(400, text) is not None and parameter_refusal(422, text) is not None
    for status in (401, 404, 429, 500):
        assert parameter_refusal(status, text) is None
