"""A merge request to review, without the network: a bare "GitLab" repository and its API.

As ``forge_world`` for GitHub: ``upstream`` holds ``main`` and the contributor's commit; the
bare ``remote.git`` is what GitLab would hold, the merge request's head at
``refs/merge-requests/N/head`` only (as GitLab keeps it on the target project, for a merge
request from a fork too); ``local`` is the reviewer's clone, its ``origin`` a self-hosted
GitLab's nested project (``https://code.example.com/group/sub/proj.git``, a host named by
``REVIEWTUI_GITLAB_HOSTS``) rewritten to the bare repository by ``url.<bare>.insteadOf``. The
API is ``tests.support.gitlab_server`` at ``REVIEWTUI_GITLAB_API_URL``, the token in
``GITLAB_TOKEN`` (glab's config directory is an empty one).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import GitRepoBuilder
from tests.support.forge_world import BASE, HEAD, git
from tests.support.gitlab_server import FakeGitLab, GitLabServer

HOST = "code.example.com"
ORIGIN_URL = f"https://{HOST}/group/sub/proj.git"
MR_URL = f"https://{HOST}/group/sub/proj/-/merge_requests/{{number}}"


@dataclass
class MergeRequestWorld:
    upstream: GitRepoBuilder
    remote: Path
    local: Path
    server: GitLabServer
    base_sha: str
    head_sha: str

    @property
    def fake(self) -> FakeGitLab:
        return self.server.fake

    def push_mr(self, number: int, commit: str, *, source: Path | None = None) -> None:
        """Make ``commit`` the head of merge request ``number`` on the bare remote."""
        git(source or self.upstream.root, "push", "-q", "--force", str(self.remote),
            f"{commit}:refs/merge-requests/{number}/head")

    def open_mr(self, number: int, head: str, **kwargs: object) -> None:
        self.push_mr(number, head)
        self.fake.add_mr(number, head_sha=head, base_sha=self.base_sha, **kwargs)  # type: ignore[arg-type]


def build_gitlab_world(make_repo: type[GitRepoBuilder], tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch,
                       server: GitLabServer) -> MergeRequestWorld:
    upstream = make_repo()
    upstream.write("app/service.py", BASE)
    base_sha = upstream.commit("base")
    upstream.git("checkout", "-q", "-b", "feature")
    upstream.write("app/service.py", HEAD)
    head_sha = upstream.commit("Triple the charge\n\nCloses #12")
    upstream.git("checkout", "-q", "main")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(upstream.root), str(remote))
    git(remote, "branch", "-D", "feature")  # the head lives at refs/merge-requests/N/head
    local = tmp_path / "local"
    # --no-local: a clone over the network has only what the remote's refs reach; a local
    # clone hardlinks every object, the pull request's head too, and --pr would not fetch it
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(local))
    git(local, "remote", "set-url", "origin", ORIGIN_URL)
    git(local, "config", f"url.{remote.as_uri()}.insteadOf", ORIGIN_URL)
    monkeypatch.setenv("REVIEWTUI_GITLAB_HOSTS", HOST)
    monkeypatch.setenv("REVIEWTUI_GITLAB_API_URL", server.url)
    monkeypatch.setenv("GITLAB_TOKEN", server.fake.token)
    glab = tmp_path / "glab-config"
    glab.mkdir()
    monkeypatch.setenv("GLAB_CONFIG_DIR", str(glab))
    for variable in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(variable, "127.0.0.1,localhost")
    return MergeRequestWorld(upstream, remote, local, server, base_sha, head_sha)
