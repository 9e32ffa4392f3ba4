"""A pull/merge request as reviewtui uses it, whichever forge it lives on, and the client for it.

``PullInfo`` is what opening needs (the head and base to fetch, the stated purpose) and what
publishing checks (the head as it is now, against the head that was reviewed). ``open_client``
gives the forge's own client (``GitHubClient`` or ``GitLabClient``); ``read_pull`` reads either
into a ``PullInfo``.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewtui.forge.auth import Token, find_token
from reviewtui.forge.github import GitHubClient, GitHubPull
from reviewtui.forge.gitlab import GitLabClient, GitLabMergeRequest
from reviewtui.forge.http import Sleep
from reviewtui.forge.target import PullTarget

ForgeClient = GitHubClient | GitLabClient


@dataclass(frozen=True, slots=True)
class PullInfo:
    number: int
    title: str
    body: str
    labels: tuple[str, ...]
    state: str
    url: str
    author: str | None
    head_sha: str
    head_label: str  # "owner:branch" (a fork's owner for a pull request from a fork)
    base_branch: str
    base_sha: str
    kind: str = "Pull request"  # "Merge request" on GitLab

    def description(self) -> str:
        """The stated purpose as the intent takes it: title, body, labels and where it is."""
        lines = [self.title.strip() or f"{self.kind.lower()} {self.number}"]
        if self.body.strip():
            lines += ["", self.body.strip()]
        lines.append("")
        if self.labels:
            lines.append("Labels: " + ", ".join(self.labels))
        by = f" by @{self.author}" if self.author else ""
        lines.append(f"{self.kind}: {self.url}{by} ({self.head_label} into {self.base_branch})")
        return "\n".join(lines)


def _from_github(pull: GitHubPull) -> PullInfo:
    head_owner = pull.head.repo.full_name.split("/")[0] if pull.head.repo else "(deleted fork)"
    return PullInfo(pull.number, pull.title, pull.body or "",
                    tuple(label.name for label in pull.labels), pull.state, pull.html_url,
                    pull.user.login if pull.user else None, pull.head.sha,
                    f"{head_owner}:{pull.head.ref}", pull.base.ref, pull.base.sha)


def from_gitlab(mr: GitLabMergeRequest, target: PullTarget) -> PullInfo:
    fork = (mr.source_project_id is not None and mr.target_project_id is not None
            and mr.source_project_id != mr.target_project_id)
    source = f"fork (project {mr.source_project_id})" if fork else target.repo.path
    head = mr.sha or (mr.diff_refs.head_sha if mr.diff_refs else "")
    base = mr.diff_refs.base_sha if mr.diff_refs else ""
    return PullInfo(mr.iid, mr.title, mr.description or "", tuple(mr.labels), mr.state,
                    mr.web_url, mr.author.username if mr.author else None, head,
                    f"{source}:{mr.source_branch}", mr.target_branch, base, "Merge request")


def open_client(target: PullTarget, *, token: Token | None = None,
                sleep: Sleep | None = None) -> ForgeClient:
    """The API client of ``target``'s forge, with the person's token."""
    found = token or find_token(target.repo)
    if target.repo.forge == "gitlab":
        return GitLabClient(target, found, sleep=sleep)
    return GitHubClient(target, found, sleep=sleep)


def read_pull(client: ForgeClient) -> PullInfo:
    if isinstance(client, GitLabClient):
        return from_gitlab(client.merge_request(), client.target)
    return _from_github(client.pull())
