"""The GitLab REST endpoints reviewtui uses, and the few fields it reads from their answers.

From GitLab's OpenAPI description (``doc/api/openapi/openapi_v2.yaml``): the merge request
(``getApiV4ProjectsIdMergeRequestsMergeRequestIid``), draft notes (list, create, update, delete,
bulk publish: one review), approvals and approve. The description leaves out the discussions
API, which re-publishing (finding the notes reviewtui wrote, taking back the ones the review no
longer has) and the others' threads need: those calls (list discussions, edit or delete a note,
resolve a thread) follow ``doc/api/discussions.md``; and the token's own
user (``GET /user``, ``doc/api/users.md``), whose notes alone are reviewtui's to edit. The
contract tests check every request and answer (``tests/data/forge/gitlab/``). The project is
named by its URL-encoded path (``group%2Fsub%2Fproj``), so no lookup of its numeric id is
needed. The
token goes in ``Authorization: Bearer``, which GitLab takes for personal, project and group
access tokens and for the OAuth token glab keeps after a web login alike
(``doc/api/rest/authentication.md``); ``PRIVATE-TOKEN`` would refuse the OAuth one.

The models read only what is used and ignore the rest: the description types several fields
loosely (``labels`` as a string, ``discussion_id`` as an integer), GitLab sends lists and hex
strings, and a field it adds never breaks a review.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict

from reviewtui.errors import ForgeError, ForgeNotFoundError
from reviewtui.forge.auth import Token
from reviewtui.forge.http import ForgeHttp, Sleep
from reviewtui.forge.target import PullTarget

REVIEWDOG = ("'reviewtui export --format rdjson' and reviewdog's gitlab-mr-discussion "
             "reporter post it as discussions")


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore")


class GitLabUser(_Read):
    username: str


class GitLabDiffRefs(_Read):
    base_sha: str
    head_sha: str
    start_sha: str


class GitLabMergeRequest(_Read):
    iid: int
    title: str
    description: str | None = None
    state: str
    web_url: str
    author: GitLabUser | None = None
    labels: list[str] = []
    source_branch: str
    target_branch: str
    source_project_id: int | None = None
    target_project_id: int | None = None
    sha: str | None = None
    diff_refs: GitLabDiffRefs | None = None  # None while GitLab still computes the diff


class GitLabPosition(_Read):
    head_sha: str | None = None
    new_path: str | None = None
    old_path: str | None = None
    new_line: int | None = None
    old_line: int | None = None


class GitLabNote(_Read):
    id: int
    body: str
    type: str | None = None  # "DiffNote" on a line, "DiscussionNote", None: a plain comment
    author: GitLabUser | None = None
    system: bool = False
    position: GitLabPosition | None = None
    resolved: bool | None = None  # None: not resolvable (a plain comment)
    created_at: str | None = None  # ISO 8601


class GitLabDiscussion(_Read):
    id: str
    notes: list[GitLabNote] = []


class GitLabDraftNote(_Read):
    id: int
    note: str


class GitLabApprovals(_Read):
    user_has_approved: bool = False
    # False when GitLab will not take this user's approval (the merge request's author where
    # the project prevents it, not an eligible approver): ``POST /approve`` then answers 401
    user_can_approve: bool = True




class GitLabClient:
    """One project's merge requests on gitlab.com or a self-hosted GitLab."""

    forge_name = "GitLab"

    def __init__(self, target: PullTarget, token: Token, *, sleep: Sleep | None = None) -> None:
        self.target = target
        self.prefix = f"projects/{quote(target.repo.path, safe='')}"
        self.http = ForgeHttp(target.repo.api_url, token, what=f"GitLab ({target.repo.host})",
                              sleep=sleep)

    def close(self) -> None:
        self.http.close()

    def mr_path(self, suffix: str = "") -> str:
        return f"{self.prefix}/merge_requests/{self.target.number}{suffix}"

    def merge_request(self) -> GitLabMergeRequest:
        data = self.http.request("GET", self.mr_path(), not_found=(
            f"merge request {self.target.label} not found on {self.target.repo.host}"))
        return self.http.parsed(GitLabMergeRequest, data, f"merge request {self.target.label}")

    def viewer(self) -> str | None:
        """The username the token acts as (``GET /user``), or None when GitLab will not say
        (a CI job's token: HTTP 403)."""
        data = self.http.refusable("user")
        return None if data is None else self.http.parsed(GitLabUser, data,
                                                          "the token's user").username

    def discussions(self) -> list[GitLabDiscussion]:
        return [self.http.parsed(GitLabDiscussion, item, "a discussion")
                for item in self.http.pages(self.mr_path("/discussions"))]

    def draft_notes(self) -> list[GitLabDraftNote]:
        """The token's user's pending draft notes. A 404 here, on a merge request just read,
        is a GitLab without the draft notes API (an older one), not a token that cannot see."""
        try:
            data = self.http.request("GET", self.mr_path("/draft_notes"))
        except ForgeNotFoundError:
            raise ForgeError(
                f"{self.http.what} has no draft notes API (GET .../draft_notes: HTTP 404), "
                "which reviewtui publishes a merge request review with: an older GitLab",
                hint=REVIEWDOG, status=404) from None
        if not isinstance(data, list):
            raise ForgeError("GitLab's answer for the draft notes is not a list")
        return [self.http.parsed(GitLabDraftNote, item, "a draft note") for item in data]

    def bulk_publish(self, pending: int) -> None:
        """Publish the token's user's draft notes as one review; ``pending``: how many this
        publish drafted (left pending when this GitLab has no bulk publish: a 404)."""
        try:
            self.http.request("POST", self.mr_path("/draft_notes/bulk_publish"))
        except ForgeNotFoundError:
            raise ForgeError(
                f"{self.http.what} cannot publish draft notes through its API (POST "
                ".../draft_notes/bulk_publish: HTTP 404, an older GitLab): the review's "
                f"{pending} draft notes are pending on {self.target.label}; its "
                "'Submit review' publishes them", status=404) from None

    def create_draft_note(self, body: dict[str, Any]) -> GitLabDraftNote:
        data = self.http.request("POST", self.mr_path("/draft_notes"), body=body)
        return self.http.parsed(GitLabDraftNote, data, "the new draft note")

    def approvals(self) -> GitLabApprovals:
        data = self.http.request("GET", self.mr_path("/approvals"))
        return self.http.parsed(GitLabApprovals, data, "the approvals")
