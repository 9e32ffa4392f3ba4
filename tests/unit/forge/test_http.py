"""The forge HTTP client against the local GitHub API: waits asked for are waited (bounded),
errors are one line that names the token's source, never its value."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from reviewtui.errors import ForgeError, ForgeNotFoundError, ForgeRateLimitError
from reviewtui.forge.auth import Token
from reviewtui.forge.github import GitHubClient
from reviewtui.forge.target import PullTarget, RepoAddress
from tests.support.github_server import GitHubServer


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[GitHubServer]:
    with GitHubServer() as running:
        monkeypatch.setenv("REVIEWTUI_GITHUB_API_URL", running.url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        running.fake.add_pull(3, head_sha="a" * 40, base_sha="b" * 40, title="T",
                              labels=("x", "y"))
        yield running
        assert running.fake.violations == []


def _client(server: GitHubServer, sleeps: list[float], number: int = 3) -> GitHubClient:
    target = PullTarget(RepoAddress("github", "github.com", "octo/proj"), number, None)
    return GitHubClient(target, Token("GH_TOKEN", server.fake.token), sleep=sleeps.append)


def test_reads_the_pull_request(server: GitHubServer) -> None:
    pull = _client(server, []).pull()
    assert (pull.number, pull.title, [label.name for label in pull.labels]) == (3, "T", ["x", "y"])
    assert (pull.head.sha, pull.base.ref) == ("a" * 40, "main")


def test_waits_what_retry_after_says(server: GitHubServer) -> None:
    server.fake.rate_limited, server.fake.retry_after = 2, "7"
    sleeps: list[float] = []
    client = _client(server, sleeps)
    assert client.pull().number == 3
    assert sleeps == [7.0, 7.0] and client.http.waited == [7.0, 7.0]


def test_waits_until_the_date_retry_after_names(server: GitHubServer) -> None:
    when = datetime.now(UTC) + timedelta(seconds=30)
    server.fake.rate_limited, server.fake.retry_after = 1, format_datetime(when, usegmt=True)
    sleeps: list[float] = []
    assert _client(server, sleeps).pull().number == 3
    assert len(sleeps) == 1 and 25 <= sleeps[0] <= 30.5, sleeps


def test_a_wait_too_long_is_not_waited(server: GitHubServer) -> None:
    server.fake.rate_limited, server.fake.retry_after = 1, "3600"
    sleeps: list[float] = []
    with pytest.raises(ForgeRateLimitError, match="asks to wait 3600 s") as raised:
        _client(server, sleeps).pull()
    assert sleeps == []
    # no wait was taken: not "still limited after 0 waits"
    assert raised.value.message.endswith("rate limit: it asks to wait 3600 s, longer than "
                                         "reviewtui waits (60 s)")
    assert raised.value.hint == "try again in about 60 minutes"


def test_a_forbidden_answer_without_a_rate_limit_is_not_retried(server: GitHubServer) -> None:
    server.fake.rate_limited, server.fake.rate_status, server.fake.retry_after = 1, 403, "x"
    sleeps: list[float] = []
    with pytest.raises(ForgeError, match=r"refused GET .* with the token from GH_TOKEN"):
        _client(server, sleeps).pull()
    assert sleeps == []


def test_pages_are_followed(server: GitHubServer) -> None:
    for n in range(130):
        server.fake.add_comment(3, path="a.py", line=1, body=f"c{n}")
    comments = _client(server, []).review_comments()
    assert [c.body for c in comments] == [f"c{n}" for n in range(130)]
    assert [r.path for r in server.fake.ops("GET")] == ["/repos/octo/proj/pulls/3/comments"] * 2


def test_unknown_pull_and_unreachable_api(server: GitHubServer,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ForgeNotFoundError, match="octo/proj#9 not found"):
        _client(server, [], number=9).pull()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("REVIEWTUI_GITHUB_API_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(ForgeError, match=r"GitHub \(github.com\) cannot be reached"):
        _client(server, []).pull()


def test_a_long_list_is_read_page_by_page_to_its_end(server: GitHubServer) -> None:
    for n in range(205):
        server.fake.add_comment(3, path="a.py", line=n + 1, body=f"note {n}")
    comments = _client(server, []).review_comments()
    assert len(comments) == 205  # three pages of 100, 100 and 5
    assert [c.body for c in comments[:2]] == ["note 0", "note 1"]
    assert comments[-1].body == "note 204"


def test_an_answer_unlike_the_description_is_one_line_naming_the_forge(
        server: GitHubServer) -> None:
    client = _client(server, [])
    with pytest.raises(ForgeError, match=r"^GitHub's answer for a review is not what its API "
                                         r"describes"):
        client.http.parsed(type(client.pull()), {"number": "not a number"}, "a review")


def test_an_answer_that_does_not_come_in_time_is_not_called_unreachable(
        server: GitHubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review sent that times out may have been made: saying the forge "cannot be reached"
    would tell the person nothing was sent."""
    import time

    import reviewtui.forge.http as forge_http

    monkeypatch.setattr(forge_http, "TIMEOUT_SECONDS", 0.3)
    handle = server.fake.handle

    def slow(*args: object) -> object:
        time.sleep(1.0)
        return handle(*args)  # type: ignore[arg-type]

    server.fake.handle = slow  # type: ignore[method-assign]
    with pytest.raises(ForgeError) as caught:
        _client(server, []).create_review({"event": "COMMENT", "body": "b", "comments": []})
    assert "cannot be reached" not in str(caught.value)
    assert "did not answer POST" in str(caught.value) and "0.3 s" in str(caught.value)
    assert "may have" in (caught.value.hint or "")


def test_a_secondary_rate_limit_without_headers_is_waited_not_called_a_missing_scope(
        server: GitHubServer) -> None:
    """GitHub: a 403 that says a secondary rate limit was exceeded, with neither Retry-After
    nor x-ratelimit-remaining 0, asks for at least a minute's wait."""
    handle = server.fake.handle
    refused = [1]

    def limited(method: str, path: str, *rest: object) -> object:
        if refused:
            refused.pop()
            return 403, {"message": "You have exceeded a secondary rate limit. Please wait a "
                                    "few minutes before you try again.",
                         "documentation_url": "https://docs.github.com/rest"}, {}
        return handle(method, path, *rest)  # type: ignore[arg-type]

    server.fake.handle = limited  # type: ignore[method-assign]
    sleeps: list[float] = []
    assert _client(server, sleeps).pull().number == 3
    assert sleeps == [60.0]


@pytest.mark.parametrize(("body", "said"), [
    ({"message": "Validation Failed", "errors": "note is too long"},
     "Validation Failed; note is too long"),
    ({"message": {"note": ["is too long"], "base": ["is locked"]}},
     "note is too long; base is locked"),
    ({"message": "Not Found", "errors": [{"message": "line is not part of the diff"}]},
     "Not Found; line is not part of the diff"),
], ids=["errors-as-a-string", "gitlab-validation-table", "github-errors"])
def test_the_forges_own_words_are_read_whole(body: dict[str, object], said: str) -> None:
    # an "errors" string was read character by character ("n; o; t; e; ..."), and GitLab's
    # validation table shown as a Python dict
    import httpx2

    from reviewtui.forge.http import _message

    assert _message(httpx2.Response(422, json=body)) == said
