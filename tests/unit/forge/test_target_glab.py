"""A GitLab reached over ssh: its API is where the person's glab config says it is.

An ssh remote (``git@HOST:group/proj.git``) tells neither the web's scheme and port nor a host
the API may live on apart from the ssh one. glab keeps them per host (``api_protocol``,
``api_host``): a GitLab on plain http, or on port 8443, was called at ``https://HOST/api/v4``
and never answered.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.forge.auth import find_token
from reviewtui.forge.target import parse_remote_url


@pytest.fixture(autouse=True)
def _glab(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("REVIEWTUI_GITLAB_HOSTS", "code.corp.example, ssh.corp.example")
    monkeypatch.setenv("GLAB_CONFIG_DIR", str(tmp_path))
    return tmp_path / "config.yml"


def test_an_ssh_remote_calls_the_api_glab_keeps_for_its_host(_glab: Path) -> None:
    _glab.write_text("hosts:\n  code.corp.example:\n    api_protocol: http\n"
                     "    api_host: code.corp.example:8443\n    token: glpat-x\n")
    for url in ("git@code.corp.example:group/proj.git",
                "ssh://git@code.corp.example:2222/group/proj.git"):
        found = parse_remote_url(url)
        assert found is not None and found.path == "group/proj"
        assert found.api_url == "http://code.corp.example:8443/api/v4"


def test_an_api_host_apart_from_the_ssh_host(
        _glab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """glab's entry for the ssh host names the API elsewhere, under a path: that API, and the
    token of that same entry (the two lookups agree on the instance)."""
    monkeypatch.delenv("GITLAB_TOKEN", raising=False)
    _glab.write_text("hosts:\n  ssh.corp.example:\n"
                     "    api_host: https://code.corp.example/gitlab/\n    token: glpat-x\n")
    found = parse_remote_url("git@ssh.corp.example:group/proj.git")
    assert found is not None
    assert found.api_url == "https://code.corp.example/gitlab/api/v4"
    assert (found.root, found.path) == ("gitlab", "group/proj")
    assert find_token(found).value == "glpat-x"


def test_what_the_url_or_the_person_says_comes_first(
        _glab: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _glab.write_text("hosts:\n  code.corp.example:\n    api_protocol: http\n"
                     "    api_host: code.corp.example:8443\n")
    https = parse_remote_url("https://code.corp.example/group/proj.git")
    assert https is not None and https.api_url == "https://code.corp.example/api/v4"
    monkeypatch.setenv("REVIEWTUI_GITLAB_API_URL", "https://api.corp.example/api/v4")
    ssh = parse_remote_url("git@code.corp.example:group/proj.git")
    assert ssh is not None and ssh.api_url == "https://api.corp.example/api/v4"


def test_without_an_entry_or_a_readable_config_the_host_is_called(_glab: Path) -> None:
    found = parse_remote_url("git@code.corp.example:group/proj.git")
    assert found is not None and found.api_url == "https://code.corp.example/api/v4"
    _glab.write_text("hosts: [not: {a mapping")
    found = parse_remote_url("git@code.corp.example:group/proj.git")
    assert found is not None and found.api_url == "https://code.corp.example/api/v4"
    _glab.write_text("hosts:\n  gitlab.com:\n    api_protocol: http\n")
    found = parse_remote_url("git@code.corp.example:group/proj.git")
    assert found is not None and found.api_url == "https://code.corp.example/api/v4"
