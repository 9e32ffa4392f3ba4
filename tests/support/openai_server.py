"""A scripted OpenAI-compatible HTTP server for tests.

Tests run the real ``openai`` SDK (and the real ``reviewtui`` command line) against a real HTTP
server on 127.0.0.1, so that what is tested is what goes over the wire: request bodies, headers,
SSE framing, status codes, retry headers. The server answers from a FIFO script of replies and
records every request; it never touches the network.

    server.script(Reply.text("hello"), Reply.error(429, "slow down", headers={"Retry-After": "2"}))
    client.chat(...)
    assert server.requests[0].body["model"] == "test-model"
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Usage = Mapping[str, Any]


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with the class methods, not the constructor."""

    kind: str  # "message" | "error" | "raw" | "delay"
    content: str = ""
    calls: tuple[tuple[str, str, str], ...] = ()  # tool calls: (id, name, arguments JSON)
    finish_reason: str | None = "stop"
    usage: Mapping[str, Any] | None = None
    chunks: tuple[str, ...] | None = None  # how streamed content is cut (default: by words)
    arg_chunk: int = 7  # streamed tool-call arguments come in pieces of this many characters
    chunk_delay: float = 0.0  # seconds between streamed chunks
    status: int = 200
    message: str = ""
    error_type: str | None = None
    code: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    content_type: str = "application/json"
    seconds: float = 0.0
    then: Reply | None = None
    cut_after: int | None = None  # streamed: close the connection after this many text chunks

    @classmethod
    def text(cls, content: str, *, usage: Usage | None = None, finish_reason: str = "stop",
             chunks: Sequence[str] | None = None, chunk_delay: float = 0.0,
             cut_after: int | None = None) -> Reply:
        """``cut_after=N``: streamed, the server hangs up after N text chunks, with no finish
        reason and no ``[DONE]`` (a proxy timing out, a crashed model server)."""
        if chunks is not None and "".join(chunks) != content:
            raise ValueError("chunks must join to the content")
        return cls("message", content=content, usage=usage, finish_reason=finish_reason,
                   chunks=tuple(chunks) if chunks is not None else None, chunk_delay=chunk_delay,
                   cut_after=cut_after)

    @classmethod
    def json(cls, obj: Any, *, usage: Usage | None = None) -> Reply:
        return cls.text(json.dumps(obj), usage=usage)

    @classmethod
    def tool_calls(cls, calls: Sequence[Mapping[str, Any]], *, content: str = "",
                   usage: Usage | None = None, arg_chunk: int = 7,
                   finish_reason: str = "tool_calls") -> Reply:
        """``calls``: ``{"name": ..., "arguments": dict | str, "id": optional}`` each;
        ``finish_reason="length"``: the model ran out of output tokens while writing them."""
        built = []
        for number, call in enumerate(calls):
            arguments = call.get("arguments", {})
            text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            built.append((str(call.get("id", f"call_{number}")), str(call["name"]), text))
        return cls("message", content=content, calls=tuple(built), usage=usage,
                   finish_reason=finish_reason, arg_chunk=max(1, arg_chunk))

    @classmethod
    def error(cls, status: int, message: str, *, headers: Mapping[str, str] | None = None,
              type: str | None = None, code: str | None = None) -> Reply:
        return cls("error", status=status, message=message, error_type=type, code=code,
                   headers=tuple((headers or {}).items()))

    @classmethod
    def delay(cls, seconds: float, then: Reply | None = None) -> Reply:
        return cls("delay", seconds=seconds, then=then or Reply.text("late"))

    @classmethod
    def raw(cls, body: bytes, status: int = 200, *,
            content_type: str = "application/json") -> Reply:
        return cls("raw", body=body, status=status, content_type=content_type)


ReplyFactory = Callable[[dict[str, Any]], Reply]
ScriptItem = Reply | ReplyFactory


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]  # lower-case names
    body: Any  # the parsed JSON body, or None

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def _words(content: str) -> list[str]:
    return re.findall(r"\s*\S+|\s+", content) or [content]


def _usage(reply: Reply, request: Mapping[str, Any]) -> dict[str, Any]:
    if reply.usage is not None:
        usage = dict(reply.usage)
    else:
        prompt = sum(len(str(m.get("content") or "").split()) for m in request.get("messages", []))
        completion = len(reply.content.split()) + sum(len(c[2]) // 4 for c in reply.calls)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion}
    usage.setdefault("prompt_tokens", 0)
    usage.setdefault("completion_tokens", 0)
    usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
    return usage


@dataclass
class _State:
    script: deque[ScriptItem] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    models: tuple[str, ...] = ("test-model",)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # tests stay quiet
        pass

    # --- plumbing -------------------------------------------------------------------------
    def _record(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        state = self.server.state
        with state.lock:
            state.requests.append(RecordedRequest(self.command, self.path, headers, body))
        return body

    def _send(self, status: int, body: bytes, *, content_type: str = "application/json",
              headers: Sequence[tuple[str, str]] = ()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, obj: Any, headers: Sequence[tuple[str, str]] = ()) -> None:
        self._send(status, json.dumps(obj).encode(), headers=headers)

    def _error(self, status: int, message: str, *, error_type: str | None = None,
               code: str | None = None, headers: Sequence[tuple[str, str]] = ()) -> None:
        payload = {"error": {"message": message, "type": error_type or "invalid_request_error",
                             "param": None, "code": code}}
        self._send_json(status, payload, headers)

    # --- routes ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._record()
        if self.path.rstrip("/") == "/v1/models":
            models = [{"id": m, "object": "model", "created": 0, "owned_by": "test"}
                      for m in self.server.state.models]
            self._send_json(200, {"object": "list", "data": models})
        else:
            self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        body = self._record()
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._error(404, f"no route POST {self.path}")
            return
        if not isinstance(body, dict):
            self._error(400, "the request body is not a JSON object")
            return
        state = self.server.state
        with state.lock:
            item = state.script.popleft() if state.script else None
        if item is None:
            self._error(500, "scripted OpenAI server: script exhausted (no reply left for "
                             f"request #{len(state.requests)})", error_type="server_error")
            return
        reply = item if isinstance(item, Reply) else item(body)
        # BrokenPipe / ConnectionReset: the client gave up (timeout, cancel), nothing to do
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(reply, body)

    def _answer(self, reply: Reply, request: dict[str, Any]) -> None:
        while reply.kind == "delay":
            time.sleep(reply.seconds)
            assert reply.then is not None
            reply = reply.then
        if reply.kind == "error":
            self._error(reply.status, reply.message, error_type=reply.error_type,
                        code=reply.code, headers=reply.headers)
        elif reply.kind == "raw":
            self._send(reply.status, reply.body, content_type=reply.content_type)
        elif request.get("stream"):
            self._stream(reply, request)
        else:
            self._send_json(200, self._completion(reply, request))

    def _completion(self, reply: Reply, request: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        if reply.calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
                for cid, name, args in reply.calls
            ]
        elif message["content"] is None:
            message["content"] = ""
        return {
            "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
            "model": str(request.get("model", "")),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            "usage": _usage(reply, request),
        }

    def _chunks(self, reply: Reply, request: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
        model = str(request.get("model", ""))

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        if reply.content:
            for piece in reply.chunks if reply.chunks is not None else _words(reply.content):
                yield chunk({"content": piece})
        for index, (cid, name, args) in enumerate(reply.calls):
            yield chunk({"tool_calls": [{"index": index, "id": cid, "type": "function",
                                         "function": {"name": name, "arguments": ""}}]})
            for start in range(0, len(args), reply.arg_chunk):
                piece = args[start:start + reply.arg_chunk]
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, reply.finish_reason)
        options = request.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            yield {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0,
                   "model": model, "choices": [], "usage": _usage(reply, request)}

    def _stream(self, reply: Reply, request: Mapping[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for number, data in enumerate(self._chunks(reply, request)):
            if reply.cut_after is not None and number > reply.cut_after:
                return  # hang up: no finish reason, no [DONE]
            if number and reply.chunk_delay:
                time.sleep(reply.chunk_delay)
            self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, state: _State) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state


class ScriptedOpenAIServer:
    """``start()`` / ``stop()`` (or a ``with`` block); ``base_url`` ends in ``/v1``."""

    def __init__(self, *, models: Sequence[str] = ("test-model",)) -> None:
        self._state = _State(models=tuple(models))
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ScriptedOpenAIServer:
        self._server = _Server(self._state)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "the server is not running"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: ScriptItem) -> ScriptedOpenAIServer:
        """Append replies to the queue; each request to /v1/chat/completions takes one."""
        with self._state.lock:
            self._state.script.extend(replies)
        return self

    @property
    def pending(self) -> int:
        with self._state.lock:
            return len(self._state.script)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    def clear_requests(self) -> None:
        with self._state.lock:
            self._state.requests.clear()
