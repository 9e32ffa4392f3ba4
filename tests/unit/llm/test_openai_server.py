"""The scripted server itself, spoken to with plain urllib (no SDK in between)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

from tests.support.openai_server import Reply, ScriptedOpenAIServer

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **(headers or {})})
    try:
        with _OPENER.open(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_fixture_sets_the_environment(fake_llm: ScriptedOpenAIServer) -> None:
    assert os.environ["REVIEWTUI_MODEL"] == "test-model"
    assert os.environ["OPENAI_BASE_URL"] == fake_llm.base_url
    assert fake_llm.base_url.startswith("http://127.0.0.1:") and fake_llm.base_url.endswith("/v1")
    assert os.environ["OPENAI_API_KEY"] == "test-key"


def test_models_and_requests_are_recorded(fake_llm: ScriptedOpenAIServer) -> None:
    with _OPENER.open(fake_llm.base_url + "/models", timeout=5) as response:
        assert [m["id"] for m in json.load(response)["data"]] == ["test-model"]
    fake_llm.script(Reply.text("hi"))
    status, _ = _post(fake_llm.base_url + "/chat/completions",
                      {"model": "m", "messages": [{"role": "user", "content": "x"}]})
    assert status == 200
    get, post = fake_llm.requests
    assert (get.method, get.path, post.method, post.path) == (
        "GET", "/v1/models", "POST", "/v1/chat/completions")
    assert post.header("Authorization") is None
    assert post.body["model"] == "m"
    assert fake_llm.chat_requests == [post]


def test_sse_stream_format(fake_llm: ScriptedOpenAIServer) -> None:
    fake_llm.script(Reply.text("a b", usage={"prompt_tokens": 1, "completion_tokens": 2}))
    status, raw = _post(fake_llm.base_url + "/chat/completions",
                        {"model": "m", "messages": [], "stream": True,
                         "stream_options": {"include_usage": True}})
    assert status == 200
    events = [line[len("data: "):] for line in raw.decode().split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(event) for event in events[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks
                   if c["choices"]) == "a b"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 3


def test_exhausted_script_answers_500(fake_llm: ScriptedOpenAIServer) -> None:
    status, raw = _post(fake_llm.base_url + "/chat/completions", {"model": "m", "messages": []})
    assert status == 500
    assert "script exhausted" in json.loads(raw)["error"]["message"]
    assert fake_llm.pending == 0


def test_error_replies_carry_headers(fake_llm: ScriptedOpenAIServer) -> None:
    fake_llm.script(Reply.error(429, "slow down", headers={"Retry-After": "7"}))
    request = urllib.request.Request(fake_llm.base_url + "/chat/completions", method="POST",
                                     data=b'{"messages": []}')
    try:
        _OPENER.open(request, timeout=5)
    except urllib.error.HTTPError as error:
        assert error.code == 429 and error.headers["Retry-After"] == "7"
        assert json.loads(error.read())["error"]["message"] == "slow down"
    else:
        raise AssertionError("expected HTTP 429")
