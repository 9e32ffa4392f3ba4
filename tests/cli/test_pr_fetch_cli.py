"""``--pr`` fetches only what the clone lacks: each command that takes ``--pr`` read the pull
request and ran ``git fetch`` again, also when its head and base were already here (a second
network round trip per command, and a failing one offline). The fetches are counted on the
"remote" side: the bare repository's ``git-upload-pack`` runs through a wrapper that logs each
run (``remote.origin.uploadpack``)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.forge_world import HEAD, PullWorld, git, seed_review

PULL_REFS = "refs/reviewtui/pr/github.com/octo/proj/7"


@pytest.fixture
def fetches(pull_world: PullWorld, tmp_path: Path) -> Path:
    """The log of the remote's ``upload-pack`` runs: one line per fetch from it."""
    log = tmp_path / "fetches.log"
    log.write_text("")
    wrapper = tmp_path / "upload-pack-counting"
    wrapper.write_text(f'#!/bin/sh\necho fetch >> "{log}"\nexec git-upload-pack "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    git(pull_world.local, "config", "remote.origin.uploadpack", str(wrapper))
    return log


def _count(log: Path) -> int:
    return len(log.read_text().splitlines())


def test_a_pull_request_already_here_is_not_fetched_again(
        pull_world: PullWorld, cli: CliRunner, fetches: Path) -> None:
    first = cli("index", "--pr", "7", pull_world.local)
    assert first.code == 0, first.err
    assert _count(fetches) == 1
    seed_review(pull_world)
    for command in (("index",), ("findings",), ("export",), ("index", "--json")):
        result = cli(*command, "--pr", "7", pull_world.local)
        assert result.code == 0, (command, result.err)
    assert _count(fetches) == 1  # head and base were here: no fetch
    assert git(pull_world.local, "rev-parse", f"{PULL_REFS}/head") == pull_world.head_sha
    published = cli("publish", "--dry-run", "--pr", "7", pull_world.local)
    assert published.code == 0 and "app/service.py" in published.out


def test_a_head_that_moved_to_a_commit_not_here_is_fetched(
        pull_world: PullWorld, cli: CliRunner, fetches: Path) -> None:
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    seed_review(pull_world)
    pull_world.upstream.git("checkout", "-q", "feature")
    pull_world.upstream.write("app/service.py", HEAD.replace("amount * 3", "amount * 4"))
    pull_world.upstream.git("commit", "-q", "--amend", "-a", "-m", "Quadruple")
    moved = pull_world.upstream.head()
    pull_world.upstream.git("checkout", "-q", "main")
    pull_world.push_pull(7, moved)
    pull_world.fake.pulls[7]["head"]["sha"] = moved
    listed = cli("findings", "--pr", "7", pull_world.local)
    assert listed.code == 0, listed.err
    assert _count(fetches) == 2
    assert git(pull_world.local, "rev-parse", f"{PULL_REFS}/head") == moved
    assert f"at {pull_world.head_sha[:10]}; its head is {moved[:10]} now" in listed.err


def test_a_head_that_moved_to_a_commit_already_here_is_not_fetched(
        pull_world: PullWorld, cli: CliRunner, fetches: Path) -> None:
    """The author's own clone: the new head was committed (and pushed) from here."""
    assert cli("index", "--pr", "7", pull_world.local).code == 0
    seed_review(pull_world)
    git(pull_world.local, "checkout", "-q", "-b", "mine", pull_world.head_sha)
    (pull_world.local / "app" / "service.py").write_text(HEAD.replace("amount * 3", "amount * 5"))
    git(pull_world.local, "commit", "-q", "-a", "-m", "Five times")
    moved = git(pull_world.local, "rev-parse", "HEAD")
    git(pull_world.local, "push", "-q", str(pull_world.remote), f"{moved}:refs/pull/7/head")
    pull_world.fake.pulls[7]["head"]["sha"] = moved
    before = _count(fetches)
    listed = cli("findings", "--pr", "7", pull_world.local)
    assert listed.code == 0, listed.err
    assert _count(fetches) == before  # the push does not fetch, nor does the command
    assert git(pull_world.local, "rev-parse", f"{PULL_REFS}/head") == moved
    # the head the review was made on stays in the ref's reflog: that review is still found
    assert f"at {pull_world.head_sha[:10]}; its head is {moved[:10]} now" in listed.err
    indexed = cli("index", "--json", "--pr", "7", pull_world.local)
    assert indexed.code == 0, indexed.err
    assert {u["file_path"] for u in indexed.json()["units"]} == {"app/service.py"}


def test_a_merge_request_already_here_is_not_fetched_again(
        make_repo: type[GitRepoBuilder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        cli: CliRunner) -> None:
    """GitLab names the merge base as the base (``diff_refs.base_sha``), not the branch's tip."""
    from tests.support.gitlab_server import GitLabServer
    from tests.support.gitlab_world import build_gitlab_world

    with GitLabServer() as server:
        world = build_gitlab_world(make_repo, tmp_path, monkeypatch, server)
        world.open_mr(7, world.head_sha, title="Charge three times")
        log = tmp_path / "fetches.log"
        wrapper = tmp_path / "upload-pack-counting"
        wrapper.write_text(f'#!/bin/sh\necho fetch >> "{log}"\nexec git-upload-pack "$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
        git(world.local, "config", "remote.origin.uploadpack", str(wrapper))
        first = cli("index", "--json", "--pr", "7", world.local)
        second = cli("index", "--json", "--pr", "7", world.local)
        assert first.code == 0 and second.code == 0, (first.err, second.err)
        assert first.json()["units"] == second.json()["units"]
        assert _count(log) == 1
        assert server.fake.violations == []
