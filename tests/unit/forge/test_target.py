"""Which pull request ``--pr`` names, on which forge, fetched from where."""

from __future__ import annotations

import subprocess

import pytest

from reviewtui.errors import ForgeError, UsageError
from reviewtui.forge.target import parse_pull_url, parse_remote_url, resolve_target


@pytest.mark.parametrize(("url", "forge", "host", "path"), [
    ("https://github.com/octo/proj.git", "github", "github.com", "octo/proj"),
    ("https://github.com/octo/proj", "github", "github.com", "octo/proj"),
    ("git@github.com:octo/proj.git", "github", "github.com", "octo/proj"),
    ("ssh://git@github.com/octo/proj.git", "github", "github.com", "octo/proj"),
    ("https://gitlab.com/group/sub/proj.git", "gitlab", "gitlab.com", "group/sub/proj"),
    ("git@gitlab.example.org:team/proj.git", "gitlab", "gitlab.example.org", "team/proj"),
])
def test_remote_urls(url: str, forge: str, host: str, path: str) -> None:
    found = parse_remote_url(url)
    assert found is not None
    assert (found.forge, found.host, found.path) == (forge, host, path)


@pytest.mark.parametrize("url", ["/srv/git/proj.git", "file:///srv/proj.git",
                                 "https://code.example.com/octo/proj.git", "https://github.com/"])
def test_urls_that_name_no_forge(url: str) -> None:
    assert parse_remote_url(url) is None


def test_an_enterprise_host_is_configured_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVIEWTUI_GITHUB_HOSTS", "code.example.com")
    found = parse_remote_url("git@code.example.com:octo/proj.git")
    assert found is not None and found.forge == "github"
    assert found.api_url == "https://code.example.com/api/v3"


def test_pull_urls_and_api_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    repo, number = parse_pull_url("https://github.com/octo/proj/pull/42/files")
    assert (repo.forge, repo.path, number, repo.api_url) == (
        "github", "octo/proj", 42, "https://api.github.com")
    # GitHub Enterprise by the URL's shape
    repo, number = parse_pull_url("https://ghe.corp.example/team/app/pull/7")
    assert (repo.forge, repo.host, number, repo.api_url) == (
        "github", "ghe.corp.example", 7, "https://ghe.corp.example/api/v3")
    # GitLab, also self-hosted and nested groups
    repo, number = parse_pull_url("https://gitlab.com/g/sub/p/-/merge_requests/9")
    assert (repo.forge, repo.path, number, repo.api_url) == (
        "gitlab", "g/sub/p", 9, "https://gitlab.com/api/v4")
    repo, _ = parse_pull_url("http://code.internal/g/p/-/merge_requests/3")
    assert (repo.forge, repo.api_url) == ("gitlab", "http://code.internal/api/v4")
    monkeypatch.setenv("REVIEWTUI_GITHUB_API_URL", "http://127.0.0.1:9/")
    repo, _ = parse_pull_url("https://github.com/octo/proj/pull/1")
    assert repo.api_url == "http://127.0.0.1:9"


@pytest.mark.parametrize("spec", ["https://github.com/octo/proj/issues/3", "ftp://x/y/pull/1",
                                  "octo/proj#3", "seven"])
def test_bad_specs_are_usage_errors(spec: str) -> None:
    with pytest.raises(UsageError):
        resolve_target(spec, {})


def test_a_number_is_upstreams_then_origins_and_a_url_finds_its_remote() -> None:
    # a fork's clone: origin is the fork, the pull requests are opened on upstream
    remotes = {"origin": "git@github.com:me/proj.git",
               "upstream": "https://github.com/octo/proj.git"}
    by_number = resolve_target("12", remotes)
    assert (by_number.repo.path, by_number.remote, by_number.fetch_source) == (
        "octo/proj", "upstream", "upstream")
    assert (by_number.head_ref, by_number.base_ref) == (
        "refs/reviewtui/pr/github.com/octo/proj/12/head",
        "refs/reviewtui/pr/github.com/octo/proj/12/base")
    alone = resolve_target("12", {"origin": "git@github.com:me/proj.git",
                                  "mirror": "https://github.com/octo/proj.git"})
    assert (alone.repo.path, alone.remote) == ("me/proj", "origin")
    elsewhere_up = resolve_target("12", {"origin": "git@github.com:me/proj.git",
                                         "upstream": "/srv/git/proj.git"})
    assert elsewhere_up.remote == "origin"  # an upstream on no forge is passed over
    by_url = resolve_target("https://github.com/Octo/proj/pull/5", remotes)
    assert (by_url.remote, by_url.label) == ("upstream", "Octo/proj#5")
    elsewhere = resolve_target("https://github.com/other/thing/pull/5", remotes)
    assert elsewhere.fetch_source == "https://github.com/other/thing.git"


def test_a_number_without_a_forge_remote() -> None:
    with pytest.raises(ForgeError, match="the origin remote names no GitHub or GitLab"):
        resolve_target("3", {"origin": "/srv/git/proj.git"})
    with pytest.raises(ForgeError, match="no remote"):
        resolve_target("3", {})
    with pytest.raises(UsageError):
        resolve_target("0", {"origin": "git@github.com:me/proj.git"})


@pytest.mark.parametrize("spec", [
    "https://github.com/Octo/Proj/pull/7", "https://gitlab.com/g/sub.group/p.lock/-/merge_requests/7",
    "https://gitlab.example.com/.hidden/a..b/x~y^z/-/merge_requests/7",
    "https://gitlab.example.com/grp/na me:x*[\\/-/merge_requests/7",
])
def test_pull_refs_are_valid_ref_names_and_name_their_repository(spec: str) -> None:
    target = resolve_target(spec, {})
    for ref in (target.head_ref, target.base_ref):
        checked = subprocess.run(["git", "check-ref-format", ref], capture_output=True)
        assert checked.returncode == 0, ref
    assert target.head_ref.startswith(f"refs/reviewtui/pr/{target.repo.host}/")
    other = resolve_target("https://github.com/someone/else/pull/7", {})
    assert other.head_ref != target.head_ref  # the same number in another repository


def test_a_self_hosted_forge_on_its_own_port_keeps_it() -> None:
    """The web port of an https remote or pull request URL is the API's port too; an ssh
    remote's port is ssh's, not the API's."""
    repo, number = parse_pull_url("https://gitlab.corp.example:8443/g/p/-/merge_requests/3")
    assert (repo.host, number) == ("gitlab.corp.example", 3)
    assert repo.api_url == "https://gitlab.corp.example:8443/api/v4"
    assert repo.web_url == "https://gitlab.corp.example:8443/g/p"
    remote = parse_remote_url("http://gitlab.corp.example:8080/g/p.git")
    assert remote is not None and remote.api_url == "http://gitlab.corp.example:8080/api/v4"
    ssh = parse_remote_url("ssh://git@gitlab.corp.example:2222/g/p.git")
    assert ssh is not None and ssh.api_url == "https://gitlab.corp.example/api/v4"
    target = resolve_target("https://gitlab.corp.example:8443/g/p/-/merge_requests/3",
                            {"origin": "ssh://git@gitlab.corp.example:2222/g/p.git"})
    assert target.remote == "origin"  # the same repository, reached over ssh
