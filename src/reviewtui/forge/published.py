"""Whether this clone ever published a review to a pull request: what lets ``publish`` say
"nothing to publish" without asking the forge.

A publish with nothing to send (no verdict, no comment, no accepted finding) still has work
when an earlier publish left comments the review no longer has: they are taken back
(``forge.retract``), and only the forge can list them. When no publish from here ever reached
the pull request there is nothing to take back, and the forge need not be asked (offline, it
could not be). The mark is a ref beside the pull request's fetched head and base,
``refs/reviewtui/pr/HOST/PATH/N/published``, at the head last published: written before the
first request is sent (a publish cut short may have left comments), never by a dry run. A
publish from another clone, or from before reviewtui kept this mark, is not known here: an
empty review then finds nothing to take back until something is published from here again.
"""

from __future__ import annotations

from reviewtui.forge.target import PullTarget
from reviewtui.git.runner import GitRepo


def published_ref(target: PullTarget) -> str:
    return target.ref_prefix + "published"


def published_before(repo: GitRepo, target: PullTarget) -> bool:
    """Did a publish from this clone ever (begin to) send a review to ``target``?"""
    return repo.try_resolve(published_ref(target)) is not None


def mark_published(repo: GitRepo, target: PullTarget, head: str) -> None:
    """Note that a review of ``head`` is being published to ``target``."""
    repo.run("update-ref", "-m", "reviewtui: published", published_ref(target), head)
