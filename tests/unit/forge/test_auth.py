"""The token comes from where the person keeps it, and never shows its value."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.errors import ForgeAuthError
from reviewtui.forge.auth import Token, find_token
from reviewtui.forge.target import RepoAddress

GITHUB = RepoAddress("github", "github.com", "octo/proj")
ENTERPRISE = RepoAddress("github", "ghe.example.com", "octo/proj")
GITLAB = RepoAddress("gitlab", "gitlab.example.com", "g/p")


@pytest.fixture(autouse=True)
def no_tokens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
                 "GITLAB_TOKEN", "GLAB_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no gh


def test_the_value_never_shows() -> None:
    token = Token("GH_TOKEN", "ghp_secret")
    assert "ghp_secret" not in str(token) + repr(token) + f"{token}"
    assert str(token) == "token from GH_TOKEN"


def test_github_environment_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "b")
    assert find_token(GITHUB).source == "GITHUB_TOKEN"
    monkeypatch.setenv("GH_TOKEN", "a")
    assert (find_token(GITHUB).source, find_token(GITHUB).value) == ("GH_TOKEN", "a")
    monkeypatch.setenv("GH_ENTERPRISE_TOKEN", "e")
    assert find_token(GITHUB).source == "GH_TOKEN"  # github.com ignores the Enterprise one
    assert find_token(ENTERPRISE).source == "GH_ENTERPRISE_TOKEN"


def _fake_gh(folder: Path, script: str) -> None:
    gh = folder / "gh"
    gh.write_text("#!/bin/sh\n" + script)
    gh.chmod(0o755)


def test_gh_auth_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fake_gh(tmp_path, 'test "$1 $2 $3 $4" = "auth token --hostname github.com" '
                       '&& echo gho_from_gh && exit 0\nexit 1\n')
    monkeypatch.setenv("PATH", str(tmp_path))
    token = find_token(GITHUB)
    assert (token.source, token.value) == ("gh auth token", "gho_from_gh")
    with pytest.raises(ForgeAuthError, match=r"no GitHub token for ghe\.example\.com"):
        find_token(ENTERPRISE)  # gh knows no token for that host


def test_no_token_says_where_it_looked() -> None:
    with pytest.raises(ForgeAuthError) as caught:
        find_token(GITHUB)
    assert "GH_TOKEN or GITHUB_TOKEN" in str(caught.value)
    assert "gh auth login" in str(caught.value)


def test_gitlab_token_and_glab_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GLAB_CONFIG_DIR", str(tmp_path))
    with pytest.raises(ForgeAuthError, match="GITLAB_TOKEN"):
        find_token(GITLAB)
    (tmp_path / "config.yml").write_text(
        "hosts:\n  gitlab.example.com:\n    token: glpat-from-glab\n    api_host: x\n")
    token = find_token(GITLAB)
    assert token.value == "glpat-from-glab" and token.source.startswith("glab config (")
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-env")
    assert find_token(GITLAB).source == "GITLAB_TOKEN"
    (tmp_path / "config.yml").write_text("hosts: [not: {a mapping")
    monkeypatch.delenv("GITLAB_TOKEN")
    with pytest.raises(ForgeAuthError):
        find_token(GITLAB)  # an unreadable config is no token, not a crash


# glab keys ``hosts`` by host name alone (``glab auth login`` refuses a name with a "/"); a
# GitLab served under a path is an entry whose ``api_host`` carries the path
# (``api_host: host/gitlab``: glab's API is ``{api_protocol}://{api_host}/api/v4/``).
UNDER_PATH = RepoAddress("gitlab", "code.corp.example", "g/p", root="gitlab")
AT_ROOT = RepoAddress("gitlab", "code.corp.example", "g/p")


def _glab(monkeypatch: pytest.MonkeyPatch, folder: Path, config: str) -> None:
    """A glab ``config.yml`` as glab writes it (``git_protocol`` beside the hosts too)."""
    monkeypatch.setenv("GLAB_CONFIG_DIR", str(folder))
    (folder / "config.yml").write_text("git_protocol: ssh\nhost: gitlab.com\n" + config)


def test_a_gitlab_under_a_path_gets_the_token_glab_keeps_for_that_path(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _glab(monkeypatch, tmp_path,
          "hosts:\n"
          "    gitlab.com:\n        api_protocol: https\n        api_host: gitlab.com\n"
          "        token: glpat-dotcom\n"
          "    code.corp.example:\n        git_protocol: ssh\n"
          "        api_host: code.corp.example/gitlab\n        api_protocol: https\n"
          "        token: glpat-under-path\n")
    assert find_token(UNDER_PATH).value == "glpat-under-path"
    # that entry is the instance under /gitlab: a GitLab at the host's root is another one
    with pytest.raises(ForgeAuthError, match=r"no GitLab token for code\.corp\.example"):
        find_token(AT_ROOT)


def test_the_entry_naming_the_path_wins_over_the_bare_host(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Two GitLabs on one host: the root's entry (no path) and the path's (its api_host, or a
    key written with the path by ``glab config set --host``) each get their own token."""
    for spelled in ("    code.corp.example/gitlab:\n        token: glpat-under-path\n",
                    "    ssh.corp.example:\n        api_host: https://code.corp.example/gitlab/\n"
                    "        token: glpat-under-path\n"):
        _glab(monkeypatch, tmp_path,
              "hosts:\n    code.corp.example:\n        api_host: code.corp.example\n"
              "        token: glpat-root\n" + spelled)
        assert find_token(UNDER_PATH).value == "glpat-under-path", spelled
        assert find_token(AT_ROOT).value == "glpat-root", spelled


def test_a_gitlab_under_a_path_falls_back_to_the_bare_hosts_entry(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An entry for the host that names no path (what ``glab auth login`` writes when given
    the host name) stands for the instance under the path when nothing names that path."""
    _glab(monkeypatch, tmp_path, "hosts:\n    code.corp.example:\n        token: glpat-bare\n")
    token = find_token(UNDER_PATH)
    assert token.value == "glpat-bare" and "code.corp.example" in token.source
    # but not the entry of another path on that host, nor another host's
    _glab(monkeypatch, tmp_path,
          "hosts:\n    code.corp.example:\n        api_host: code.corp.example/tools\n"
          "        token: glpat-tools\n"
          "    other.corp.example:\n        api_host: other.corp.example/gitlab\n"
          "        token: glpat-other\n")
    with pytest.raises(ForgeAuthError, match=r"no GitLab token for code\.corp\.example/gitlab"
                       ) as caught:
        find_token(UNDER_PATH)
    assert "api_host code.corp.example/gitlab" in str(caught.value)  # how glab keeps it
    # an entry that names the path but keeps its token elsewhere (glab's keyring) leaves the
    # bare host's (then the root instance's) alone
    _glab(monkeypatch, tmp_path,
          "hosts:\n    code.corp.example:\n        token: glpat-root\n"
          "    code.corp.example/gitlab:\n        api_protocol: https\n")
    with pytest.raises(ForgeAuthError):
        find_token(UNDER_PATH)
