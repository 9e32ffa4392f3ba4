"""Send a ``ReviewDraft`` to GitHub without duplicating what an earlier publish left.

``plan_sync`` compares the draft with the pull request's review comments and reviews (the
markers ``draft`` writes): a comment already published is edited when its text changed (PATCH)
and left alone when not (one moved to other lines is posted there, its old copy taken back:
``forge.retract``); the rest go into one new review with the verdict. When nothing new is
to be posted and the verdict is unchanged, the last summary is edited in place (PUT); when a new
review is posted, an older summary is replaced by a pointer to it. A request for changes that a
maintainer dismissed is not sent again for the same commit (a comment says why).
``--dry-run`` prints these operations, exactly as they would be sent.

``run_sync`` sends them. A 422 on the new review (a line GitHub does not count as part of the
diff) moves its line comments into the summary and tries again: first the right-side comments
not on a changed line, then those on removed lines, then all of them, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from reviewtui.errors import ForgeError, ForgeValidationError
from reviewtui.forge.draft import REFUSED, REVIEW_MARKER, ReviewDraft, marker_key, refused_keys
from reviewtui.forge.github import GitHubClient, GitHubReview, GitHubReviewComment, GitHubUser
from reviewtui.forge.http import ForgeHttp

STATES = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
NOT_APPROVED = ("not approved on GitHub: the head moved since the review, and an approval "
                "would count for commits that were not reviewed")
NOT_REQUESTED = ("changes not requested again on GitHub: a maintainer dismissed reviewtui's "
                 "request for changes on this commit")
OWN_PULL = ("sent as a comment: GitHub does not let the author of a pull request approve it or "
            "request changes on it")
BODY_LIMIT = 65_536  # characters of a review's body GitHub takes (longer: HTTP 422)
SUPERSEDED = ("Superseded by a later review from reviewtui.\n\n"
              "<!-- reviewtui:review-superseded -->")


@dataclass(frozen=True, slots=True)
class Operation:
    method: str  # POST, PUT, PATCH, DELETE
    path: str  # relative to the API base URL
    body: dict[str, Any] | None  # None: no body
    what: str  # one line for a person


@dataclass(frozen=True, slots=True)
class Retraction:
    """A published comment taken back (``forge.retract`` picks them)."""

    op: Operation
    name: str  # "comment 1003 on app/service.py L2": what a failure names
    label: str  # "app/service.py L2: P1 · Charge rate tripled": for the report
    key: str  # the fingerprint of the published comment


@dataclass
class SyncPlan:
    draft: ReviewDraft
    commit_id: str
    edits: list[Operation] = field(default_factory=list)  # PATCH of published comments
    unchanged: list[str] = field(default_factory=list)  # keys already published as they are
    review: Operation | None = None  # POST of the new review (or PUT of the last summary)
    retire: Operation | None = None  # PUT of an older summary, once the new review is posted
    # published comments the review no longer has (``forge.retract``), taken back last
    retractions: list[Retraction] = field(default_factory=list)

    def operations(self) -> list[Operation]:
        rest = [op for op in (self.review, self.retire) if op is not None]
        return [*self.edits, *rest, *(r.op for r in self.retractions)]


@dataclass
class SyncReport:
    review_id: int | None = None
    review_action: str = ""  # "created", "updated", ""
    posted: int = 0  # line comments in the new review
    edited: int = 0
    unchanged: int = 0
    folded: list[str] = field(default_factory=list)  # "path Lx: title (reason)"
    notes: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)  # "path Lx: title", taken back


def by_viewer(user: GitHubUser | None, viewer: str | None) -> bool:
    """Was this written by the token's user? When GitHub does not say who that is (a GitHub
    App's or Actions' token), a bot's writing is taken as ours: such a token writes as a bot."""
    if user is None:
        return False
    if viewer is None:
        return user.login.endswith("[bot]")
    return user.login.lower() == viewer.lower()


def ours(comments: list[GitHubReviewComment],
         viewer: str | None) -> dict[str, GitHubReviewComment]:
    """reviewtui's published comments by fingerprint -- the ones the token's user wrote: a
    colleague who publishes with reviewtui too marks hers the same way. A key published more
    than once (posted again after a push left the first one outdated) is its newest comment
    still on a line: the one a publish of the same head compares with."""
    found: dict[str, GitHubReviewComment] = {}
    for comment in comments:
        key = marker_key(comment.body)
        if key is None or comment.in_reply_to_id is not None or not by_viewer(comment.user,
                                                                                 viewer):
            continue
        held = found.get(key)
        if held is None or _currency(comment) > _currency(held):
            found[key] = comment
    return found


def _currency(comment: GitHubReviewComment) -> tuple[bool, int]:
    """Which of two comments of one key is the current one: on a line, then the newest."""
    return comment.line is not None, comment.id


def _last_summary(reviews: list[GitHubReview], viewer: str | None,
                  commit_id: str) -> GitHubReview | None:
    """reviewtui's latest summary of ``commit_id``: the one to edit or retire. A summary of
    another head is that head's review (the verdict, the comments never on a line, written
    in its own session): left as it was sent."""
    mine = [r for r in reviews if REVIEW_MARKER in (r.body or "") and r.state != "PENDING"
            and by_viewer(r.user, viewer) and r.commit_id in (None, commit_id)]
    return mine[-1] if mine else None


def plan_sync(client: GitHubClient, draft: ReviewDraft, commit_id: str,
              comments: list[GitHubReviewComment], reviews: list[GitHubReview],
              viewer: str | None, *, head_moved: bool = False,
              author: str | None = None) -> SyncPlan:
    """``viewer``: the token's login (``GitHubClient.viewer``); only what it wrote is edited.
    ``head_moved``: the pull request's head is no longer ``commit_id``; an approval not sent
    before is then a comment (GitHub would count it for the commits the person never saw).
    ``author``: the pull request's; when it is the viewer, a verdict is a comment (GitHub
    answers an approval or a request for changes on one's own pull request with HTTP 422,
    which the line fallback cannot mend: nothing was published)."""
    pulls = client.pulls_path
    plan = SyncPlan(draft, commit_id)
    published = ours(comments, viewer)
    new = []
    for comment in draft.comments:
        old = published.get(comment.key)
        if old is None or (old.path, old.line) != (comment.github_path, comment.line):
            # not there, or no longer on its line: outdated (``line`` None: a force-push took
            # its line away) or elsewhere than where it now is -- put on its line again
            new.append(comment)
        elif old.body.strip() == comment.body.strip():
            plan.unchanged.append(comment.key)
        else:
            plan.edits.append(Operation(
                "PATCH", f"{client.prefix}/pulls/comments/{old.id}", {"body": comment.body},
                f"edit comment {old.id} on {comment.path} {comment.lines}: {comment.title}"))
    # published on a line before, now in the summary, or left on it as the head moved: its
    # text as it is now
    for kept in (*(f.comment for f in draft.folded), *draft.left):
        old = published.get(kept.key)
        if old is not None and old.body.strip() != kept.body.strip():
            plan.edits.append(Operation(
                "PATCH", f"{client.prefix}/pulls/comments/{old.id}", {"body": kept.body},
                f"edit comment {old.id} on {kept.path}: {kept.title}"))
        elif old is not None and kept in draft.left:
            plan.unchanged.append(kept.key)
    last = _last_summary(reviews, viewer, commit_id)
    own = viewer is not None and author is not None and viewer.lower() == author.lower()
    if own and draft.event in ("APPROVE", "REQUEST_CHANGES"):
        draft = replace(draft, event="COMMENT").with_note(OWN_PULL)
    if head_moved and draft.event == "APPROVE" and (last is None or last.state != "APPROVED"):
        draft = replace(draft, event="COMMENT").with_note(NOT_APPROVED)
    # A maintainer dismissed the request for changes reviewtui sent on this very commit: it
    # is not sent again over that decision (a new push is a new commit, and a new review).
    dismissed = (last is not None and last.commit_id == commit_id and last.state == "DISMISSED"
                 and draft.event == "REQUEST_CHANGES")
    if dismissed:
        draft = replace(draft, event="COMMENT").with_note(NOT_REQUESTED)
    draft = plan.draft = replace(draft, comments=tuple(new))
    if last is not None and last.commit_id == commit_id:
        # GitHub refused these lines of this very commit before (HTTP 422): they stay in the
        # summary, not sent again in a new review that it would refuse again.
        refused = [c.key for c in new if c.key in refused_keys(last.body or "")]
        if refused:
            draft = plan.draft = draft.fold(refused, REFUSED)
            new = [c for c in new if c.key not in refused]
    if last is not None and not new and (last.state == STATES[draft.event] or dismissed):
        plan.review = Operation("PUT", pulls(f"/reviews/{last.id}"),
                                {"body": draft.summary(BODY_LIMIT)},
                                f"edit the summary of review {last.id}")
        return plan
    body: dict[str, Any] = {"commit_id": commit_id, "event": draft.event,
                            "body": draft.summary(BODY_LIMIT),
                            "comments": [c.payload() for c in draft.comments]}
    plan.review = Operation("POST", pulls("/reviews"), body,
                            f"new review ({draft.event}) with {len(new)} line comments")
    if last is not None:
        plan.retire = Operation("PUT", pulls(f"/reviews/{last.id}"), {"body": SUPERSEDED},
                                f"replace the older summary of review {last.id} by a pointer")
    return plan


def _on_context(draft: ReviewDraft, added: dict[str, set[int]]) -> list[str]:
    """The keys of right-side comments not wholly on added lines (GitHub's diff may be
    narrower around them)."""
    return [c.key for c in draft.comments if c.side == "RIGHT" and not all(
        n in added.get(c.path, set()) for n in range(c.start_line, c.line + 1))]


def _on_removed(draft: ReviewDraft) -> list[str]:
    """The keys of left-side comments (on removed lines)."""
    return [c.key for c in draft.comments if c.side != "RIGHT"]


def run_retractions(http: ForgeHttp, retractions: list[Retraction], report: SyncReport,
                    folded: ReviewDraft) -> None:
    """Send each; one the forge refuses is one line of ``report``'s notes, and the others go
    on. A comment ``folded`` into the summary as it was sent (the forge refused its new lines)
    keeps its earlier copy: it is on a line still."""
    moved_off = {f.comment.key for f in folded.folded}
    for item in retractions:
        if item.key in moved_off:
            continue
        try:
            http.request(item.op.method, item.op.path, body=item.op.body)
        except ForgeError as exc:
            report.notes.append(f"could not retract {item.name}: {exc}")
            continue
        report.retracted.append(item.label)


def run_sync(client: GitHubClient, plan: SyncPlan, added: dict[str, set[int]]) -> SyncReport:
    """Send ``plan``; ``added`` (path → added line numbers) guides the 422 fallback."""
    report = SyncReport(unchanged=len(plan.unchanged))
    report.notes += [note for note in (NOT_APPROVED, NOT_REQUESTED, OWN_PULL)
                     if note in plan.draft.notes]
    for op in plan.edits:
        client.http.request(op.method, op.path, body=op.body)
        report.edited += 1
    draft, review = plan.draft, plan.review
    if review is not None and review.method == "PUT":
        client.http.request("PUT", review.path, body=review.body)
        report.review_action = "updated"
        report.review_id = int(review.path.rsplit("/", 1)[1])
    elif review is not None:
        def on_context(d: ReviewDraft) -> list[str]:
            return _on_context(d, added)

        def every(d: ReviewDraft) -> list[str]:
            return [c.key for c in d.comments]

        # GitHub's 422 names no comment: the likeliest culprits go first, each group on its
        # own, so a refused context line does not take the removed lines' comments with it
        fallbacks: list[tuple[str, Callable[[ReviewDraft], list[str]]]] = [
            (f"not on a changed line, {REFUSED}", on_context),
            (f"on removed lines, {REFUSED}", _on_removed),
            (REFUSED, every)]
        while True:
            body = {**(review.body or {}), "body": draft.summary(BODY_LIMIT),
                    "comments": [c.payload() for c in draft.comments]}
            try:
                created = client.create_review(body)
                break
            except ForgeValidationError as exc:
                while fallbacks:
                    reason, pick = fallbacks.pop(0)
                    keys = pick(draft)
                    if keys:
                        draft = draft.fold(keys, reason)
                        report.notes.append(f"{len(keys)} line comments moved into the "
                                            f"summary after: {exc}")
                        break
                else:
                    raise
        report.review_id, report.review_action = created.id, "created"
        report.posted = len(draft.comments)
        if plan.retire is not None:
            client.http.request("PUT", plan.retire.path, body=plan.retire.body)
    run_retractions(client.http, plan.retractions, report, draft)
    report.folded = [f"{f.comment.path} {f.comment.lines}: {f.comment.title} ({f.reason})"
                     for f in draft.folded]
    return report
