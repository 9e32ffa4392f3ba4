"""The review of the change the default selector named before a fix changed which one it names.

With no selector, reviewtui takes the pending changes when there are some, else the branch
against its merge base (else the last commit). Writing a fix changes which: a branch reviewed
with nothing pending has a pending change once a fix is applied, and pending changes that a fix
puts back as committed leave nothing pending. A review -- its findings, the fixes applied from
it and their undo -- is kept with the change it was made on, so ``findings`` (list, apply,
undo) and ``export`` without a selector, finding no review for the change named now, take the
other one the default selector names, when it has a review.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from reviewtui.app.pull_review import KeptReview
from reviewtui.errors import ReviewTuiError
from reviewtui.git.selector import ChangeSelector, SelectorMode
from reviewtui.sessions import SessionStore

if TYPE_CHECKING:
    from reviewtui.pipeline import LoadedChange

# what to give instead of the default selector to name that change again
NAMED_BY = {"all": "--all", "pr": "--base", "commit": "--commit HEAD"}


def other_auto_review(store: SessionStore, loaded: LoadedChange,
                      reload: Callable[[ChangeSelector], LoadedChange], *,
                      include_untracked: bool = True) -> KeptReview | None:
    """The latest review of the other change the default selector names (``loaded`` is the
    one it names now, with no review), or None."""
    if loaded.change_set.mode == "all":  # pending changes now: the branch, else the commit
        others = [ChangeSelector(SelectorMode.BASE),
                  ChangeSelector(SelectorMode.COMMIT, ref="HEAD")]
    else:  # nothing pending now: the pending changes a fix has just put back
        others = [ChangeSelector(SelectorMode.ALL, include_untracked=include_untracked)]
    for selector in others:
        try:
            other = reload(selector)
        except ReviewTuiError:  # no default branch, no commit yet
            continue
        session = store.latest_session(str(other.root), other.change_set.key)
        if session is not None:
            change = other.change_set
            return KeptReview(session, other, f"the review of {change.mode}: "
                              f"{change.old_side.describe()} -> {change.new_side.describe()} "
                              f"({NAMED_BY.get(change.mode, change.mode)} names it)")
    return None
