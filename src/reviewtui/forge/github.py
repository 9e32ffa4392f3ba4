"""The GitHub REST endpoints reviewtui uses, and the few fields it reads from their answers.

Eight operations of GitHub's OpenAPI description (``pulls/get``, ``pulls/list-reviews``,
``pulls/list-review-comments``, ``pulls/create-review``, ``pulls/update-review``,
``pulls/update-review-comment``, ``pulls/delete-review-comment``, ``users/get-authenticated``);
the contract tests check every request and answer against the pinned subset in
``tests/data/forge/github/``. The models read only what is used and ignore the rest, so a field
GitHub adds never breaks a review.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from reviewtui.forge.auth import Token
from reviewtui.forge.http import ForgeHttp, Sleep
from reviewtui.forge.target import PullTarget

API_VERSION = "2022-11-28"

ReviewEvent = Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"]


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore")


class GitHubUser(_Read):
    login: str


class GitHubLabel(_Read):
    name: str


class GitHubRepoRef(_Read):
    full_name: str
    clone_url: str | None = None


class GitHubBranch(_Read):
    ref: str
    sha: str
    repo: GitHubRepoRef | None = None  # None: the fork was deleted


class GitHubPull(_Read):
    number: int
    title: str
    body: str | None = None
    state: str
    html_url: str
    user: GitHubUser | None = None
    labels: list[GitHubLabel] = []
    head: GitHubBranch
    base: GitHubBranch


class GitHubReview(_Read):
    id: int
    body: str | None = None
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, PENDING, DISMISSED
    user: GitHubUser | None = None
    commit_id: str | None = None


class GitHubReviewComment(_Read):
    id: int
    path: str
    body: str
    line: int | None = None  # None: outdated (its line is gone from the diff)
    start_line: int | None = None
    side: str | None = None
    user: GitHubUser | None = None
    in_reply_to_id: int | None = None
    pull_request_review_id: int | None = None
    commit_id: str | None = None  # the commit it is on now (moves with later pushes)
    original_commit_id: str | None = None  # the commit it was written on




class GitHubClient:
    """One repository's pull requests on github.com or a GitHub Enterprise server."""

    def __init__(self, target: PullTarget, token: Token, *, sleep: Sleep | None = None) -> None:
        self.target = target
        owner, repo = target.repo.owner_repo
        self.prefix = f"repos/{owner}/{repo}"
        extra = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION}
        self.http = ForgeHttp(target.repo.api_url, token, what=f"GitHub ({target.repo.host})",
                              sleep=sleep, extra_headers=extra)

    def close(self) -> None:
        self.http.close()

    def pulls_path(self, suffix: str = "") -> str:
        return f"{self.prefix}/pulls/{self.target.number}{suffix}"

    def pull(self) -> GitHubPull:
        data = self.http.request("GET", self.pulls_path(), not_found=(
            f"pull request {self.target.label} not found on {self.target.repo.host}"))
        return self.http.parsed(GitHubPull, data, f"pull request {self.target.label}")

    def viewer(self) -> str | None:
        """The login the token acts as (``GET /user``), or None when the forge will not say
        (a GitHub App's or Actions' token: HTTP 403)."""
        data = self.http.refusable("user")
        return None if data is None else self.http.parsed(GitHubUser, data,
                                                          "the token's user").login

    def reviews(self) -> list[GitHubReview]:
        return [self.http.parsed(GitHubReview, item, "a review") for item in self.http.pages(
            self.pulls_path("/reviews"))]

    def review_comments(self) -> list[GitHubReviewComment]:
        return [self.http.parsed(GitHubReviewComment, item, "a review comment")
                for item in self.http.pages(self.pulls_path("/comments"))]

    def create_review(self, payload: dict[str, Any]) -> GitHubReview:
        data = self.http.request("POST", self.pulls_path("/reviews"), body=payload)
        return self.http.parsed(GitHubReview, data, "the new review")

    def update_review(self, review_id: int, body: str) -> GitHubReview:
        data = self.http.request("PUT", self.pulls_path(f"/reviews/{review_id}"),
                                 body={"body": body})
        return self.http.parsed(GitHubReview, data, "the updated review")

    def update_comment(self, comment_id: int, body: str) -> GitHubReviewComment:
        data = self.http.request("PATCH", f"{self.prefix}/pulls/comments/{comment_id}",
                                 body={"body": body})
        return self.http.parsed(GitHubReviewComment, data, "the updated comment")
