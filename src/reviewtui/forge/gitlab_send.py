"""Send a GitLab review as ``forge.gitlab_sync`` planned it, and make sure nothing is lost.

``run_gitlab`` sends the plan, then reads the discussions back: GitLab creates a draft note on
any line but, on publishing, drops a diff note whose line it cannot find in its diff (the
note's line code is invalid; ``DraftNotes::PublishService`` does not stop for it). Each line
comment not found afterwards, and each one a draft-note request refused (HTTP 400), goes into
the summary, which is edited again, so nothing is lost; the summary marks those comments, so
publishing the same head again keeps them there (``gitlab_sync.plan_gitlab``). The approval
goes last, once the review is published.
"""

from __future__ import annotations

from reviewtui.errors import ForgeAuthError, ForgeError
from reviewtui.forge.draft import GITLAB_DROPPED, GITLAB_REFUSED
from reviewtui.forge.gitlab import GitLabClient
from reviewtui.forge.gitlab_sync import GitLabPlan, edit_note, ours
from reviewtui.forge.sync import SyncReport, run_retractions


def _approve(client: GitLabClient, sha: str) -> None:
    """Approve the merge request at ``sha``, once the review is published. GitLab answers a
    refused approval with HTTP 401 (``unauthorized!``), which is not a rejected token here:
    every request before it was taken."""
    try:
        client.http.request("POST", client.mr_path("/approve"), body={"sha": sha})
    except ForgeAuthError as exc:
        if exc.status != 401:
            raise
        raise ForgeError(f"the review is published, but {client.http.what} refused to approve "
                         f"{client.target.label} (HTTP 401): it does not let the token's user "
                         "approve it", status=401) from None


def run_gitlab(client: GitLabClient, plan: GitLabPlan) -> SyncReport:
    """Send ``plan``; line comments GitLab refuses or drops go into the summary."""
    report = SyncReport(unchanged=len(plan.unchanged))
    for op in [*plan.stale, *plan.edits]:
        client.http.request(op.method, op.path, body=op.body)
    report.edited = len(plan.edits)
    draft = plan.draft
    sent: list[str] = []
    for comment in plan.draft.comments:
        op = plan.line_operation(comment)
        try:
            client.http.request(op.method, op.path, body=op.body)
            sent.append(comment.key)
        except ForgeError as exc:
            if exc.status not in (400, 422):
                raise
            draft = draft.fold([comment.key], GITLAB_REFUSED)
            report.notes.append(f"{comment.path} {comment.lines} moved into the summary "
                                f"after: {exc}")
    summary_op = plan.summary_operation(draft)
    if plan.summary_note is None:
        client.http.request(summary_op.method, summary_op.path, body=summary_op.body)
    if sent or plan.summary_note is None:
        client.bulk_publish(len(sent) + (plan.summary_note is None))
    head = plan.refs.head_sha if plan.refs is not None else None
    published, summary = ours(client.discussions(), plan.viewer, head, summary_of=plan.commit_id)
    # a moved comment's old note is still there (taken back below): kept, its new note is
    # the newer one
    dropped = [key for key in sent if key not in published or published[key].head_sha != head
               or published[key].note_id == plan.replaced.get(key)]
    if dropped:
        draft = draft.fold(dropped, GITLAB_DROPPED)
        report.notes.append(f"{len(dropped)} line comments moved into the summary: GitLab "
                            "did not keep them on their lines")
    if summary is None:
        raise ForgeError("GitLab does not show the published summary",
                         hint="its draft notes may still be pending: see the merge request")
    if plan.summary_note is not None or dropped:
        final = plan.summary_operation(draft) if plan.summary_note is not None else edit_note(
            client, summary, plan.summary(draft), "(the summary)")
        client.http.request("PUT", final.path, body=final.body)
    report.review_id = summary.note_id
    report.review_action = "updated" if plan.summary_note is not None else "created"
    report.posted = len(sent) - len(dropped)
    run_retractions(client.http, plan.retractions, report, draft)
    if plan.approve:
        _approve(client, plan.commit_id)
        report.notes.append("approved the merge request")
    if plan.unapprove:
        client.http.request("POST", client.mr_path("/unapprove"))
        report.notes.append("withdrew the approval given before")
    report.folded = [f"{f.comment.path} {f.comment.lines}: {f.comment.title} ({f.reason})"
                     for f in draft.folded]
    return report

