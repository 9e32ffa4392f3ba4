"""A GitLab served under a path (``https://host/gitlab/group/project``: GitLab's relative URL
root). Its API is under that path too (``https://host/gitlab/api/v4``), its https remotes and
merge request URLs carry the path before the project, its ssh remotes do not. The path is named
with the host (``REVIEWTUI_GITLAB_HOSTS=host/gitlab``), or by ``REVIEWTUI_GITLAB_API_URL``."""

from __future__ import annotations

import pytest

from reviewtui.forge.target import parse_pull_url, parse_remote_url, resolve_target


@pytest.fixture(autouse=True)
def _instance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVIEWTUI_GITLAB_HOSTS", "other.example, code.corp.example/gitlab")
    monkeypatch.delenv("REVIEWTUI_GITLAB_API_URL", raising=False)


@pytest.mark.parametrize("url", [
    "https://code.corp.example/gitlab/group/sub/proj.git",
    "https://code.corp.example/gitlab/group/sub/proj",
    "git@code.corp.example:group/sub/proj.git",
    "ssh://git@code.corp.example/group/sub/proj.git",
])
def test_a_remote_of_a_gitlab_under_a_path(url: str) -> None:
    found = parse_remote_url(url)
    assert found is not None
    assert (found.forge, found.host, found.path) == ("gitlab", "code.corp.example",
                                                     "group/sub/proj")
    assert found.api_url == "https://code.corp.example/gitlab/api/v4"
    assert found.web_url == "https://code.corp.example/gitlab/group/sub/proj"


def test_a_merge_request_url_of_a_gitlab_under_a_path() -> None:
    repo, number = parse_pull_url(
        "https://code.corp.example/gitlab/group/sub/proj/-/merge_requests/7")
    assert (repo.forge, repo.path, number) == ("gitlab", "group/sub/proj", 7)
    assert repo.api_url == "https://code.corp.example/gitlab/api/v4"
    target = resolve_target("https://code.corp.example/gitlab/group/sub/proj/-/merge_requests/7",
                            {"origin": "git@code.corp.example:group/sub/proj.git"})
    assert target.remote == "origin" and target.label == "group/sub/proj!7"
    elsewhere = resolve_target(
        "https://code.corp.example/gitlab/group/sub/proj/-/merge_requests/7", {})
    assert elsewhere.fetch_source == "https://code.corp.example/gitlab/group/sub/proj.git"


def test_the_path_is_also_read_from_the_api_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVIEWTUI_GITLAB_HOSTS", "git.corp.example")
    monkeypatch.setenv("REVIEWTUI_GITLAB_API_URL", "https://git.corp.example/tools/gitlab/api/v4/")
    repo, _ = parse_pull_url("https://git.corp.example/tools/gitlab/g/p/-/merge_requests/3")
    assert repo.path == "g/p"
    remote = parse_remote_url("https://git.corp.example/tools/gitlab/g/p.git")
    assert remote is not None and remote.path == "g/p"


def test_a_host_named_without_a_path_keeps_the_whole_path() -> None:
    found = parse_remote_url("https://other.example/gitlab/group/proj.git")
    assert found is not None and found.path == "gitlab/group/proj"  # a group named gitlab
    assert found.api_url == "https://other.example/api/v4"
