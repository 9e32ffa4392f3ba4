"""The HTTP side shared by the local GitHub and GitLab APIs (``github_server``,
``gitlab_server``): every request and answer is checked against the forge's contract under the
fake's lock, a mismatch is recorded in ``violations`` and answered 500, and every request is kept
in ``requests``. The fakes say what to answer (``handle``); this module only serves it."""

from __future__ import annotations

import copy
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, Self
from urllib.parse import parse_qs, urlsplit


@dataclass
class Recorded:
    method: str
    path: str
    body: Any
    status: int
    authorization: str


@dataclass
class FakeForge:
    """What both local forges keep: the requests and contract violations, rate limiting (the
    next ``rate_limited`` requests are refused with ``Retry-After: retry_after``), new ids."""

    rate_limited: int = 0
    retry_after: str = "0"
    requests: list[Recorded] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    _next_id: int = 1000
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id


class Contract(Protocol):
    def check_request(self, method: str, path: str, body: Any) -> None: ...

    def check_response(self, method: str, path: str, status: int, answer: Any) -> None: ...


class Fake(Protocol):
    _lock: threading.Lock
    contract: Contract
    violations: list[str]
    requests: list[Recorded]

    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               authorization: str) -> tuple[int, Any, dict[str, str]]: ...


class _Server(ThreadingHTTPServer):
    fake: Fake
    mount: str  # the path the forge is served under ("" at the root)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _serve(self) -> None:
        fake = self.server.fake
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        authorization = self.headers.get("Authorization", "")
        mount = self.server.mount
        path = parts.path.removeprefix(mount) if parts.path.startswith(mount + "/") else None
        with fake._lock:
            try:
                if path is None:  # outside the instance's path: no forge there
                    status, answer, headers = 404, {"message": "404 Not found"}, {}
                else:
                    fake.contract.check_request(self.command, path, body)
                    status, answer, headers = fake.handle(
                        self.command, path, parse_qs(parts.query), copy.deepcopy(body),
                        authorization)
                    fake.contract.check_response(self.command, path, status, answer)
            except AssertionError as exc:
                fake.violations.append(f"{self.command} {parts.path}: {exc}")
                status, answer, headers = 500, {"message": str(exc)}, {}
            fake.requests.append(Recorded(self.command, parts.path, body, status, authorization))
        data = json.dumps(answer).encode() if answer is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


class ForgeServer:
    """``with Server() as server:`` ``server.url`` is the API base URL (``base_path`` after the
    host: GitLab's ``/api/v4``). ``mount``: the path the forge is served under (a GitLab's
    relative URL root, ``/gitlab``): a request outside it is answered 404, one inside it is
    checked and answered without it (``requests`` keep the whole path)."""

    def __init__(self, fake: Any, base_path: str = "", mount: str = "") -> None:
        self.fake = fake
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = fake
        self._server.mount = mount.rstrip("/")
        self.port = self._server.server_address[1]
        self.root = f"http://127.0.0.1:{self.port}{self._server.mount}"  # the forge's web root
        self.url = f"{self.root}{base_path}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
