"""A GitLab served under a path (``http://HOST/gitlab/...``: GitLab's relative URL root),
named with its host in ``REVIEWTUI_GITLAB_HOSTS`` (``HOST/gitlab``): ``--pr 7`` from the origin
remote's URL, or the merge request's URL, and ``publish``, through the real command line against
the local GitLab mounted under ``/gitlab`` (no ``REVIEWTUI_GITLAB_API_URL``: the API URL is
derived from the remote's)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.forge_world import git, seed_review
from tests.support.gitlab_server import GitLabServer
from tests.support.gitlab_world import MergeRequestWorld, build_gitlab_world

API_MR = "/gitlab/api/v4/projects/group%2Fsub%2Fproj/merge_requests/7"


@pytest.fixture
def world(make_repo: type[GitRepoBuilder], tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[MergeRequestWorld]:
    with GitLabServer(mount="/gitlab") as server:
        built = build_gitlab_world(make_repo, tmp_path, monkeypatch, server)
        origin = f"{server.root}/group/sub/proj.git"
        git(built.local, "remote", "set-url", "origin", origin)
        git(built.local, "config", f"url.{built.remote.as_uri()}.insteadOf", origin)
        monkeypatch.setenv("REVIEWTUI_GITLAB_HOSTS", "127.0.0.1/gitlab")
        monkeypatch.delenv("REVIEWTUI_GITLAB_API_URL")
        built.open_mr(7, built.head_sha, title="Charge three times")
        yield built
        assert server.fake.violations == []


def test_a_merge_request_of_a_gitlab_under_a_path_by_number_and_published(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    opened = cli("index", "--pr", "7", world.local)
    assert opened.code == 0, opened.err
    assert "intent: Charge three times" in opened.out
    assert [r.path for r in world.fake.ops("GET")] == [API_MR]
    refs = "refs/reviewtui/pr/127.0.0.1/group/sub/proj/7"
    assert git(world.local, "rev-parse", f"{refs}/head") == world.head_sha
    seed_review(world)
    published = cli("publish", "--pr", "7", world.local)
    assert published.code == 0, published.err
    assert {r.path for r in world.fake.ops("POST")} == {f"{API_MR}/draft_notes",
                                                        f"{API_MR}/draft_notes/bulk_publish"}
    assert len(world.fake.ours(7)) == 3  # two line notes and the summary


def test_a_merge_request_of_a_gitlab_under_a_path_by_url(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    url = f"{world.server.root}/group/sub/proj/-/merge_requests/7"
    opened = cli("index", "--json", "--pr", url, world.local)
    assert opened.code == 0, opened.err
    assert {u["file_path"] for u in opened.json()["units"]} == {"app/service.py"}
    assert [r.path for r in world.fake.ops("GET")] == [API_MR]
