"""The review a pull request's commands work on: the one of its current head, else the latest
one of a head it had before.

A review is kept per change (``range:MERGE_BASE..HEAD``), and every ``--pr`` command fetches the
pull request again: after a force-push or new commits its change is a new one with no review,
and the review made before -- its verdict, comments, findings, the fixes applied from it --
could no longer be published, listed or undone. The heads a pull request had are in the
reflog of its fetched ref (``forge.fetch`` writes one); the latest review of any of them is
the one to use, with the change it was made on, and the caller says that the head moved.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewtui.forge.target import PullTarget
from reviewtui.git.runner import GitRepo
from reviewtui.git.selector import ChangeSelector, SelectorMode
from reviewtui.sessions import SessionStore
from reviewtui.sessions.records import SessionInfo

_RANGE = "range:"


@dataclass(frozen=True, slots=True)
class EarlierReview:
    session: SessionInfo
    head: str  # the head that was reviewed
    selector: ChangeSelector  # the change it was made on


def earlier_heads(repo: GitRepo, target: PullTarget) -> list[str]:
    """The heads the pull request had when it was fetched here, newest first (its ref's
    reflog; the current head first)."""
    out = repo.try_run("reflog", "show", "--format=%H", target.head_ref, "--") or b""
    heads: list[str] = []
    for line in out.decode("ascii", "replace").split():
        if line not in heads:
            heads.append(line)
    return heads


def earlier_review(store: SessionStore, repo_key: str, repo: GitRepo,
                   target: PullTarget) -> EarlierReview | None:
    """The latest review of a head the pull request had before (None: there is none)."""
    for head in earlier_heads(repo, target):
        session = store.latest_session_of_range_to(repo_key, head)
        if session is None or not session.change_key.startswith(_RANGE):
            continue
        old, _, new = session.change_key.removeprefix(_RANGE).partition("..")
        if old and new == head and repo.try_resolve(head) and repo.try_resolve(old):
            return EarlierReview(session, head,
                                 ChangeSelector(SelectorMode.RANGE, ref=f"{old}..{head}"))
    return None
