"""Bring a pull request's head and base into ``refs/reviewtui/pr/HOST/PATH/N/``: no checkout.

The head comes from the base repository's pull ref (GitHub ``refs/pull/N/head``, GitLab
``refs/merge-requests/N/head``), so a pull request from a fork needs no access to the fork; the
base is the target branch. Only refs under ``refs/reviewtui/`` are written: the person's
branches, index and working tree stay as they are.

``refs_here`` spares the fetch when the clone already has the head and base commits the API
names (a second ``--pr`` command on the same head, the author's own clone after a push): each
``--pr`` command is otherwise a network round trip, and fails offline.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewtui.errors import ForgeError, GitCommandError
from reviewtui.forge.target import PullTarget
from reviewtui.git.runner import GitRepo

FETCH_TIMEOUT_SECONDS = 600.0


@dataclass(frozen=True, slots=True)
class FetchedRefs:
    head: str  # commit ids as fetched
    base: str


def pull_refspec(target: PullTarget) -> str:
    source = (f"refs/pull/{target.number}/head" if target.repo.forge == "github"
              else f"refs/merge-requests/{target.number}/head")
    return f"+{source}:{target.head_ref}"


def fetch_pull(repo: GitRepo, target: PullTarget, base_branch: str) -> FetchedRefs:
    """Fetch the pull request's head and its base branch; ``ForgeError`` with git's reason."""
    source = target.fetch_source
    if source.startswith("-") or base_branch.startswith("-") or ".." in base_branch:
        raise ForgeError(f"refusing to fetch from {source!r} branch {base_branch!r}")
    specs = [pull_refspec(target), f"+refs/heads/{base_branch}:{target.base_ref}"]
    try:
        # Every head the pull request had stays in its ref's reflog (``app.pull_review``).
        repo.run("-c", "core.logAllRefUpdates=always", "fetch", "--quiet", "--no-tags",
                 "--no-write-fetch-head", source, *specs, timeout=FETCH_TIMEOUT_SECONDS)
    except GitCommandError as exc:
        raise ForgeError(f"cannot fetch {target.label} from {source}: {exc}") from None
    head, base = repo.try_resolve(target.head_ref), repo.try_resolve(target.base_ref)
    if head is None or base is None:
        raise ForgeError(f"fetching {target.label} from {source} left no head or base")
    before = base_before_merge(repo, head, base)
    if before is not None:
        repo.run("update-ref", target.base_ref, before)
        base = before
    return FetchedRefs(head, base)


def refs_here(repo: GitRepo, target: PullTarget, head: str, base: str) -> FetchedRefs | None:
    """The pull request's refs without a fetch, when this clone has its ``head`` and ``base``
    commits (as the API gives them); None when a fetch is needed. The refs fetched before stay
    as they are when they show the same change (the same head, the same merge base); else the
    head ref moves to ``head`` (its reflog keeps the heads it had: ``app.pull_review``) and the
    base ref to ``base``. A shallow clone is always fetched: its history may stop short."""
    if not _is_commit(repo, head) or not _is_commit(repo, base) or repo.is_shallow():
        return None
    fork = repo.try_run("merge-base", base, head)
    if fork is None:
        return None
    current = local_refs(repo, target)
    if current is not None and current.head == head and repo.try_run(
            "merge-base", current.base, head) == fork:
        return current
    repo.run("-c", "core.logAllRefUpdates=always", "update-ref", "-m",
             "reviewtui: the pull request's head, already here", target.head_ref, head)
    repo.run("update-ref", target.base_ref, base)
    before = base_before_merge(repo, head, base)
    if before is not None:
        repo.run("update-ref", target.base_ref, before)
        base = before
    return FetchedRefs(head, base)


def _is_commit(repo: GitRepo, sha: str) -> bool:
    """Is ``sha`` (a full commit id from the API) a commit this clone has?"""
    return (len(sha) == 40 and all(c in "0123456789abcdef" for c in sha)
            and repo.try_resolve(sha) == sha)


def base_before_merge(repo: GitRepo, head: str, base: str) -> str | None:
    """The base branch as the merge of a merged pull request found it, when ``head`` is in
    ``base``'s history (merged with a merge commit): else ``merge-base(base, head)`` is the head
    itself and the change would look empty. That is the first parent of the oldest commit on
    the base branch's first-parent line that holds the head; None when the head is not in the
    base (open, squashed, rebased) or came in without a merge commit (a fast-forward)."""
    if head == base or repo.run_status("merge-base", "--is-ancestor", head, base).returncode != 0:
        return None
    line = (repo.try_run("rev-list", "--first-parent", "--ancestry-path", f"{head}..{base}")
            or b"").split()
    if not line:
        return None
    parent = repo.try_resolve(f"{line[-1].decode('ascii')}^1")
    if parent is None or parent == head or repo.run_status(
            "merge-base", "--is-ancestor", head, parent).returncode == 0:
        return None
    return parent


def local_refs(repo: GitRepo, target: PullTarget) -> FetchedRefs | None:
    """The head and base fetched when the pull request was opened, or None."""
    head, base = repo.try_resolve(target.head_ref), repo.try_resolve(target.base_ref)
    return FetchedRefs(head, base) if head is not None and base is not None else None
