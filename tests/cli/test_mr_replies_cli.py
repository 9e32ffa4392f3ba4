"""Others' replies to the notes reviewtui published on a GitLab merge request are shown with the
review threads already there (``publish --dry-run``, the workbench), as on GitHub: the person
sees the author's answer to their comment. Only reviewtui's own note is left out."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.cli.conftest import CliRunner
from tests.support.forge_world import git, seed_review
from tests.support.gitlab_world import MergeRequestWorld


def test_a_reply_to_a_published_note_is_shown_with_the_threads(
        mr_world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", mr_world.local).code == 0
    seed_review(mr_world)
    assert cli("publish", "--pr", "7", mr_world.local).code == 0
    [ours] = [d for d in mr_world.fake.discussions[7]
              if d["notes"][0]["body"].startswith("Is this covered")]
    first = ours["notes"][0]
    ours["notes"].append(mr_world.fake.note(7, "Yes: test_charge covers it.", "author",
                                            first["position"]))
    dry = cli("publish", "--dry-run", "--pr", "7", mr_world.local)
    assert dry.code == 0, dry.err
    assert "↳ app/service.py L3 @author: Yes: test_charge covers it." in dry.out
    assert "@reviewer: Is this covered" not in dry.out  # our own note is not listed


def test_an_ssh_remote_reaches_the_gitlab_api_glab_names(
        mr_world: MergeRequestWorld, cli: CliRunner, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """``origin`` over ssh, the API on plain http on its own port: the person's glab config
    says so (``api_protocol``, ``api_host``), and ``--pr 7`` reaches it with no setting of
    ours (it called ``https://code.example.com/api/v4`` before)."""
    ssh = "git@code.example.com:group/sub/proj.git"
    git(mr_world.local, "remote", "set-url", "origin", ssh)
    git(mr_world.local, "config", f"url.{mr_world.remote.as_uri()}.insteadOf", ssh)
    monkeypatch.delenv("REVIEWTUI_GITLAB_API_URL")
    api = urlsplit(mr_world.server.url)
    glab = Path(os.environ["GLAB_CONFIG_DIR"])
    (glab / "config.yml").write_text(
        f"hosts:\n  code.example.com:\n    api_protocol: {api.scheme}\n"
        f"    api_host: {api.netloc}{api.path.removesuffix('/api/v4')}\n")
    shown = cli("index", "--pr", "7", mr_world.local)
    assert shown.code == 0, shown.err
    assert "app/service.py" in shown.out
