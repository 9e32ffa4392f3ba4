"""Plain answers, streaming and tool calls — the real SDK against the scripted server."""

from __future__ import annotations

import json
import threading

import pytest

from reviewtui.errors import LLMCancelledError
from reviewtui.llm import ChatResult, ToolCall, Usage
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.unit.llm.conftest import READ_FILE_TOOL, USER, MakeClient


def test_plain_answer(fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.text("Looks good.", usage={"prompt_tokens": 12,
                                                     "completion_tokens": 3}))
    result = make_client().chat(USER)
    assert result == ChatResult(content="Looks good.", tool_calls=(), finish_reason="stop",
                                usage=Usage(12, 3), model="test-model")
    [request] = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert request.header("authorization") == "Bearer test-key"
    body = request.body
    assert body["model"] == "test-model"
    assert body["messages"] == USER
    assert body["max_tokens"] == 4096 and body["temperature"] == 0.0
    assert "stream" not in body and "response_format" not in body and "tools" not in body


def test_max_tokens_and_temperature(fake_llm: ScriptedOpenAIServer,
                                    make_client: MakeClient) -> None:
    fake_llm.script(Reply.text("a"), Reply.text("b"))
    make_client(temperature=None).chat(USER, max_tokens=100)
    make_client(temperature=0.7, max_output_tokens=500).chat(USER)
    first, second = (r.body for r in fake_llm.requests)
    assert first["max_tokens"] == 100 and "temperature" not in first
    assert second["max_tokens"] == 500 and second["temperature"] == 0.7


def test_cached_tokens_are_read(fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    usage = {"prompt_tokens": 100, "completion_tokens": 5,
             "prompt_tokens_details": {"cached_tokens": 64}}
    fake_llm.script(Reply.text("ok", usage=usage))
    assert make_client().chat(USER).usage == Usage(100, 5, 64)


def test_streaming_deltas_in_order(fake_llm: ScriptedOpenAIServer,
                                   make_client: MakeClient) -> None:
    pieces = ["The ", "change ", "looks ", "fine", "."]
    fake_llm.script(Reply.text("".join(pieces), chunks=pieces,
                               usage={"prompt_tokens": 7, "completion_tokens": 5}))
    deltas: list[str] = []
    result = make_client().chat(USER, on_delta=deltas.append)
    assert deltas == pieces
    assert result.content == "".join(deltas) == "The change looks fine."
    assert result.usage == Usage(7, 5)
    assert result.finish_reason == "stop"
    body = fake_llm.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


def test_stream_options_rejected_then_dropped_and_remembered(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(400, "Unrecognized request argument supplied: stream_options"),
                    Reply.text("first"), Reply.text("second"))
    client = make_client()
    assert client.chat(USER, on_delta=lambda _: None).content == "first"
    assert client.chat(USER, on_delta=lambda _: None).content == "second"
    sent = [r.body for r in fake_llm.requests]
    assert "stream_options" in sent[0]
    assert "stream_options" not in sent[1] and "stream_options" not in sent[2]
    assert all(body["stream"] is True for body in sent)


def test_tool_calls_non_streaming(fake_llm: ScriptedOpenAIServer,
                                  make_client: MakeClient) -> None:
    fake_llm.script(Reply.tool_calls([
        {"id": "call_a", "name": "read_file", "arguments": {"path": "src/app.py"}},
        {"id": "call_b", "name": "read_file", "arguments": '{"path": "README.md"}'},
    ]))
    result = make_client().chat(USER, tools=[READ_FILE_TOOL])
    assert result.tool_calls == (
        ToolCall("call_a", "read_file", '{"path": "src/app.py"}'),
        ToolCall("call_b", "read_file", '{"path": "README.md"}'),
    )
    assert result.finish_reason == "tool_calls"
    assert fake_llm.requests[0].body["tools"] == [READ_FILE_TOOL]


def test_tool_calls_streamed_in_fragments(fake_llm: ScriptedOpenAIServer,
                                          make_client: MakeClient) -> None:
    arguments = {"path": "src/reviewtui/llm/client.py", "start": 10, "end": 80}
    fake_llm.script(Reply.tool_calls([
        {"id": "call_1", "name": "read_file", "arguments": arguments},
        {"id": "call_2", "name": "search", "arguments": {"query": "LLMClient("}},
    ], content="Let me look.", arg_chunk=4))
    deltas: list[str] = []
    result = make_client().chat(USER, tools=[READ_FILE_TOOL], on_delta=deltas.append)
    assert [call.id for call in result.tool_calls] == ["call_1", "call_2"]
    assert [call.name for call in result.tool_calls] == ["read_file", "search"]
    assert json.loads(result.tool_calls[0].arguments) == arguments
    assert json.loads(result.tool_calls[1].arguments) == {"query": "LLMClient("}
    assert "".join(deltas) == result.content == "Let me look."


def test_cancel_mid_stream(fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.text("one two three four five six"), Reply.text("after"))
    cancel = threading.Event()
    deltas: list[str] = []

    def on_delta(text: str) -> None:
        deltas.append(text)
        cancel.set()

    client = make_client()
    with pytest.raises(LLMCancelledError):
        client.chat(USER, on_delta=on_delta, cancel=cancel)
    assert deltas == ["one"]
    assert client.chat(USER).content == "after"  # the client is still usable


def test_cancel_before_sending_sends_nothing(fake_llm: ScriptedOpenAIServer,
                                             make_client: MakeClient) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LLMCancelledError, match="cancelled"):
        make_client().chat(USER, cancel=cancel)
    assert fake_llm.requests == []


def test_no_key_sends_the_placeholder(fake_llm: ScriptedOpenAIServer, make_client: MakeClient,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    fake_llm.script(Reply.text("local model says hi"))
    client = make_client()
    assert not client.config.has_api_key
    assert client.chat(USER).content == "local model says hi"
    assert fake_llm.requests[0].header("authorization") == "Bearer not-needed"


def test_concurrent_calls_from_threads(fake_llm: ScriptedOpenAIServer,
                                       make_client: MakeClient) -> None:
    fake_llm.script(*(Reply.text(f"answer {n}") for n in range(6)))
    client = make_client()
    results: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        content = client.chat(USER).content
        with lock:
            results.append(content)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(results) == [f"answer {n}" for n in range(6)]
