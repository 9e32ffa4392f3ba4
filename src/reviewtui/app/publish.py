"""Publish the person's review to the pull request it is about: ``reviewtui publish`` and the
workbench's ``X`` → publish both call ``publish_review``.

The change is the one fetched when the pull request was opened (``refs/reviewtui/pr/HOST/PATH/N/``:
the head that was reviewed), its review what the session keeps (``agent.deliverable.gather``). The
draft (``forge.draft``) is compared with what the pull request already has (``forge.sync``), then
sent unless ``dry_run``; the comments an earlier publish left that the review no longer has (a
finding dismissed, a comment deleted since) are taken back (``forge.retract``). When the pull
request's head moved since (a force-push, new commits), the line comments are not anchored on
lines that may mean something else now: they go into the summary, with a note saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reviewtui.errors import ForgeError
from reviewtui.forge.auth import Token
from reviewtui.forge.draft import PUBLISHED_STATES, ReviewDraft, build_draft, marker_key
from reviewtui.forge.github import GitHubClient, GitHubReviewComment
from reviewtui.forge.gitlab import GitLabClient
from reviewtui.forge.gitlab_position import LineMap
from reviewtui.forge.gitlab_send import run_gitlab
from reviewtui.forge.gitlab_sync import GitLabPlan, plan_gitlab
from reviewtui.forge.gitlab_sync import ours as gitlab_ours
from reviewtui.forge.gitlab_sync import threads_of as gitlab_threads
from reviewtui.forge.http import Sleep
from reviewtui.forge.pull import ForgeClient, PullInfo, from_gitlab, open_client, read_pull
from reviewtui.forge.retract import github_retractions, gitlab_retractions, kept_keys
from reviewtui.forge.sync import SyncPlan, SyncReport, by_viewer, plan_sync, run_sync
from reviewtui.forge.sync import ours as github_ours
from reviewtui.forge.target import PullTarget
from reviewtui.forge.threads import PullThread
from reviewtui.git.model import ChangeSet


@dataclass
class PublishOutcome:
    target: PullTarget
    pull: PullInfo
    reviewed_head: str
    plan: SyncPlan | GitLabPlan
    token_source: str
    threads: list[str] = field(default_factory=list)  # others' review comments, read-only
    report: SyncReport | None = None  # None: a dry run

    @property
    def head_moved(self) -> bool:
        return self.pull.head_sha != self.reviewed_head


def added_lines(change_set: ChangeSet) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for change in change_set.files:
        if change.new_path is None:
            continue
        for hunk in change.hunks:
            found.setdefault(change.new_path, set()).update(
                line.new_no for line in hunk.lines if line.kind == "+" and line.new_no)
    return found


def threads_of(comments: list[GitHubReviewComment],
               viewer: str | None = None) -> list[PullThread]:
    """The review comments others left (not the ones reviewtui published for ``viewer``: a
    colleague's reviewtui comments are hers), read-only."""
    return [PullThread(c.path, c.line, c.user.login if c.user else "?", c.body,
                       c.in_reply_to_id is not None)
            for c in comments if marker_key(c.body) is None or not by_viewer(c.user, viewer)]


def thread_lines(comments: list[GitHubReviewComment], viewer: str | None) -> list[str]:
    """The review threads others left, one line each: where, who, what (read-only)."""
    return [thread.describe() for thread in threads_of(comments, viewer)]


def pull_threads(path: str | Path | None, spec: str, *,
                 token: Token | None = None) -> list[PullThread]:
    """The review comments already on pull request ``spec`` (the workbench shows them beside
    their lines)."""
    from reviewtui.app.open_pr import locate_pull

    _repo, target = locate_pull(path, spec)
    client = open_client(target, token=token)
    try:
        if isinstance(client, GitLabClient):
            return gitlab_threads(client.discussions(), client.viewer())
        return threads_of(client.review_comments(), client.viewer())
    finally:
        client.close()


def publish_review(path: str | Path | None, spec: str, *, dry_run: bool = False,
                   token: Token | None = None, sleep: Sleep | None = None,
                   store_path: Path | None = None) -> PublishOutcome:
    """Publish (or with ``dry_run`` only plan) the review of pull request ``spec``."""
    from reviewtui.agent.deliverable import gather, redacted
    from reviewtui.agent.workspace import Workspace, change_key
    from reviewtui.app.open_pr import locate_pull, pull_selector, reviewed_refs
    from reviewtui.app.pull_review import earlier_review
    from reviewtui.pipeline import load_change
    from reviewtui.sessions import SessionStore

    repo, target = locate_pull(path, spec)
    reviewed_head = reviewed_refs(repo, target).head
    loaded = load_change(repo.root, pull_selector(target))
    with SessionStore(store_path) as store:
        session = store.latest_session(str(loaded.root), change_key(loaded.change_set))
        if session is None:  # fetched again since (a force-push, new commits): the review
            earlier = earlier_review(store, str(loaded.root), repo, target)  # made before
            if earlier is None:
                raise ForgeError(f"no review kept for {target.label} at {reviewed_head[:10]}",
                                 hint=f"review it first: reviewtui --pr {target.number}")
            session, reviewed_head = earlier.session, earlier.head
            loaded = load_change(repo.root, earlier.selector)
        ws = Workspace(loaded, loaded.plan(use_llm=False,
                                           overrides=store.overrides(session.session_id)))
        review = redacted(ws, gather(ws, store, session.session_id, everything=True))
    review = review.model_copy(update={"findings": [
        f for f in review.findings if f.state in PUBLISHED_STATES]})
    # with nothing left, a publish still takes back what an earlier one published
    empty = review.verdict is None and not review.comments and not review.findings
    draft = build_draft(review, loaded.change_set)
    client = open_client(target, token=token, sleep=sleep)
    try:
        outcome = _plan(client, draft, reviewed_head, loaded.change_set, session.created_at)
        if empty and not outcome.plan.retractions:
            raise ForgeError(f"nothing to publish for {target.label}: no verdict, no comments, "
                             "no accepted findings")
        if not dry_run:
            plan = outcome.plan
            if isinstance(plan, GitLabPlan):
                outcome.report = run_gitlab(plan.client, plan)
            else:
                assert isinstance(client, GitHubClient)
                outcome.report = run_sync(client, plan, added_lines(loaded.change_set))
            forge = "GitLab" if isinstance(client, GitLabClient) else "GitHub"
            outcome.report.notes[:0] = [f"waited {w:g} s for {forge}'s rate limit"
                                        for w in client.http.waited]
        return outcome
    finally:
        client.close()


def _plan(client: ForgeClient, draft: ReviewDraft, head: str, change_set: ChangeSet,
          began: str | None = None) -> PublishOutcome:
    """What publishing ``draft`` of the reviewed ``head`` would send, and the others' threads
    (``began``: when the review's session began)."""
    mr = client.merge_request() if isinstance(client, GitLabClient) else None
    pull = from_gitlab(mr, client.target) if mr is not None else read_pull(client)
    if isinstance(client, GitLabClient):
        assert mr is not None
        viewer = client.viewer()
        discussions = client.discussions()
        if pull.head_sha != head:
            draft = _moved(draft, pull.kind, head, pull.head_sha,
                           set(gitlab_ours(discussions, viewer)[0]))
        plan: SyncPlan | GitLabPlan = plan_gitlab(client, draft, head, mr, discussions,
                                                  LineMap.of(change_set), viewer)
        plan.retractions = gitlab_retractions(client.mr_path(), discussions, viewer, head,
                                              kept_keys(draft),
                                              {c.key for c in plan.draft.comments}, began)
        threads = [t.describe() for t in gitlab_threads(discussions, viewer)]
    else:
        viewer = client.viewer()
        comments, reviews = client.review_comments(), client.reviews()
        if pull.head_sha != head:
            draft = _moved(draft, pull.kind, head, pull.head_sha, set(github_ours(comments,
                                                                                 viewer)))
        plan = plan_sync(client, draft, head, comments, reviews, viewer,
                         head_moved=pull.head_sha != head, author=pull.author)
        plan.retractions = github_retractions(client.prefix, comments, viewer, head,
                                              kept_keys(draft),
                                              {c.key for c in plan.draft.comments})
        threads = thread_lines(comments, viewer)
    return PublishOutcome(client.target, pull, head, plan, str(client.http.token), threads)


def _moved(draft: ReviewDraft, kind: str, head: str, now: str,
           published: set[str]) -> ReviewDraft:
    """The draft of a review whose head moved since: its line comments go into the summary
    (their lines may have changed), except those an earlier publish already put on their
    lines, which stay there (copied into the summary too, they were said twice)."""
    moving = [c.key for c in draft.comments if c.key not in published]
    draft = draft.leave(published).fold(moving, "the head moved since the review")
    left = (f"; {len(draft.left)} published on their lines before are left there"
            if draft.left else "")
    return draft.with_note(
        f"the {kind.lower()}'s head moved since this review (reviewed {head[:10]}, now "
        f"{now[:10]}): its line comments are here instead of on lines that may have "
        f"changed{left}")
