"""Helpers for the LLM tests: a client wired to the scripted server, with a recording sleep."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import pytest

from reviewtui.config import LLMSettings
from reviewtui.llm import resolve_llm
from reviewtui.llm.client import LLMClient
from tests.support.openai_server import ScriptedOpenAIServer

READ_FILE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file of the repository",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                       "required": ["path"]},
    },
}

USER = [{"role": "user", "content": "Review this change."}]


@pytest.fixture
def sleeps() -> list[float]:
    """Every backoff the client asked for, in seconds (nobody actually waits)."""
    return []


MakeClient = Callable[..., LLMClient]


@pytest.fixture
def make_client(fake_llm: ScriptedOpenAIServer, sleeps: list[float]) -> MakeClient:
    """``make_client(**llm_settings)``: an LLMClient for the fake server (env from fake_llm)."""

    def make(**overrides: Any) -> LLMClient:
        settings = LLMSettings(**{"timeout": 5.0, "max_retries": 2, **overrides})
        return LLMClient(resolve_llm(settings), sleep=sleeps.append)

    return make


@pytest.fixture
def closed_port() -> int:
    """A local port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
