"""A GitHub REST API stand-in on 127.0.0.1 for the forge tests: real HTTP, checked contract.

It keeps pull requests, reviews and review comments in memory, answers the eight operations
reviewtui uses, and checks every request body and every answer it gives against the pinned
subset of GitHub's OpenAPI description (``tests/support/openapi_contract.py``); a mismatch is
recorded in ``violations`` (and answered with HTTP 500), which the fixture asserts empty.
Answers start from the description's own examples. It can refuse a token (401), answer 429
or 403 with ``Retry-After`` a number of times, and refuse a review whose line comments are not
on ``diff_lines`` (422, as GitHub does for a line outside the diff), or whose body or a
comment's is longer than GitHub takes (422), and an approval or a request for changes from the
pull request's author (422), and refuse to delete the review comments of ``undeletable`` (403).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.forge_server import FakeForge, ForgeServer, Recorded
from tests.support.openapi_contract import OpenApiContract

CONTRACT_PATH = Path(__file__).parent.parent / "data" / "forge" / "github" / "openapi-subset.json"
DOCS = "https://docs.github.com/rest"
BODY_LIMIT = 65_536  # characters of a review's or a comment's body GitHub takes


@dataclass
class FakeGitHub(FakeForge):
    owner: str = "octo"
    repo: str = "proj"
    token: str = "ghp_testtoken_never_printed"
    login: str = "reviewer"
    contract: OpenApiContract = field(default_factory=lambda: OpenApiContract(CONTRACT_PATH))
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    reviews: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    diff_lines: dict[int, dict[str, set[int]]] = field(default_factory=dict)  # RIGHT side
    rate_status: int = 429  # what the rate-limited requests are answered
    user_refused: bool = False  # GET /user answered 403 (a token that is no user's)
    undeletable: set[int] = field(default_factory=set)  # review comments DELETE answers 403

    def add_pull(self, number: int, *, head_sha: str, base_sha: str, base_ref: str = "main",
                 head_ref: str = "feature", head_owner: str | None = None, title: str = "",
                 body: str | None = "", labels: tuple[str, ...] = ()) -> dict[str, Any]:
        pull = self.contract.example("pull-request")
        full = f"{self.owner}/{self.repo}"
        head_full = f"{head_owner or self.owner}/{self.repo}"
        pull.update(number=number, title=title, body=body, state="open", requested_teams=[],
                    html_url=f"https://github.com/{full}/pull/{number}")
        pull["labels"] = [dict(pull["labels"][0], name=name, id=i + 1)
                          for i, name in enumerate(labels)]
        pull["user"]["login"] = head_owner or "author"
        pull["head"].update(ref=head_ref, sha=head_sha, label=f"{head_owner or self.owner}:"
                                                               f"{head_ref}")
        pull["head"]["repo"].update(full_name=head_full, name=self.repo, fork=bool(head_owner))
        pull["base"].update(ref=base_ref, sha=base_sha, label=f"{self.owner}:{base_ref}")
        pull["base"]["repo"].update(full_name=full, name=self.repo)
        self.pulls[number] = pull
        self.reviews.setdefault(number, [])
        self.comments.setdefault(number, [])
        return pull

    def add_comment(self, number: int, *, path: str, line: int, body: str,
                    user: str = "colleague", reply_to: int | None = None) -> dict[str, Any]:
        comment = self.contract.example("pull-request-review-comment-2")
        comment.update(id=self.new_id(), path=path, line=line, side="RIGHT", body=body,
                       commit_id=self.pulls[number]["head"]["sha"], pull_request_review_id=1)
        comment["original_commit_id"] = comment["commit_id"]
        comment["user"]["login"] = user
        if reply_to is None:
            comment.pop("in_reply_to_id", None)
        else:
            comment["in_reply_to_id"] = reply_to
        self.comments[number].append(comment)
        return comment

    def ops(self, method: str | None = None) -> list[Recorded]:
        return [r for r in self.requests if method is None or r.method == method]

    # --- routing ------------------------------------------------------------------------
    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               authorization: str) -> tuple[int, Any, dict[str, str]]:
        prefix = f"/repos/{self.owner}/{self.repo}/pulls"
        if authorization != f"Bearer {self.token}":
            return 401, {"message": "Bad credentials", "documentation_url": DOCS}, {}
        if self.rate_limited > 0:
            self.rate_limited -= 1
            return self.rate_status, {"message": "API rate limit exceeded",
                                      "documentation_url": DOCS}, {
                "Retry-After": self.retry_after, "X-RateLimit-Remaining": "0"}
        if path == "/user" and method == "GET":
            if self.user_refused:  # a GitHub App's installation token, Actions' GITHUB_TOKEN
                return 403, {"message": "Resource not accessible by integration",
                             "documentation_url": DOCS}, {}
            user = self.contract.example(
                "private-user-response-with-public-and-private-profile-information")
            user["login"] = self.login
            return 200, user, {}
        if not path.startswith(prefix + "/"):
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        rest = path[len(prefix):]
        if match := re.fullmatch(r"/comments/(\d+)", rest):
            if method == "DELETE":
                return self._delete_comment(int(match.group(1)))
            return self._edit_comment(int(match.group(1)), body)
        match = re.fullmatch(r"/(\d+)(/comments|/reviews(?:/(\d+))?)?", rest)
        if match is None or int(match.group(1)) not in self.pulls:
            return 404, {"message": "Not Found", "documentation_url": DOCS}, {}
        number, tail = int(match.group(1)), match.group(2) or ""
        if tail == "" and method == "GET":
            return 200, self.pulls[number], {}
        if tail == "/comments" and method == "GET":
            return 200, self._page(self.comments[number], query), {}
        if tail == "/reviews" and method == "GET":
            return 200, self._page(self.reviews[number], query), {}
        if tail == "/reviews" and method == "POST":
            return self._create_review(number, body)
        if match.group(3) and method == "PUT":
            for review in self.reviews[number]:
                if review["id"] == int(match.group(3)):
                    review["body"] = body["body"]
                    return 200, review, {}
        return 404, {"message": "Not Found", "documentation_url": DOCS}, {}

    @staticmethod
    def _page(items: list[dict[str, Any]], query: dict[str, list[str]]) -> list[dict[str, Any]]:
        size = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        return items[(page - 1) * size:page * size]

    def _edit_comment(self, comment_id: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        for comments in self.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    comment["body"] = body["body"]
                    return 200, comment, {}
        return 404, {"message": "Not Found", "documentation_url": DOCS}, {}

    def _delete_comment(self, comment_id: int) -> tuple[int, Any, dict[str, str]]:
        if comment_id in self.undeletable:
            return 403, {"message": "Must have admin rights to Repository.",
                         "documentation_url": DOCS}, {}
        for number, comments in self.comments.items():
            kept = [c for c in comments if c["id"] != comment_id]
            if len(kept) < len(comments):
                self.comments[number] = kept
                return 204, None, {}
        return 404, {"message": "Not Found", "documentation_url": DOCS}, {}

    def _create_review(self, number: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        texts = [body.get("body", ""), *(item["body"] for item in body.get("comments", []))]
        if any(len(text) > BODY_LIMIT for text in texts):
            return 422, {"message": "Unprocessable Entity", "documentation_url": DOCS,
                         "errors": [f"Body is too long (maximum is {BODY_LIMIT} characters)"]}, {}
        event = body.get("event", "")
        if event in ("APPROVE", "REQUEST_CHANGES") and (
                self.pulls[number]["user"]["login"] == self.login):
            verb = "approve" if event == "APPROVE" else "request changes on"
            return 422, {"message": "Unprocessable Entity", "documentation_url": DOCS,
                         "errors": [f"Review Can not {verb} your own pull request"]}, {}
        allowed = self.diff_lines.get(number)
        for item in body.get("comments", []):
            first = item.get("start_line", item["line"])
            if allowed is not None and not all(
                    n in allowed.get(item["path"], set()) for n in range(first, item["line"] + 1)):
                return 422, {"message": "Unprocessable Entity", "documentation_url": DOCS,
                             "errors": ["Line could not be resolved"]}, {}
        review = self.contract.example("pull-request-review")
        states = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}
        review.update(id=self.new_id(), body=body.get("body", ""),
                      state=states.get(body.get("event", ""), "COMMENTED"),
                      commit_id=body.get("commit_id") or self.pulls[number]["head"]["sha"])
        review["user"]["login"] = self.login
        self.reviews[number].append(review)
        for item in body.get("comments", []):
            comment = self.contract.example("pull-request-review-comment-2")
            comment.pop("in_reply_to_id", None)
            comment.update(id=self.new_id(), path=item["path"], line=item["line"],
                           side=item.get("side", "RIGHT"), body=item["body"],
                           start_line=item.get("start_line"), pull_request_review_id=review["id"],
                           commit_id=review["commit_id"], original_commit_id=review["commit_id"])
            comment["user"]["login"] = self.login
            self.comments[number].append(comment)
        return 200, review, {}


class GitHubServer(ForgeServer):
    """``with GitHubServer() as server:`` ``server.url`` is the API base URL."""

    fake: FakeGitHub

    def __init__(self, fake: FakeGitHub | None = None) -> None:
        super().__init__(fake or FakeGitHub(), "")
