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

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reviewtui.forge.target import PullTarget
from reviewtui.git.runner import GitRepo
from reviewtui.git.selector import ChangeSelector, SelectorMode
from reviewtui.sessions import SessionStore
from reviewtui.sessions.records import SessionInfo

if TYPE_CHECKING:
    from reviewtui.app.open_pr import OpenedPull
    from reviewtui.pipeline import LoadedChange

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


@dataclass(frozen=True, slots=True)
class KeptReview:
    session: SessionInfo | None  # None: no review kept for the change (nor an earlier head)
    loaded: LoadedChange  # the change the review was made on
    moved: str | None = None  # said when it is an earlier head's: which, and the head now


def kept_review(store: SessionStore, loaded: LoadedChange, opened: OpenedPull | None,
                reload: Callable[[ChangeSelector], LoadedChange]) -> KeptReview:
    """The review of ``loaded`` (its latest session); for a pull request (``opened``) whose
    head moved since it was reviewed, the latest review of an earlier head, with its change
    loaded by ``reload``: what ``findings`` and ``export`` work on, as ``publish`` does."""
    from reviewtui.git.runner import open_repository

    session = store.latest_session(str(loaded.root), loaded.change_set.key)
    if session is not None or opened is None:
        return KeptReview(session, loaded)
    earlier = earlier_review(store, str(loaded.root), open_repository(loaded.root),
                             opened.target)
    if earlier is None:
        return KeptReview(None, loaded)
    return KeptReview(earlier.session, reload(earlier.selector),
                      f"the review of {opened.target.label} at {earlier.head[:10]}; its head "
                      f"is {opened.refs.head[:10]} now")
