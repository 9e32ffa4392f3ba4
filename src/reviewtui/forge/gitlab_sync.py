"""What sending a ``ReviewDraft`` to a GitLab merge request as one review takes, without
duplicating: reviewtui's notes already there, others' threads, and the plan.

GitLab's review is its draft notes published together (``draft_notes/bulk_publish``: one
notification, like a GitHub review): a draft note per new line comment (``gitlab_position``),
the summary as a draft note without a position, then the bulk publish. The verdict: "approve"
also approves the merge request (``approve`` with the reviewed ``sha``, so GitLab refuses it if
the head moved; not sent when the head moved, when the person already approved, nor when
GitLab says it would not take their approval: ``user_can_approve``, else a 401); GitLab's
REST API has no "request changes", so every verdict is written at the top of the summary, and
"request changes" withdraws the person's approval if they gave one (``unapprove``).

``plan_gitlab`` compares the draft with the merge request's discussions (the markers ``draft``
writes): a note already published is edited when its text changed (``PUT`` of the discussion
note), left alone when not, and drafted again on its new line when the person moved the comment
(the old note then taken back, ``forge.retract``; kept if GitLab drops the new one), the
published summary is edited in place, and draft notes of reviewtui's that an interrupted
publish left pending are deleted first (a bulk publish would publish them too). ``--dry-run``
prints these operations as they would be sent; ``forge.gitlab_send`` sends them. The summary
names the head it was written for (``<!-- reviewtui:head=SHA -->``) and marks the comments
GitLab refused or dropped: publishing the same head again keeps them in the summary instead
of drafting them again, as GitHub's refused lines are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from reviewtui.forge.draft import (
    GITLAB_DROPPED,
    REVIEW_MARKER,
    DraftComment,
    ReviewDraft,
    marker_key,
    refused_keys,
)
from reviewtui.forge.gitlab import (
    GitLabClient,
    GitLabDiscussion,
    GitLabMergeRequest,
    GitLabPosition,
    GitLabUser,
)
from reviewtui.forge.gitlab_position import DiffRefs, LineMap, draft_note, gitlab_body, position
from reviewtui.forge.sync import Operation, Retraction
from reviewtui.forge.threads import PullThread

VERDICTS = {"APPROVE": "approve", "REQUEST_CHANGES": "request changes", "COMMENT": "comment"}
_HEAD = re.compile(r"<!-- reviewtui:head=([0-9a-f]+) -->")
NOT_ALLOWED = ("not approved on GitLab: it does not let the token's user approve this merge "
               "request")


def summary_head(body: str) -> str | None:
    """The head a published summary was written for (None: an older reviewtui's summary)."""
    found = _HEAD.search(body)
    return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class Published:
    discussion_id: str
    note_id: int
    body: str
    head_sha: str | None = None  # the head its position was made on (a diff note)
    place: Place | None = None  # its file and line(s) (a diff note)


Place = tuple[str | None, int | None, int | None]  # a diff note's new path, new and old line


def place_of(position: GitLabPosition | dict[str, Any]) -> Place:
    """Where a diff note sits: its position's new path, new line and old line."""
    if isinstance(position, dict):
        return position.get("new_path"), position.get("new_line"), position.get("old_line")
    return position.new_path, position.new_line, position.old_line


_BOT = re.compile(r"^(project|group)_\d+_bot")  # the user a project or group access token is


def by_viewer(user: GitLabUser | None, viewer: str | None) -> bool:
    """Was this written by the token's user? When GitLab does not say who that is, an access
    token's bot user's writing is taken as ours."""
    if user is None:
        return False
    if viewer is None:
        return _BOT.match(user.username) is not None
    return user.username.lower() == viewer.lower()


def ours(discussions: list[GitLabDiscussion], viewer: str | None, head: str | None = None,
         summary_of: str | None = None) -> tuple[dict[str, Published], Published | None]:
    """reviewtui's published notes by fingerprint, and its latest summary note (of the
    reviewed head ``summary_of``, when given) -- the ones the token's user wrote: a colleague
    who publishes with reviewtui too marks hers the same way. A key published more than once
    (drafted again on a new head, the old note left outdated) is its note on ``head`` (the
    merge request's head), else its newest."""
    found: dict[str, Published] = {}
    summary: Published | None = None
    for discussion in discussions:
        if not discussion.notes:
            continue
        note = discussion.notes[0]
        if not by_viewer(note.author, viewer):
            continue
        key = marker_key(note.body)
        if key is not None:
            on = note.position.head_sha if note.position is not None else None
            place = place_of(note.position) if note.position is not None else None
            candidate = Published(discussion.id, note.id, note.body, on, place)
            held = found.get(key)
            if held is None or _currency(candidate, head) > _currency(held, head):
                found[key] = candidate
        elif REVIEW_MARKER in note.body and _summary_of(note.body, summary_of):
            summary = Published(discussion.id, note.id, note.body)
    return found, summary


def _summary_of(body: str, head: str | None) -> bool:
    """Is this summary the one of the reviewed ``head`` (any, when None)? A summary of another
    head is that head's review (its verdict, the comments never on a line, written in its own
    session): left as it was sent. One written before summaries named their head counts as
    any head's."""
    written = summary_head(body)
    return head is None or written is None or written == head


def _currency(note: Published, head: str | None) -> tuple[bool, int]:
    """Which of two notes of one key is the current one: on ``head``, then the newest."""
    return head is not None and note.head_sha == head, note.note_id


def threads_of(discussions: list[GitLabDiscussion],
               viewer: str | None = None) -> list[PullThread]:
    """The diff notes others left (not the ones reviewtui published for ``viewer``), read-only,
    replies after their note -- also the replies others wrote to reviewtui's notes (the
    author's answer to the person's comment), as on GitHub."""
    out: list[PullThread] = []
    for discussion in discussions:
        first = discussion.notes[0] if discussion.notes else None
        if first is None or first.position is None:
            continue
        where = first.position
        path = where.new_path or where.old_path or "?"
        line = where.new_line if where.new_line is not None else where.old_line
        out += [PullThread(path, line, note.author.username if note.author else "?", note.body,
                           index > 0)
                for index, note in enumerate(discussion.notes) if not note.system
                and not (marker_key(note.body) is not None and by_viewer(note.author, viewer))]
    return out


@dataclass
class GitLabPlan:
    draft: ReviewDraft  # its comments: the new ones only
    commit_id: str  # the head that was reviewed
    refs: DiffRefs | None
    lines: LineMap
    client: GitLabClient
    viewer: str | None  # the token's username (None: GitLab did not say)
    stale: list[Operation] = field(default_factory=list)  # DELETE of pending drafts of ours
    replaced: dict[str, int] = field(default_factory=dict)  # moved: key -> its old note's id
    edits: list[Operation] = field(default_factory=list)  # PUT of published notes
    unchanged: list[str] = field(default_factory=list)
    summary_note: Published | None = None  # the published summary, edited in place
    approve: bool = False
    unapprove: bool = False
    verdict_note: str = ""
    # published notes the review no longer has (``forge.retract``), taken back before the
    # verdict is sent
    retractions: list[Retraction] = field(default_factory=list)

    def summary(self, draft: ReviewDraft | None = None) -> str:
        shown = draft or self.draft
        verdict = f"**Verdict: {VERDICTS[shown.event]}**"
        if self.verdict_note:
            verdict += f" ({self.verdict_note})"
        return f"{verdict}\n\n{shown.summary()}\n<!-- reviewtui:head={self.commit_id} -->"

    def summary_operation(self, draft: ReviewDraft | None = None) -> Operation:
        if self.summary_note is not None:
            s = self.summary_note
            return Operation("PUT", self.client.mr_path(
                f"/discussions/{s.discussion_id}/notes/{s.note_id}"),
                {"body": self.summary(draft)}, f"edit the summary (note {s.note_id})")
        return Operation("POST", self.client.mr_path("/draft_notes"),
                         {"note": self.summary(draft)}, "the summary, as a draft note")

    def line_operation(self, comment: DraftComment) -> Operation:
        assert self.refs is not None
        return Operation("POST", self.client.mr_path("/draft_notes"),
                         draft_note(comment, self.refs, self.lines),
                         f"draft note on {comment.path} {comment.lines}: {comment.title}")

    def operations(self) -> list[Operation]:
        ops = [*self.stale, *self.edits, *(self.line_operation(c) for c in self.draft.comments),
               self.summary_operation()]
        if self.draft.comments or self.summary_note is None:
            ops.append(Operation("POST", self.client.mr_path("/draft_notes/bulk_publish"), None,
                                 "publish the draft notes: one review"))
        ops += [r.op for r in self.retractions]
        if self.approve:
            ops.append(Operation("POST", self.client.mr_path("/approve"),
                                 {"sha": self.commit_id}, "approve the merge request"))
        if self.unapprove:
            ops.append(Operation("POST", self.client.mr_path("/unapprove"), None,
                                 "withdraw the approval given before"))
        return ops


def edit_note(client: GitLabClient, old: Published, body: str, what: str) -> Operation:
    """The ``PUT`` that gives reviewtui's published note ``old`` the text ``body``."""
    return Operation("PUT", client.mr_path(f"/discussions/{old.discussion_id}/notes/{old.note_id}"),
                     {"body": body}, f"edit note {old.note_id} {what}")


def plan_gitlab(client: GitLabClient, draft: ReviewDraft, commit_id: str,
                mr: GitLabMergeRequest, discussions: list[GitLabDiscussion],
                lines: LineMap, viewer: str | None) -> GitLabPlan:
    """``viewer``: the token's username (``GitLabClient.viewer``); only its notes are edited."""
    refs = (DiffRefs(mr.diff_refs.base_sha, mr.diff_refs.start_sha, mr.diff_refs.head_sha)
            if mr.diff_refs is not None else None)
    if refs is None and draft.comments:
        draft = draft.fold([c.key for c in draft.comments], "GitLab has no diff for it yet")
    published, summary = ours(discussions, viewer, refs.head_sha if refs is not None else None,
                              summary_of=commit_id)
    plan = GitLabPlan(draft, commit_id, refs, lines, client, viewer, summary_note=summary)
    new: list[DraftComment] = []
    for comment in draft.comments:
        old = published.get(comment.key)
        body = gitlab_body(comment)
        if old is None or (refs is not None and old.head_sha not in (None, refs.head_sha)):
            # not there, or on a head the merge request no longer has (a force-push): its
            # note stays there, outdated; this head gets its own
            new.append(comment)
        elif refs is not None and old.place is not None and old.place != place_of(
                position(comment, refs, lines)):
            # moved to other lines of this head: drafted there, the old note taken back
            # (``forge.retract``)
            new.append(comment)
            plan.replaced[comment.key] = old.note_id
        elif old.body.strip() == body.strip():
            plan.unchanged.append(comment.key)
        else:
            plan.edits.append(edit_note(client, old, body,
                                    f"on {comment.path} {comment.lines}: {comment.title}"))
    # published on a line before, now in the summary, or left on it as the head moved: its
    # text as it is now
    for kept in (*(f.comment for f in draft.folded), *draft.left):
        old = published.get(kept.key)
        body = gitlab_body(kept)
        if old is not None and old.body.strip() != body.strip():
            plan.edits.append(edit_note(client, old, body, f"on {kept.path}: {kept.title}"))
        elif old is not None and kept in draft.left:
            plan.unchanged.append(kept.key)
    for pending in client.draft_notes():
        if marker_key(pending.note) is not None or REVIEW_MARKER in pending.note:
            plan.stale.append(Operation(
                "DELETE", client.mr_path(f"/draft_notes/{pending.id}"), None,
                f"delete draft note {pending.id}, left pending by an interrupted publish"))
    plan.draft = replace(draft, comments=tuple(new))
    if summary is not None and summary_head(summary.body) == commit_id:
        # GitLab refused or dropped these lines of this very head before: they stay in the
        # summary, not drafted again for GitLab to refuse or drop again.
        refused = [c.key for c in new if c.key in refused_keys(summary.body)]
        if refused:
            plan.draft = plan.draft.fold(refused, GITLAB_DROPPED)
    if draft.event == "APPROVE":
        approvals = client.approvals() if mr.sha in (None, commit_id) else None
        if approvals is None:
            plan.verdict_note = "not approved on GitLab: the head moved since the review"
        elif approvals.user_has_approved:
            plan.verdict_note = "already approved on GitLab"
        elif not approvals.user_can_approve:
            plan.verdict_note = NOT_ALLOWED
        else:
            plan.approve = True
    elif draft.event == "REQUEST_CHANGES" and client.approvals().user_has_approved:
        plan.unapprove = True
        plan.verdict_note = "the approval given before is withdrawn"
    return plan
