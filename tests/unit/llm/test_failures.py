"""Retries and error mapping: every failure is one line, and none shows the key."""

from __future__ import annotations

import threading
import time

import pytest

from reviewtui.config import LLMSettings
from reviewtui.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMCancelledError,
    LLMConnectionError,
    LLMError,
    LLMModelNotFoundError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
    ReviewTuiError,
)
from reviewtui.llm import resolve_llm
from reviewtui.llm.client import LLMClient
from reviewtui.llm.failures import retry_delay
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.unit.llm.conftest import USER, MakeClient


def _one_line(error: LLMError) -> str:
    message = str(error)
    assert isinstance(error, ReviewTuiError)
    assert "\n" not in message and message
    assert "test-key" not in message
    return message


def test_429_honours_retry_after(fake_llm: ScriptedOpenAIServer, make_client: MakeClient,
                                 sleeps: list[float]) -> None:
    fake_llm.script(Reply.error(429, "Rate limit reached", headers={"Retry-After": "3"}),
                    Reply.text("done"))
    assert make_client().chat(USER).content == "done"
    assert sleeps == [3.0]
    assert len(fake_llm.requests) == 2


def test_429_retry_after_is_capped(fake_llm: ScriptedOpenAIServer, make_client: MakeClient,
                                   sleeps: list[float]) -> None:
    fake_llm.script(Reply.error(429, "slow down", headers={"Retry-After": "3600"}),
                    Reply.text("done"))
    make_client(timeout=60.0).chat(USER)
    assert sleeps == [60.0]


def test_a_retry_after_beyond_the_time_budget_gives_up_at_once(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient, sleeps: list[float]) -> None:
    # timeout 5 s, 2 retries: 15 s in all; waiting 60 s would break that promise.
    fake_llm.script(Reply.error(429, "slow down", headers={"Retry-After": "60"}))
    with pytest.raises(LLMRateLimitError) as caught:
        make_client().chat(USER)
    assert sleeps == []
    assert "1 attempt, " in _one_line(caught.value) and " s in all" in _one_line(caught.value)


def test_429_exhausted(fake_llm: ScriptedOpenAIServer, make_client: MakeClient,
                       sleeps: list[float]) -> None:
    fake_llm.script(*[Reply.error(429, "slow down")] * 3)
    with pytest.raises(LLMRateLimitError) as caught:
        make_client(max_retries=2).chat(USER)
    assert "HTTP 429" in _one_line(caught.value)
    assert sleeps == [0.5, 1.0]


def test_exhausted_quota_is_not_retried(fake_llm: ScriptedOpenAIServer,
                                        make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(429, "You exceeded your current quota.",
                                code="insufficient_quota"))
    with pytest.raises(LLMRateLimitError, match="quota"):
        make_client().chat(USER)
    assert len(fake_llm.requests) == 1


def test_500_then_success(fake_llm: ScriptedOpenAIServer, make_client: MakeClient,
                          sleeps: list[float]) -> None:
    fake_llm.script(Reply.error(500, "boom"), Reply.text("recovered"))
    assert make_client().chat(USER, on_delta=lambda _: None).content == "recovered"
    assert sleeps == [0.5]


def test_500_exhausted(fake_llm: ScriptedOpenAIServer, make_client: MakeClient,
                       sleeps: list[float]) -> None:
    fake_llm.script(*[Reply.error(503, "overloaded\nplease retry")] * 4)
    with pytest.raises(LLMServerError) as caught:
        make_client(max_retries=3).chat(USER)
    message = _one_line(caught.value)
    assert "HTTP 503" in message and "4 attempts" in message
    assert "overloaded please retry" in message
    assert sleeps == [0.5, 1.0, 2.0]
    assert caught.value.status == 503


def test_backoff_is_capped() -> None:
    assert [retry_delay(n) for n in range(8)] == [0.5, 1, 2, 4, 8, 16, 20, 20]
    assert retry_delay(0, {"retry-after-ms": "1500"}) == 1.5
    assert retry_delay(2, {"retry-after": "not a number or date"}) == 2.0


def test_timeout_is_retried_then_reported(fake_llm: ScriptedOpenAIServer,
                                          make_client: MakeClient, sleeps: list[float]) -> None:
    fake_llm.script(Reply.delay(3.0), Reply.delay(3.0))
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError) as caught:
        make_client(timeout=1.0, max_retries=1).chat(USER)
    assert time.monotonic() - started < 2.8
    assert len(fake_llm.requests) == 2
    assert sleeps == [0.5]
    message = _one_line(caught.value)
    assert "within 1 s (2 attempts, " in message and " s in all)" in message


def test_a_silent_server_is_given_up_on_within_the_time_budget(
        fake_llm: ScriptedOpenAIServer) -> None:
    """``timeout × (max_retries + 1)`` in all, real backoff included: not three full attempts
    plus the waits between them."""
    fake_llm.script(*[Reply.delay(5.0)] * 4)
    client = LLMClient(resolve_llm(LLMSettings(timeout=0.6, max_retries=3)))
    started = time.monotonic()
    with pytest.raises(LLMTimeoutError) as caught:
        client.chat(USER, on_delta=lambda _: None)
    spent = time.monotonic() - started
    assert spent < 0.6 * 4 + 0.4
    assert " s in all)" in _one_line(caught.value)


def test_401_names_the_endpoint_and_never_the_key(fake_llm: ScriptedOpenAIServer,
                                                  make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(401, "Incorrect API key provided: test-key.",
                                type="invalid_request_error", code="invalid_api_key"))
    with pytest.raises(LLMAuthError) as caught:
        make_client().chat(USER)
    message = _one_line(caught.value)
    assert message == (f"the LLM endpoint {fake_llm.base_url} rejected the API key (HTTP 401); "
                       "set OPENAI_API_KEY")
    assert "test-key" not in repr(caught.value)
    assert len(fake_llm.requests) == 1


def test_403_is_an_auth_error(fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(403, "forbidden"))
    with pytest.raises(LLMAuthError, match="HTTP 403"):
        make_client().chat(USER)


def test_404_model_not_found(fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(404, "The model `test-model` does not exist"))
    with pytest.raises(LLMModelNotFoundError) as caught:
        make_client().chat(USER)
    assert _one_line(caught.value).startswith(
        f"model 'test-model' not found at {fake_llm.base_url}")


def test_other_4xx_carry_the_server_message_scrubbed(fake_llm: ScriptedOpenAIServer,
                                                     make_client: MakeClient) -> None:
    fake_llm.script(Reply.error(413, "payload too large for key test-key\n" + "x" * 500))
    with pytest.raises(LLMBadRequestError) as caught:
        make_client().chat(USER)
    message = _one_line(caught.value)
    assert "HTTP 413" in message and "payload too large for key ***" in message
    assert len(message) < 400


def test_connection_refused(closed_port: int, sleeps: list[float]) -> None:
    settings = LLMSettings(model="m", base_url=f"http://127.0.0.1:{closed_port}/v1",
                           max_retries=1, timeout=2.0)
    client = LLMClient(resolve_llm(settings, env={}), sleep=sleeps.append)
    with pytest.raises(LLMConnectionError) as caught:
        client.chat(USER)
    assert _one_line(caught.value).startswith(f"cannot connect to http://127.0.0.1:{closed_port}")
    assert sleeps == [0.5]


@pytest.mark.parametrize("reply", [
    Reply.raw(b"this is not json"),
    Reply.raw(b""),
    Reply.raw(b"{}"),
    Reply.raw(b'{"choices": []}'),
    Reply.raw(b"<html>Bad gateway</html>", content_type="text/html"),
], ids=["not-json", "empty-body", "empty-object", "no-choices", "html"])
def test_malformed_or_empty_answers(fake_llm: ScriptedOpenAIServer, make_client: MakeClient,
                                    reply: Reply) -> None:
    fake_llm.script(reply)
    with pytest.raises(LLMResponseError) as caught:
        make_client().chat(USER)
    assert fake_llm.base_url in _one_line(caught.value)
    assert len(fake_llm.requests) == 1  # not retried


def test_a_malformed_stream_is_an_error(fake_llm: ScriptedOpenAIServer,
                                        make_client: MakeClient) -> None:
    fake_llm.script(Reply.raw(b"data: {not json}\n\n", content_type="text/event-stream"))
    with pytest.raises(LLMResponseError):
        make_client().chat(USER, on_delta=lambda _: None)


@pytest.mark.parametrize("cancellable", [False, True], ids=["blocking", "cancellable"])
def test_a_web_page_answering_a_stream_is_named_not_a_hang_up(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient, cancellable: bool) -> None:
    # a base URL missing /v1, a proxy's login page: 200 and HTML, no chunk. It read "the
    # server closed the stream before the answer began" -- and was asked again
    fake_llm.script(Reply.raw(b"<html><body>Sign in</body></html>",
                              content_type="text/html; charset=utf-8"))
    with pytest.raises(LLMResponseError) as caught:
        make_client().chat(USER, on_delta=lambda _: None,
                           cancel=threading.Event() if cancellable else None)
    message = _one_line(caught.value)
    assert "answered with text/html, not a stream of chat chunks" in message
    assert "/v1" in message and "closed the stream" not in message
    assert len(fake_llm.requests) == 1  # a page asked again is the same page


@pytest.mark.parametrize("reply", [
    Reply.raw(b"data: [DONE]\n\n", content_type="text/event-stream"),
    Reply.raw(b"", content_type="text/event-stream"),
    Reply.text("never shown", cut_after=0),
], ids=["no-chunks", "empty-body", "hung-up-before-text"])
def test_a_stream_that_ends_before_any_text_is_asked_once_more(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient, reply: Reply) -> None:
    fake_llm.script(reply, Reply.text("the whole answer"))
    deltas: list[str] = []
    result = make_client().chat(USER, on_delta=deltas.append)
    assert (result.content, result.cut_off) == ("the whole answer", False)
    assert "".join(deltas) == "the whole answer"
    assert len(fake_llm.requests) == 2


def test_a_stream_that_ends_before_any_text_twice_is_an_error(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.text("x", cut_after=0), Reply.text("y", cut_after=0))
    with pytest.raises(LLMResponseError) as caught:
        make_client().chat(USER, on_delta=lambda _: None)
    assert "closed the stream before the answer began" in _one_line(caught.value)
    assert len(fake_llm.requests) == 2


def test_a_stream_cut_mid_answer_is_returned_marked_cut_off(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient) -> None:
    fake_llm.script(Reply.text("one two three", chunks=["one ", "two ", "three"], cut_after=2))
    deltas: list[str] = []
    result = make_client().chat(USER, on_delta=deltas.append)
    assert (result.content, result.cut_off, result.finish_reason) == ("one two ", True, None)
    assert deltas == ["one ", "two "]
    assert len(fake_llm.requests) == 1  # text was shown: not asked again


@pytest.mark.parametrize("streaming", [False, True])
def test_empty_content_is_returned_for_the_caller_to_judge(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient, streaming: bool) -> None:
    fake_llm.script(Reply.text("", finish_reason="length"))
    deltas: list[str] = []
    result = make_client().chat(USER, on_delta=deltas.append if streaming else None)
    assert (result.content, result.tool_calls, result.finish_reason) == ("", (), "length")
    assert deltas == []


def test_script_exhausted_is_a_server_error(fake_llm: ScriptedOpenAIServer,
                                            make_client: MakeClient) -> None:
    with pytest.raises(LLMServerError, match="script exhausted"):
        make_client(max_retries=0).chat(USER)


@pytest.mark.parametrize("streaming", [False, True])
def test_a_cancel_event_stops_a_request_the_server_never_answers(
        fake_llm: ScriptedOpenAIServer, make_client: MakeClient, streaming: bool) -> None:
    """The workbench's Escape: the call returns at once, not when the timeout runs out."""
    fake_llm.script(Reply.delay(8.0))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(LLMCancelledError):
        make_client(timeout=30.0).chat(USER, cancel=cancel,
                                       on_delta=(lambda _: None) if streaming else None)
    assert time.monotonic() - started < 3.0  # far from the 8 s delay and the 30 s timeout


def test_a_cancel_event_stops_a_stream_between_words(fake_llm: ScriptedOpenAIServer,
                                                     make_client: MakeClient) -> None:
    fake_llm.script(Reply.text("one two three four", chunks=["one ", "two ", "three ", "four"],
                               chunk_delay=2.0))
    cancel = threading.Event()
    deltas: list[str] = []

    def take(text: str) -> None:
        deltas.append(text)
        cancel.set()

    with pytest.raises(LLMCancelledError):
        make_client().chat(USER, cancel=cancel, on_delta=take)
    assert deltas == ["one "]


def test_a_password_in_the_base_url_is_never_shown(fake_llm: ScriptedOpenAIServer,
                                                   make_client: MakeClient,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   closed_port: int) -> None:
    """A proxy behind basic auth (``http://user:pass@host/v1``) or a key in the query string:
    the errors printed the base URL whole, the secret with it, to the terminal and CI logs."""
    with_password = fake_llm.base_url.replace("http://", "http://alice:s3cret-pass@")
    monkeypatch.setenv("OPENAI_BASE_URL", with_password)
    fake_llm.script(*[Reply.error(500, "boom")] * 3)
    with pytest.raises(LLMServerError) as caught:
        make_client().chat(USER)
    message = _one_line(caught.value)
    assert "s3cret-pass" not in message and "alice:***@127.0.0.1" in message
    monkeypatch.setenv("OPENAI_BASE_URL",
                       f"http://bob:hunter2@127.0.0.1:{closed_port}/v1?api-key=s3cret-q&x=1")
    with pytest.raises(LLMConnectionError) as refused:
        make_client(max_retries=0).chat(USER)
    message = _one_line(refused.value)
    assert "hunter2" not in message and "s3cret-q" not in message, message
    assert f"bob:***@127.0.0.1:{closed_port}/v1?api-key=***&x=***" in message
