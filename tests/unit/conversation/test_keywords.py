"""Keywords, similarity, query hashes and file mentions (seed 004 v2.28/v2.29)."""

from __future__ import annotations

import pytest

from reviewtui.conversation.keywords import (
    STOP_WORDS,
    file_references,
    keywords,
    mentioned_files,
    query_hash,
    similarity,
)


def test_identifiers_split_and_kept_whole() -> None:
    assert keywords("getUserName") == ["getusername", "get", "user", "name"]
    words = keywords("parse_http_response and HTTPServerError, my-kebab-case, foo.bar()")
    for expected in ("parse_http_response", "parse", "http", "response", "httpservererror",
                     "server", "error", "my-kebab-case", "kebab", "case", "foo.bar", "foo",
                     "bar"):
        assert expected in words
    assert keywords("XMLHttpRequest") == ["xmlhttprequest", "xml", "http", "request"]


def test_lower_case_punctuation_and_order_without_duplicates() -> None:
    assert keywords("Login!!! LOGIN, login? (Timeout).") == ["login", "timeout"]


def test_stop_words_are_dropped() -> None:
    assert len(STOP_WORDS) >= 50
    assert keywords("What is the purpose of this and why would you do that?") == ["purpose"]
    assert keywords("the") == []


def test_numbers_dropped_unless_part_of_an_identifier() -> None:
    words = keywords("retry 3 times since 2024 on Python 3.11 with oauth2Client and v2")
    assert "3" not in words and "2024" not in words and "3.11" not in words
    assert "oauth2client" in words and "oauth2" in words and "v2" in words


def test_file_paths_kept_whole_and_by_basename() -> None:
    words = keywords("Is src/auth/login.py safe? See also README.md and auth.py:42.")
    assert words[:2] == ["src/auth/login.py", "login.py"]
    assert {"src", "auth", "login", "readme.md", "auth.py"} <= set(words)
    assert "42" not in words and "py" not in words


def test_line_anchors_are_not_keywords() -> None:
    assert keywords("see b.py#L3-L9") == ["b.py"]


def test_cjk_characters_and_bigrams_without_function_words() -> None:
    words = keywords("登录函数为什么报错")
    assert {"登录", "函数", "报错"} <= set(words)
    assert "为什么" not in words and "为" not in words and "么" not in words
    assert "数报" not in words  # no bigram across a removed function word
    assert {"登", "录", "报", "错"} <= set(words)


def test_cjk_stop_words_and_mixed_text() -> None:
    words = keywords("这个auth.py的login函数是什么问题呢")
    assert {"auth.py", "login", "函数", "问题"} <= set(words)
    assert not {"这个", "的", "是", "什么", "呢"} & set(words)


def test_similarity_range_and_shape() -> None:
    a = keywords("Is the login check in src/auth.py safe against timing attacks?")
    assert similarity(a, a) == 1.0
    assert similarity(a, []) == 0.0 and similarity([], []) == 0.0
    assert similarity(a, keywords("payments rounding currency")) == 0.0
    follow_up = keywords("and the login check timing?")
    assert similarity(a, follow_up) == similarity(follow_up, a) > 0.9
    assert similarity(a, keywords("login")) == pytest.approx(2 / 3)  # one word: damped
    assert similarity(keywords("login timing"), a) == 1.0  # two words: full evidence
    assert similarity(keywords("who calls charge"), keywords("does the charge break pay")) == (
        pytest.approx(1 / 2 * 2 / 3))


def test_similarity_weighs_cjk_single_characters_low() -> None:
    bigram = similarity(keywords("登录失败"), keywords("登录成功"))
    character = similarity(keywords("失败"), keywords("失去"))
    assert bigram > character > 0


def test_query_hash_normalises() -> None:
    assert query_hash("  Why does   LOGIN\tfail? ") == query_hash("why does login fail?")
    assert len(query_hash("x")) == 40
    long_a, long_b = "a" * 300 + "x", "a" * 300 + "y"
    assert query_hash(long_a) == query_hash(long_b)  # the seed's first-256-characters key
    assert query_hash(long_a, limit=None) != query_hash(long_b, limit=None)


def test_mentioned_files() -> None:
    known = ["src/auth.py", "src/payments.py", "tests/test_auth.py", "lib/util.py",
             "src/util.py", "README.md", "Makefile"]
    text = ("The bug is at auth.py:42 (see src/payments.py#L10-L20 and "
            "/home/me/repo/tests/test_auth.py); util.py is ambiguous, lib/util.py is not. "
            "Also README.md. And the Makefile.")
    assert mentioned_files(text, known) == ["src/auth.py", "src/payments.py",
                                            "tests/test_auth.py", "lib/util.py", "README.md",
                                            "Makefile"]
    assert mentioned_files("nothing here", known) == []
    assert mentioned_files("a/src/auth.py vs ./src/payments.py", known) == [
        "src/auth.py", "src/payments.py"]


def test_file_references_as_written() -> None:
    text = "See auth.py:42, src/x.go:12-30, b.py#L3-L9 and docs/guide.md. Not e.g. or 3.11."
    assert file_references(text) == ["auth.py:42", "src/x.go:12-30", "b.py#L3-L9",
                                     "docs/guide.md"]
