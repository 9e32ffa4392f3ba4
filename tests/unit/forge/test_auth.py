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
