"""A pull request to review, without the network: a bare "GitHub" repository and its API.

``upstream`` holds ``main`` and the contributor's commit; the bare ``remote.git`` is what
GitHub would hold, with the pull request's head at ``refs/pull/N/head`` (and, for a pull
request from a fork, nowhere else); ``local`` is the reviewer's clone, whose ``origin`` says
``https://github.com/octo/proj.git`` and whose git config rewrites that URL to the bare
repository (``url.<bare>.insteadOf``), so reviewtui's real fetch runs. The API is
``tests.support.github_server`` at ``REVIEWTUI_GITHUB_API_URL``, the token in ``GH_TOKEN``.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from reviewtui.sessions import SessionStore
from reviewtui.sessions.review_records import (
    ReviewComment,
    ReviewVerdict,
    StoredFinding,
    StoredFix,
)
from tests.conftest import GitRepoBuilder
from tests.support.github_server import FakeGitHub, GitHubServer

ORIGIN_URL = "https://github.com/octo/proj.git"
PULL_URL = "https://github.com/octo/proj/pull/{number}"
BASE = ("def charge(amount):\n    total = amount * 2\n    return total\n\n\n"
        "def refund(amount):\n    return amount\n\n\n"
        + "".join(f"def helper_{i}():\n    return {i}\n\n\n" for i in range(12))
        + "def tail(amount):\n    return amount + 1\n")
HEAD = BASE.replace("amount * 2", "amount * 3").replace("return amount + 1",
                                                         "return amount + 2")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {done.stderr.decode()}")
    return done.stdout.decode().strip()


def contributor_fork(tmp_path: Path, upstream: Path, base_sha: str) -> tuple[Path, str]:
    """A contributor's clone of ``upstream`` with one commit on ``contrib-branch`` from
    ``base_sha`` (adding ``app/extra.py``): the fork and its head."""
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", str(upstream), str(fork))
    git(fork, "checkout", "-q", "-b", "contrib-branch", base_sha)
    (fork / "app" / "extra.py").write_text("def extra():\n    return 1\n")
    git(fork, "add", "-A")
    git(fork, "commit", "-q", "-m", "Add extra")
    return fork, git(fork, "rev-parse", "HEAD")


@dataclass
class PullWorld:
    upstream: GitRepoBuilder
    remote: Path
    local: Path
    server: GitHubServer
    base_sha: str
    head_sha: str

    @property
    def fake(self) -> FakeGitHub:
        return self.server.fake

    def push_pull(self, number: int, commit: str, *, source: Path | None = None) -> None:
        """Make ``commit`` the head of pull request ``number`` on the bare remote."""
        git(source or self.upstream.root, "push", "-q", "--force", str(self.remote),
            f"{commit}:refs/pull/{number}/head")

    def open_pull(self, number: int, head: str, **kwargs: object) -> None:
        self.push_pull(number, head)
        self.fake.add_pull(number, head_sha=head, base_sha=self.base_sha, **kwargs)  # type: ignore[arg-type]


def build_world(make_repo: type[GitRepoBuilder], tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch, server: GitHubServer) -> PullWorld:
    upstream = make_repo()
    upstream.write("app/service.py", BASE)
    base_sha = upstream.commit("base")
    upstream.git("checkout", "-q", "-b", "feature")
    upstream.write("app/service.py", HEAD)
    head_sha = upstream.commit("Triple the charge\n\nFixes #12")
    upstream.git("checkout", "-q", "main")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(upstream.root), str(remote))
    git(remote, "branch", "-D", "feature")  # the head lives at refs/pull/N/head only
    local = tmp_path / "local"
    # --no-local: a clone over the network has only what the remote's refs reach; a local
    # clone hardlinks every object, the pull request's head too, and --pr would not fetch it
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(local))
    git(local, "remote", "set-url", "origin", ORIGIN_URL)
    git(local, "config", f"url.{remote.as_uri()}.insteadOf", ORIGIN_URL)
    monkeypatch.setenv("REVIEWTUI_GITHUB_API_URL", server.url)
    monkeypatch.setenv("GH_TOKEN", server.fake.token)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no 'gh' of the developer's
    for variable in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(variable, "127.0.0.1,localhost")
    return PullWorld(upstream, remote, local, server, base_sha, head_sha)


class HasLocal(Protocol):
    local: Path


def seed_review(world: HasLocal, number: int = 7) -> str:
    """The person's review of pull request ``number`` as the workbench would keep it."""
    from reviewtui.app.open_pr import locate_pull, pull_selector
    from reviewtui.pipeline import load_change

    _repo, target = locate_pull(world.local, str(number))
    loaded = load_change(world.local, pull_selector(target))
    fix = StoredFix(start_line=2, end_line=2, replacement="    total = amount * 2\n",
                    original=["    total = amount * 3"], file_lines=HEAD.count("\n"),
                    original_sha=hashlib.sha256(b"    total = amount * 3\n").hexdigest())
    findings = [
        StoredFinding(fingerprint="f-rate", title="Charge rate tripled", severity="P1",
                      body="Every charge is 50% higher.", file_path="app/service.py",
                      start_line=2, end_line=2, fix=fix),
        StoredFinding(fingerprint="f-helper", title="Helper returns a constant",
                      severity="P3", file_path="app/service.py", start_line=20, end_line=20),
        StoredFinding(fingerprint="f-dismissed", title="Not a problem", severity="P2",
                      file_path="app/service.py", start_line=3, end_line=3),
    ]
    with SessionStore() as store:
        session = store.session_for_change(str(loaded.root), loaded.change_set.key, "pr")
        sid = session.session_id
        store.merge_findings(sid, findings, lambda _f: True)
        store.set_finding_state(sid, "f-rate", "accepted")
        store.set_finding_state(sid, "f-dismissed", "dismissed", "intended")
        store.save_comment(sid, ReviewComment(file_path="app/service.py", start_line=3,
                                              end_line=3, body="Is this covered by a test?"))
        store.set_verdict(sid, ReviewVerdict(verdict="request_changes",
                                             summary="The rate change needs a decision."))
    return sid
