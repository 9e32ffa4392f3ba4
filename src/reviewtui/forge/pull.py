"""A pull/merge request as reviewtui uses it, whichever forge it lives on, and the client for it.

``PullInfo`` is what opening needs (the head and base to fetch, the stated purpose) and what
publishing checks (the head as it is now, against the head that was reviewed).
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewtui.errors import ForgeError
from reviewtui.forge.auth import Token, find_token
from reviewtui.forge.github import GitHubClient, GitHubPull
from reviewtui.forge.http import Sleep
from reviewtui.forge.target import PullTarget


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

    def description(self) -> str:
        """The stated purpose as the intent takes it: title, body, labels and where it is."""
        lines = [self.title.strip() or f"pull request {self.number}"]
        if self.body.strip():
            lines += ["", self.body.strip()]
        lines.append("")
        if self.labels:
            lines.append("Labels: " + ", ".join(self.labels))
        by = f" by @{self.author}" if self.author else ""
        lines.append(f"Pull request: {self.url}{by} ({self.head_label} into {self.base_branch})")
        return "\n".join(lines)


def _from_github(pull: GitHubPull) -> PullInfo:
    head_owner = pull.head.repo.full_name.split("/")[0] if pull.head.repo else "(deleted fork)"
    return PullInfo(pull.number, pull.title, pull.body or "",
                    tuple(label.name for label in pull.labels), pull.state, pull.html_url,
                    pull.user.login if pull.user else None, pull.head.sha,
                    f"{head_owner}:{pull.head.ref}", pull.base.ref, pull.base.sha)


def open_client(target: PullTarget, *, token: Token | None = None,
                sleep: Sleep | None = None) -> GitHubClient:
    """The API client of ``target``'s forge, with the person's token."""
    if target.repo.forge != "github":
        raise ForgeError(f"{target.label}: GitLab merge requests are not supported yet",
                         hint="review it with --range after fetching "
                              f"refs/merge-requests/{target.number}/head")
    return GitHubClient(target, token or find_token(target.repo), sleep=sleep)


def read_pull(client: GitHubClient) -> PullInfo:
    return _from_github(client.pull())
