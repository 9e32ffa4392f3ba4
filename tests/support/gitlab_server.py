"""A GitLab REST API stand-in on 127.0.0.1 for the forge tests: real HTTP, checked contract.

It keeps merge requests, discussions, draft notes and approvals in memory, answers the calls
reviewtui makes under ``/api/v4``, and checks every request body and every answer against the
pinned subset of GitLab's OpenAPI description plus the hand-written discussions schema
(``tests/support/swagger_contract.py``); a mismatch is recorded in ``violations`` (and answered
with HTTP 500), which the fixtures assert empty.

It behaves as GitLab's code does where reviewtui depends on it: the token in ``Authorization:
Bearer`` (else 401), a project named by its URL-encoded path, a draft note accepted on any line (the
``DraftNote`` model checks no line), and a bulk publish that keeps a diff note only on a line
of ``diff_lines`` (``DraftNotes::PublishService`` goes on when ``Notes::CreateService`` returns
an invalid note, then deletes every draft: the note is gone). It can answer 429 with
``Retry-After`` a number of times, and refuse draft notes with 400 (``refuse_drafts``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.support.forge_server import FakeForge, ForgeServer, Recorded
from tests.support.swagger_contract import SwaggerContract

DATA = Path(__file__).parent.parent / "data" / "forge" / "gitlab"
STAMP = "2026-11-27T00:00:00.000Z"


def now_stamp() -> str:
    """The time now as GitLab writes it (a note's ``created_at``: retraction reads it)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _contract() -> SwaggerContract:
    return SwaggerContract(DATA / "openapi-subset.json", DATA / "discussions-handwritten.json")


@dataclass
class FakeGitLab(FakeForge):
    project: str = "group/sub/proj"
    project_id: int = 42
    token: str = "glpat-testtoken-never-printed"
    username: str = "reviewer"
    contract: SwaggerContract = field(default_factory=_contract)
    mrs: dict[int, dict[str, Any]] = field(default_factory=dict)
    discussions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    drafts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    approved: dict[int, bool] = field(default_factory=dict)
    diff_lines: dict[int, dict[str, set[int]]] = field(default_factory=dict)  # new side
    refuse_drafts: bool = False
    user_refused: bool = False  # GET /user answered 403
    # the token's user may not approve (its own merge request where the project prevents
    # author approval, not an eligible approver): GitLab answers POST /approve with 401
    can_approve: bool = True
    # the merge request routes this GitLab lacks (an older version: no draft notes API, or
    # no bulk publish), answered 404 as its router answers a route it does not know
    missing_routes: tuple[str, ...] = ()
    undeletable: set[int] = field(default_factory=set)  # notes whose DELETE answers 403
    _next_id: int = 500

    def user(self, username: str) -> dict[str, Any]:
        return {"id": len(username), "username": username, "name": username.title(),
                "state": "active", "avatar_url": "https://gl/avatar.png", "web_url": f"https://gl/{username}"}

    def add_mr(self, iid: int, *, head_sha: str, base_sha: str, target_branch: str = "main",
               source_branch: str = "feature", source_project_id: int | None = None,
               title: str = "", description: str | None = "",
               labels: tuple[str, ...] = ()) -> dict[str, Any]:
        mr = {"id": 9000 + iid, "iid": iid, "project_id": self.project_id, "title": title,
              "description": description, "state": "opened", "created_at": STAMP,
              "updated_at": STAMP, "target_branch": target_branch,
              "source_branch": source_branch, "author": self.user("author"),
              "source_project_id": source_project_id or self.project_id,
              "target_project_id": self.project_id, "labels": list(labels), "draft": False,
              "sha": head_sha, "merge_status": "can_be_merged",
              "diff_refs": {"base_sha": base_sha, "head_sha": head_sha, "start_sha": base_sha},
              "web_url": f"https://code.example.com/{self.project}/-/merge_requests/{iid}"}
        self.mrs[iid] = mr
        self.discussions.setdefault(iid, [])
        self.drafts.setdefault(iid, [])
        return mr

    def note(self, iid: int, body: str, username: str,
             position: dict[str, Any] | None = None) -> dict[str, Any]:
        found: dict[str, Any] = {
            "id": self.new_id(), "type": "DiffNote" if position else None, "body": body,
            "attachment": None, "author": self.user(username), "created_at": now_stamp(),
            "updated_at": now_stamp(), "system": False, "noteable_id": 9000 + iid,
            "noteable_type": "MergeRequest", "project_id": self.project_id,
            "noteable_iid": iid, "resolvable": bool(position)}
        if position:
            found.update(position=position, resolved=False, resolved_by=None,
                         commit_id=position["head_sha"])
        return found

    def add_discussion(self, iid: int, *notes: dict[str, Any]) -> dict[str, Any]:
        discussion = {"id": hashlib.sha1(str(self.new_id()).encode()).hexdigest(),
                      "individual_note": notes[0]["type"] is None, "notes": list(notes)}
        self.discussions[iid].append(discussion)
        return discussion

    def add_comment(self, iid: int, *, path: str, line: int, body: str,
                    username: str = "colleague") -> dict[str, Any]:
        refs = self.mrs[iid]["diff_refs"]
        position = {**refs, "position_type": "text", "old_path": path, "new_path": path,
                    "old_line": None, "new_line": line}
        return self.add_discussion(iid, self.note(iid, body, username, position))

    def ops(self, method: str | None = None) -> list[Recorded]:
        return [r for r in self.requests if method is None or r.method == method]

    def ours(self, iid: int) -> list[dict[str, Any]]:
        return [n for d in self.discussions[iid] for n in d["notes"]
                if "reviewtui:" in n["body"]]

    # --- routing ------------------------------------------------------------------------
    def handle(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               token: str) -> tuple[int, Any, dict[str, str]]:
        if token != f"Bearer {self.token}":
            return 401, {"message": "401 Unauthorized"}, {}
        if self.rate_limited > 0:
            self.rate_limited -= 1
            return 429, {"message": "Retry later"}, {"Retry-After": self.retry_after,
                                                     "RateLimit-Remaining": "0"}
        if (method, path) == ("GET", "/api/v4/user"):
            if self.user_refused:  # a CI job's token
                return 403, {"message": "403 Forbidden"}, {}
            return 200, self.user(self.username), {}
        prefix = f"/api/v4/projects/{quote(self.project, safe='')}/merge_requests/"
        match = re.fullmatch(r"(\d+)(/.*)?", path.removeprefix(prefix)) if path.startswith(
            prefix) else None
        if match is None or int(match.group(1)) not in self.mrs:
            return 404, {"message": "404 Not found"}, {}
        iid, tail = int(match.group(1)), match.group(2) or ""
        if any(re.fullmatch(route, tail) for route in self.missing_routes):
            return 404, {"message": "404 Not Found"}, {}
        if (method, tail) == ("GET", ""):
            return 200, self.mrs[iid], {}
        if (method, tail) == ("GET", "/discussions"):
            size, page = int(query.get("per_page", ["20"])[0]), int(query.get("page", ["1"])[0])
            return 200, self.discussions[iid][(page - 1) * size:page * size], {}
        if (method, tail) == ("GET", "/draft_notes"):
            return 200, self.drafts[iid], {}
        if (method, tail) == ("POST", "/draft_notes"):
            return self._create_draft(iid, body)
        if (method, tail) == ("POST", "/draft_notes/bulk_publish"):
            return self._publish(iid)
        if (method, tail) == ("GET", "/approvals"):
            return 200, self._approvals(iid), {}
        if (method, tail) == ("POST", "/approve"):
            if body and body.get("sha") not in (None, self.mrs[iid]["sha"]):
                return 409, {"message": "SHA does not match HEAD of source branch"}, {}
            if not self.can_approve:  # ApprovalService refused: ``unauthorized!``
                return 401, {"message": "401 Unauthorized"}, {}
            self.approved[iid] = True
            return 201, self._approvals(iid), {}
        if (method, tail) == ("POST", "/unapprove") and self.approved.get(iid):
            self.approved[iid] = False
            return 201, self._approvals(iid), {}
        if found := re.fullmatch(r"/draft_notes/(\d+)", tail):
            kept = [d for d in self.drafts[iid] if d["id"] != int(found.group(1))]
            if method == "DELETE" and len(kept) < len(self.drafts[iid]):
                self.drafts[iid] = kept
                return 204, None, {}
        if found := re.fullmatch(r"/discussions/(\w+)/notes/(\d+)", tail):
            for discussion in self.discussions[iid]:
                for note in discussion["notes"]:
                    if discussion["id"] == found.group(1) and note["id"] == int(found.group(2)):
                        return self._note(iid, discussion, note, method, body)
        if (found := re.fullmatch(r"/discussions/(\w+)", tail)) and method == "PUT":
            for discussion in self.discussions[iid]:
                if discussion["id"] == found.group(1) and any(
                        n.get("resolvable") for n in discussion["notes"]):
                    for note in discussion["notes"]:
                        if note.get("resolvable"):
                            note["resolved"] = body["resolved"]
                    return 200, discussion, {}
        return 404, {"message": "404 Not found"}, {}

    def _note(self, iid: int, discussion: dict[str, Any], note: dict[str, Any], method: str,
              body: Any) -> tuple[int, Any, dict[str, str]]:
        """Edit (``PUT``) or delete a discussion's note; a note of ``undeletable`` is refused
        (403, as GitLab answers a user who may not delete it)."""
        if method == "DELETE":
            if note["id"] in self.undeletable:
                return 403, {"message": "403 Forbidden"}, {}
            discussion["notes"].remove(note)
            if not discussion["notes"]:
                self.discussions[iid].remove(discussion)
            return 204, None, {}
        if "resolved" in body:
            note["resolved"] = body["resolved"]
        else:
            note["body"] = body["body"]
        return 200, note, {}

    def _approvals(self, iid: int) -> dict[str, Any]:
        done = self.approved.get(iid, False)
        return {"user_has_approved": done, "user_can_approve": self.can_approve and not done,
                "approved": done}

    def _create_draft(self, iid: int, body: Any) -> tuple[int, Any, dict[str, str]]:
        if self.refuse_drafts and body.get("position"):
            return 400, {"message": {"line_code": ["must be a valid line code"]}}, {}
        draft: dict[str, Any] = {"id": self.new_id(), "author_id": 7,
                                 "merge_request_id": 9000 + iid, "resolve_discussion": False,
                                 "note": body["note"]}
        if body.get("position"):
            draft["position"] = body["position"]
        self.drafts[iid].append(draft)
        return 201, draft, {}

    def _publish(self, iid: int) -> tuple[int, Any, dict[str, str]]:
        allowed = self.diff_lines.get(iid)
        for draft in self.drafts[iid]:
            position = draft.get("position")
            if position and allowed is not None and position.get("new_line") not in allowed.get(
                    position.get("new_path", ""), set()):
                continue  # GitLab finds no line code: the note is not saved
            self.add_discussion(iid, self.note(iid, draft["note"], self.username, position))
        self.drafts[iid] = []
        return 204, None, {}


class GitLabServer(ForgeServer):
    """``with GitLabServer() as server:`` ``server.url`` is the API base URL (``.../api/v4``);
    ``mount``: a GitLab served under a path (``/gitlab``: ``server.url`` is
    ``.../gitlab/api/v4``)."""

    fake: FakeGitLab

    def __init__(self, fake: FakeGitLab | None = None, mount: str = "") -> None:
        super().__init__(fake or FakeGitLab(), "/api/v4", mount)
