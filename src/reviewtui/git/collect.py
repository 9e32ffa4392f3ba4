"""Turn a ``ChangeSelector`` into a ``ChangeSet`` (the public entry point of the git stage).

One ``git diff --raw -z -p`` call per selector (plus ``ls-files`` for untracked files, and one
``check-attr`` when git calls a file binary), both sides of the comparison recorded so contents
can be read from the right version later.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from reviewtui.errors import (
    EmptyRepositoryError,
    NoMergeBaseError,
    RefError,
    RepositoryError,
    UsageError,
)
from reviewtui.git.attributes import mark_binary_by_attribute
from reviewtui.git.diff_parse import parse_raw_patch_stream
from reviewtui.git.kept_on_disk import fold_kept_on_disk
from reviewtui.git.model import ChangeSet, FileChange, Side, SideKind
from reviewtui.git.patch_file import parse_patch, read_patch_bytes
from reviewtui.git.runner import DIFF_OPTIONS, GitRepo
from reviewtui.git.selector import (
    DEFAULT_BRANCH_CANDIDATES,
    ChangeSelector,
    SelectorMode,
    split_range,
)
from reviewtui.git.untracked import untracked_changes

DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024


def diff_files(repo: GitRepo, *revs: str, cached: bool = False,
               paths: Sequence[str] = ()) -> list[FileChange]:
    """The parsed ``git diff`` between ``revs`` (none: the working tree against the index),
    limited to the pathspecs ``paths`` when given."""
    args = ["diff", *DIFF_OPTIONS, "--raw", "-z", "-p", "--full-index", "--no-abbrev"]
    if cached:
        args.append("--cached")
    args.extend(revs)
    args.append("--")
    args.extend(paths)
    return mark_binary_by_attribute(repo, parse_raw_patch_stream(repo.stream(*args)))


def default_branch(repo: GitRepo) -> str | None:
    """origin/HEAD's target if set, else main or master (local, then origin/)."""
    out = repo.try_run("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if out and out.strip() and repo.try_resolve(out.decode().strip()):
        return out.decode("utf-8", "replace").strip()
    for name in DEFAULT_BRANCH_CANDIDATES:
        for candidate in (name, f"origin/{name}"):
            if repo.try_resolve(candidate):
                return candidate
    return None


def merge_base(repo: GitRepo, left: str, right: str, *, left_label: str,
               right_label: str = "HEAD") -> str:
    out = repo.try_run("merge-base", left, right)
    if not out:
        hint = ("the clone is shallow: run 'git fetch --unshallow'" if repo.is_shallow()
                else "the histories are unrelated")
        raise NoMergeBaseError(f"no merge base between {left_label} and {right_label}",
                               hint=hint)
    return out.decode().strip()


def _parent_or_empty(repo: GitRepo, commit: str, label: str) -> Side:
    parent = repo.try_resolve(f"{commit}^")
    if parent is not None:
        return Side(SideKind.COMMIT, parent, f"{label}^")
    shallow_file = repo.git_dir / "shallow"
    shallow = shallow_file.read_text().split() if shallow_file.is_file() else []
    if commit in shallow:
        raise RepositoryError(
            f"the parent of {label} is missing from this shallow clone",
            hint="run 'git fetch --deepen=1' or 'git fetch --unshallow'",
        )
    return Side(SideKind.EMPTY, repo.empty_tree(), "empty tree")


def _head_side(repo: GitRepo) -> Side:
    """HEAD; on a branch with no commit yet (a new repository, ``git checkout --orphan``)
    the empty tree, so the first commit can be reviewed before it is made."""
    try:
        head = repo.head()
    except EmptyRepositoryError:
        return Side(SideKind.EMPTY, repo.empty_tree(), "empty tree")
    return Side(SideKind.COMMIT, head, "HEAD")


def _worktree_change(repo: GitRepo, selector: ChangeSelector, max_bytes: int,
                     mode: SelectorMode, head: Side | None = None) -> ChangeSet:
    """The staged, working or whole pending change (``head``: HEAD's side when known)."""
    if mode is SelectorMode.STAGED:
        old = head or _head_side(repo)
        assert old.rev is not None
        files = fold_kept_on_disk(repo, diff_files(repo, old.rev, cached=True), diff_files)
        return ChangeSet(repo.root, "staged", old, Side(SideKind.INDEX), files=tuple(files))
    if mode is SelectorMode.WORKING:
        files = diff_files(repo)
        old = Side(SideKind.INDEX)
    else:
        old = head or _head_side(repo)
        assert old.rev is not None
        files = diff_files(repo, old.rev)
    if selector.include_untracked:
        files.extend(untracked_changes(repo, max_bytes))
    files = fold_kept_on_disk(repo, files, diff_files,
                              against_index=mode is SelectorMode.WORKING)
    return ChangeSet(repo.root, mode.value if mode is not SelectorMode.AUTO else "all", old,
                     Side(SideKind.WORKTREE), files=tuple(files))


def _between(repo: GitRepo, mode: str, old: Side, new: Side, base: str | None) -> ChangeSet:
    assert old.rev is not None and new.rev is not None
    files = diff_files(repo, old.rev, new.rev)
    return ChangeSet(repo.root, mode, old, new, base_branch=base, files=tuple(files))


def _base(repo: GitRepo, ref: str | None, configured: str | None) -> ChangeSet:
    head = repo.head()
    name = ref or configured or default_branch(repo)
    if name is None:
        raise RefError("cannot find a default branch (main, master or origin/HEAD)",
                       hint="pass --base REF")
    base_commit = repo.resolve_commit(name)
    mb = merge_base(repo, base_commit, head, left_label=name)
    return _between(repo, "pr", Side(SideKind.COMMIT, mb, f"merge-base({name})"),
                    Side(SideKind.COMMIT, head, "HEAD"), name)


def _named(repo: GitRepo, rev: str) -> str:
    """``rev`` resolved; in a repository without a single commit, saying so (a ``RefError``
    there would send the user looking for a typo). HEAD need not be born for ``rev``."""
    try:
        return repo.resolve_commit(rev)
    except RefError:
        if not repo.has_commits():
            repo.head()  # EmptyRepositoryError: no commits yet
        raise


def _commit(repo: GitRepo, rev: str) -> ChangeSet:
    commit = _named(repo, rev)
    return _between(repo, "commit", _parent_or_empty(repo, commit, rev),
                    Side(SideKind.COMMIT, commit, rev), None)


def _range(repo: GitRepo, spec: str) -> ChangeSet:
    left, right, symmetric = split_range(spec)
    left_id = _named(repo, left)
    right_id = _named(repo, right)
    if symmetric:
        left_id = merge_base(repo, left_id, right_id, left_label=left, right_label=right)
        left = f"merge-base({left})"
    return _between(repo, "range", Side(SideKind.COMMIT, left_id, left),
                    Side(SideKind.COMMIT, right_id, right), None)


def _auto(repo: GitRepo, selector: ChangeSelector, max_bytes: int,
          configured: str | None) -> ChangeSet:
    # With no selector, a repository without a commit is refused (the hint names --staged
    # and --working, which review the files before the first commit).
    head = repo.head()
    pending = _worktree_change(repo, selector, max_bytes, SelectorMode.AUTO,
                               Side(SideKind.COMMIT, head, "HEAD"))
    if not pending.is_empty:
        return pending
    branch = configured or default_branch(repo)
    if branch is not None:
        base_id = repo.resolve_commit(branch)
        out = repo.try_run("merge-base", base_id, head)
        if out and out.decode().strip() != head:
            mb = out.decode().strip()
            return _between(repo, "pr", Side(SideKind.COMMIT, mb, f"merge-base({branch})"),
                            Side(SideKind.COMMIT, head, "HEAD"), branch)
    return _commit(repo, "HEAD")


def collect_change(repo: GitRepo | None, selector: ChangeSelector, *,
                   max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                   patch_root: Path | None = None,
                   default_branch_name: str | None = None) -> ChangeSet:
    """Collect the change the selector names. ``repo`` may be None only for ``--patch``.

    ``default_branch_name`` (the ``git.default_branch`` setting) overrides auto-detection.
    """
    if selector.mode is SelectorMode.PATCH:
        if selector.patch is None:
            raise UsageError("--patch needs a file name or '-'")
        data = read_patch_bytes(selector.patch)
        name = "standard input" if selector.patch == "-" else selector.patch
        files = parse_patch(data, name=name)
        root = repo.root if repo is not None else (patch_root or Path.cwd()).resolve()
        return ChangeSet(root, "patch", Side(SideKind.UNKNOWN, label=f"{name} (before)"),
                         Side(SideKind.UNKNOWN, label=f"{name} (after)"), files=tuple(files))
    if repo is None:
        raise UsageError("a git repository is required")
    if repo.is_bare and selector.mode not in (SelectorMode.COMMIT, SelectorMode.RANGE,
                                              SelectorMode.BASE):
        raise RepositoryError(f"{repo.root} is a bare repository",
                              hint="use --commit, --range or --base")
    mode = selector.mode
    if mode in (SelectorMode.STAGED, SelectorMode.WORKING, SelectorMode.ALL):
        return _worktree_change(repo, selector, max_file_bytes, mode)
    if mode is SelectorMode.BASE:
        return _base(repo, selector.ref, default_branch_name)
    if mode is SelectorMode.COMMIT:
        return _commit(repo, selector.ref or "HEAD")
    if mode is SelectorMode.RANGE:
        if not selector.ref:
            raise UsageError("--range needs A..B or A...B")
        return _range(repo, selector.ref)
    return _auto(repo, selector, max_file_bytes, default_branch_name)
