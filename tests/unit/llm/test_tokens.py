"""Token counting offline from the shipped encodings, the hash check, and the estimate."""

from __future__ import annotations

import gzip
import hashlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken.load
import tiktoken.registry

from reviewtui.llm import encodings, tokens
from reviewtui.llm.tokens import TokenCounter, estimate_tokens, token_counter


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """tiktoken may not download anything, and no socket may connect anywhere."""
    tokens.counter_for_encoding.cache_clear()

    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("tiktoken tried to download an encoding")

    def no_connect(self: socket.socket, *args: Any) -> None:
        raise OSError("network is unreachable (test)")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_connect)
    yield
    tokens.counter_for_encoding.cache_clear()


@pytest.fixture
def unloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken has loaded no encoding yet in this process: it must read the seeded cache."""
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})


def _cache_dir() -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "reviewtui" / "tiktoken"


def test_counts_offline_with_an_empty_cache(unloaded: None) -> None:
    assert not _cache_dir().exists()
    counter = token_counter()
    assert (counter.name, counter.exact) == ("cl100k_base", True)
    assert counter.count("hello world") == 2
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    seeded = _cache_dir() / hashlib.sha1(url.encode()).hexdigest()
    assert seeded.is_file()
    expected = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
    assert hashlib.sha256(seeded.read_bytes()).hexdigest() == expected
    assert "TIKTOKEN_CACHE_DIR" not in os.environ  # only set while tiktoken loads


def test_known_token_ids() -> None:
    cl100k = encodings.load_encoding("cl100k_base")
    assert cl100k.encode("hello world") == [15339, 1917]
    assert len(cl100k.encode("tiktoken is great!")) == 6
    o200k = encodings.load_encoding("o200k_base")
    assert o200k.encode("hello world") == [24912, 2375]
    assert token_counter("gpt-4o").count("hello world") == 2


def test_special_token_text_is_ordinary_text() -> None:
    counter = token_counter("gpt-4")
    assert counter.count("x = '<|endoftext|>'") > 3
    assert token_counter("gpt-4o").count("<|endoftext|><|endofprompt|>") > 2


def test_user_tiktoken_cache_dir_is_respected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              unloaded: None) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "mine"))
    assert token_counter().exact
    assert len(list((tmp_path / "mine").iterdir())) == 1
    assert not _cache_dir().exists()
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path / "mine")


def test_a_cache_that_cannot_be_written_still_counts_exactly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unloaded: None) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache's folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # mkdir under it fails, even as root
    monkeypatch.setattr(encodings.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    counter = token_counter()
    assert (counter.name, counter.exact) == ("cl100k_base", True)  # not the estimate
    assert counter.count("hello world") == 2
    assert len(list((tmp_path / "tmp").glob("reviewtui-tiktoken-*/*"))) == 1


def test_a_corrupt_cached_copy_is_replaced(unloaded: None) -> None:
    target = encodings.cache_path("cl100k_base")
    assert target is not None
    target.parent.mkdir(parents=True)
    target.write_bytes(b"garbage")
    assert token_counter().count("hello world") == 2
    assert target.stat().st_size > 1_000_000


@pytest.mark.parametrize("content", [
    b"not gzip at all",
    gzip.compress(b"SQ== 0\n"),  # valid gzip, wrong content: the hash check rejects it
], ids=["not-gzip", "wrong-hash"])
def test_a_corrupt_shipped_file_falls_back_to_the_estimate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, unloaded: None) -> None:
    (tmp_path / "cl100k_base.tiktoken.gz").write_bytes(content)
    assert encodings.load_encoding("cl100k_base", data_dir=tmp_path) is None
    monkeypatch.setattr(encodings, "SHIPPED_DIR", tmp_path)
    counter = token_counter("gpt-4")
    assert (counter.name, counter.exact) == ("estimate", False)
    assert counter.count("hello world") == estimate_tokens("hello world") == 3
    target = encodings.cache_path("cl100k_base")
    assert target is not None and not target.exists()


def test_missing_shipped_file_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         unloaded: None) -> None:
    monkeypatch.setattr(encodings, "SHIPPED_DIR", tmp_path)
    assert token_counter("gpt-4o").name == "estimate"


def test_pinned_sources_match_the_installed_tiktoken() -> None:
    installed = encodings.installed_sources()
    for name, source in encodings.PINNED_SOURCES.items():
        assert installed[name] == source


def test_shipped_files_are_in_the_package() -> None:
    for name in encodings.SHIPPED:
        assert (encodings.SHIPPED_DIR / f"{name}.tiktoken.gz").is_file()
    assert (encodings.SHIPPED_DIR / "NOTICE.txt").is_file()


@pytest.mark.parametrize(("model", "encoding"), [
    ("gpt-4o", "o200k_base"), ("gpt-4o-mini", "o200k_base"), ("gpt-4.1", "o200k_base"),
    ("gpt-5", "o200k_base"), ("o3-mini", "o200k_base"), ("o1", "o200k_base"),
    ("openai/gpt-4.1-mini", "o200k_base"), ("gpt-oss-20b", "o200k_base"),
    ("gpt-4", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"),
    ("qwen2.5-coder:7b", "cl100k_base"), ("llama3.1", "cl100k_base"), (None, "cl100k_base"),
])
def test_encoding_per_model(model: str | None, encoding: str) -> None:
    assert tokens.encoding_name_for(model) == encoding


def test_counters_are_cached_per_encoding() -> None:
    assert token_counter("gpt-4") is token_counter("llama3")
    assert token_counter("gpt-4o") is token_counter("gpt-5")


def test_estimate() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("你好世界") == 4
    assert estimate_tokens("ab 你好") == 3
    counter = TokenCounter("cl100k_base", None)
    assert (counter.name, counter.exact) == ("estimate", False)


def test_count_messages() -> None:
    counter = token_counter()
    messages = [
        {"role": "system", "content": "You review code."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "print('hi')"},
        {"role": "user", "content": [{"type": "text", "text": "and now?"}]},
    ]
    contents = sum(counter.count(t) for t in ("You review code.", "print('hi')", "and now?"))
    tool_call = counter.count("read_file") + counter.count('{"path": "a.py"}')
    total = counter.count_messages(messages)
    assert total == contents + tool_call + counter.count("c1") + 4 * 4 + 4 + 3
    assert counter.count_messages([]) == 0
    assert counter.count_tools([{"type": "function", "function": {"name": "x"}}]) > 5


@pytest.mark.parametrize("exact", [True, False])
def test_truncate_at_a_line_boundary(exact: bool) -> None:
    counter = token_counter() if exact else TokenCounter("estimate")
    text = "".join(f"line number {n} of the file\n" for n in range(200))
    assert counter.truncate(text, 10_000) == text
    for budget in (1, 7, 50, 333):
        cut = counter.truncate(text, budget)
        assert counter.count(cut) <= budget
        assert text.startswith(cut)
        if budget >= 50:
            assert cut.endswith("\n") and cut
            next_line = text[len(cut):].split("\n", 1)[0] + "\n"
            assert counter.count(cut + next_line) > budget
    assert counter.truncate(text, 0) == ""


def test_truncate_a_single_long_line() -> None:
    counter = token_counter()
    line = "word " * 1000
    cut = counter.truncate(line, 10)
    assert line.startswith(cut) and 0 < counter.count(cut) <= 10
