"""JSON output: json_schema first in auto mode, falling back (and remembering) on 400/422."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reviewtui.errors import LLMBadRequestError
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.unit.llm.conftest import USER, MakeClient

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "string"}},
    "required": ["verdict"],
}
ANSWER = {"verdict": "ok"}


def _formats(server: ScriptedOpenAIServer) -> list[Any]:
    return [r.body.get("response_format") for r in server.requests]


def test_auto_sends_json_schema(fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.json(ANSWER))
    result = make_client().chat(USER, json_schema=SCHEMA, schema_name="review")
    assert json.loads(result.content) == ANSWER
    assert _formats(fake_llm) == [
        {"type": "json_schema", "json_schema": {"name": "review", "schema": SCHEMA}}]


def test_auto_falls_back_to_json_object_then_off_and_remembers(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(
        Reply.error(400, "response_format json_schema is not supported by this server"),
        Reply.error(400, "response_format type json_object is not supported"),
        Reply.json(ANSWER),
        Reply.json(ANSWER),
    )
    client = make_client()
    assert json.loads(client.chat(USER, json_schema=SCHEMA).content) == ANSWER
    assert _formats(fake_llm) == [
        {"type": "json_schema", "json_schema": {"name": "result", "schema": SCHEMA}},
        {"type": "json_object"},
        None,
    ]
    fake_llm.clear_requests()
    assert json.loads(client.chat(USER, json_schema=SCHEMA).content) == ANSWER
    assert _formats(fake_llm) == [None]  # no repeated failing attempts
    assert client.compat.format_index == 2


def test_422_with_an_unspecific_message_also_falls_back(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(422, "Unprocessable Entity"), Reply.json(ANSWER),
                    Reply.json(ANSWER))
    client = make_client()
    client.chat(USER, json_schema=SCHEMA, on_delta=lambda _: None)
    assert [f and f["type"] for f in _formats(fake_llm)] == ["json_schema", "json_object"]
    fake_llm.clear_requests()
    client.chat(USER, json_schema=SCHEMA)
    assert _formats(fake_llm) == [{"type": "json_object"}]


def test_callable_reply_sees_the_request(fake_llm: ScriptedOpenAIServer,
                                         make_client: MakeClient) -> None:
    def server(request: dict[str, Any]) -> Reply:
        if request.get("response_format", {}).get("type") == "json_schema":
            return Reply.error(400, "json_schema: unknown response_format type")
        return Reply.json({"format": request.get("response_format")})

    fake_llm.script(server, server)
    result = make_client().chat(USER, json_schema=SCHEMA)
    assert json.loads(result.content) == {"format": {"type": "json_object"}}


@pytest.mark.parametrize(("mode", "expected"), [
    ("json_schema", {"type": "json_schema", "json_schema": {"name": "result", "schema": SCHEMA}}),
    ("json_object", {"type": "json_object"}),
    ("off", None),
])
def test_explicit_modes(fake_llm: ScriptedOpenAIServer, make_client: MakeClient, mode: str,
                        expected: Any) -> None:
    fake_llm.script(Reply.json(ANSWER))
    make_client(json_mode=mode).chat(USER, json_schema=SCHEMA)
    assert _formats(fake_llm) == [expected]


def test_explicit_mode_does_not_fall_back(fake_llm: ScriptedOpenAIServer,
                                          make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(400, "response_format json_schema is not supported"))
    with pytest.raises(LLMBadRequestError, match="json_schema is not supported"):
        make_client(json_mode="json_schema").chat(USER, json_schema=SCHEMA)
    assert len(fake_llm.requests) == 1


def test_context_overflow_is_not_mistaken_for_a_format_problem(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(400, "This model's maximum context length is 8192 tokens.\n"
                                     "However, you requested 9000 tokens."))
    with pytest.raises(LLMBadRequestError) as caught:
        make_client().chat(USER, json_schema=SCHEMA)
    assert len(fake_llm.requests) == 1
    message = str(caught.value)
    assert "\n" not in message and "maximum context length is 8192 tokens" in message
    assert "HTTP 400" in message


def test_without_a_schema_no_response_format(fake_llm: ScriptedOpenAIServer,
                                             make_client: MakeClient) -> None:
    fake_llm.script(Reply.text("prose"))
    make_client().chat(USER)
    assert _formats(fake_llm) == [None]


def test_reasoning_model_parameters_are_adapted(fake_llm: ScriptedOpenAIServer,
                                                make_client: MakeClient) -> None:
    fake_llm.script(
        Reply.error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                         "Use 'max_completion_tokens' instead."),
        Reply.error(400, "Unsupported value: 'temperature' does not support 0.0 with this model."),
        Reply.text("ok"),
    )
    make_client().chat(USER)
    last = fake_llm.requests[-1].body
    assert "max_tokens" not in last and last["max_completion_tokens"] == 4096
    assert "temperature" not in last
