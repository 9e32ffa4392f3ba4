"""Run git safely for a repository that git itself found (``git rev-parse``).

Every diff-producing call pins the options that a user's git configuration could otherwise
change (colour, external diff drivers, textconv, prefixes, quoting, context size, order files,
relative paths, submodule format), reads bytes, and turns git failures into ``ReviewTuiError``s.
User- or model-supplied text is never placed where git would read it as an option.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
from pathlib import Path

from reviewtui.errors import (
    EmptyRepositoryError,
    GitCommandError,
    NotARepositoryError,
    PathNotFoundError,
    RefError,
)

DIFF_OPTIONS: tuple[str, ...] = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "-M",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--no-relative",
    "--unified=3",
    "--inter-hunk-context=0",
    "--submodule=short",
    "--ignore-submodules=none",
    "-O/dev/null",
)
# log.showSignature: gpg's lines would land in ``git log``'s and ``git show``'s own output
_CONFIG: tuple[str, ...] = ("-c", "core.quotePath=false", "-c", "diff.noprefix=false",
                            "-c", "log.showSignature=false")
_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


def _git() -> str:
    """The git to run: ``GIT_PYTHON_GIT_EXECUTABLE`` still names another one (repositories
    were found with GitPython once, whose variable it is), else ``git`` from PATH."""
    return os.environ.get("GIT_PYTHON_GIT_EXECUTABLE") or "git"


def _widen_pipe(fd: int) -> None:
    """Let git write up to 1 MiB ahead of the reader (Linux), so it rarely waits for the parser.

    The default pipe holds 64 KiB: whenever parsing a chunk takes longer than git needs to
    write the next 64 KiB, git would stall.
    """
    set_pipe_size = getattr(fcntl, "F_SETPIPE_SZ", 1031) if fcntl is not None else None
    if set_pipe_size is None or not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError):  # above /proc/sys/fs/pipe-max-size: keep the default
        fcntl.fcntl(fd, set_pipe_size, 1 << 20)


def _failure(command: str, stderr: bytes, returncode: int) -> str:
    message = stderr.decode("utf-8", "replace").strip().splitlines()
    first = next((m for m in message if m.startswith(("fatal:", "error:"))),
                 message[0] if message else f"exit status {returncode}")
    return f"git {command} failed: {first}"


class GitRepo:
    """A repository root plus a way to run git in it."""

    def __init__(self, root: Path, git_dir: Path, common_dir: Path, *,
                 bare: bool = False) -> None:
        self.root = root.resolve()  # the working tree's top (the git dir of a bare one)
        self.git_dir = git_dir.resolve()
        # shared by every worktree of the repository (== git_dir outside linked worktrees)
        self.common_dir = common_dir.resolve()
        self.is_bare = bare
        self._env = {**os.environ, **_ENV}

    def run_status(self, *args: str, stdin: bytes | None = None, timeout: float | None = None,
                   env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        """Run ``git <args>``; the caller reads the exit status, stdout and stderr. ``env``:
        variables set for this call on top of the repository's."""
        command = [_git(), *_CONFIG, *args]
        try:
            return subprocess.run(
                command, cwd=self.root, input=stdin, capture_output=True,
                env={**self._env, **env} if env else self._env, check=False, timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise GitCommandError(f"git {args[0]} timed out after {timeout:g} s") from None
        except OSError as exc:  # git missing from PATH
            raise GitCommandError(f"cannot run git: {exc.strerror or exc}") from exc

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True,
            timeout: float | None = None, env: Mapping[str, str] | None = None) -> bytes:
        """Run ``git <args>`` in the repository root and return stdout as bytes."""
        proc = self.run_status(*args, stdin=stdin, timeout=timeout, env=env)
        if check and proc.returncode != 0:
            raise GitCommandError(_failure(args[0], proc.stderr, proc.returncode))
        return proc.stdout

    def stream(self, *args: str, chunk_size: int = 1 << 16) -> Iterator[bytes]:
        """Run ``git <args>`` and yield its stdout as it is written; raise like ``run`` at the end.

        stderr goes to a temporary file, so a chatty git can never block on a full pipe.
        """
        command = [_git(), *_CONFIG, *args]
        with tempfile.TemporaryFile() as errors:
            try:
                proc = subprocess.Popen(command, cwd=self.root, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=errors, env=self._env,
                                        bufsize=0)
            except OSError as exc:  # git missing from PATH
                raise GitCommandError(f"cannot run git: {exc.strerror or exc}") from exc
            assert proc.stdout is not None
            _widen_pipe(proc.stdout.fileno())
            try:
                while chunk := proc.stdout.read(chunk_size):  # unbuffered: what is there
                    yield chunk
            finally:
                proc.stdout.close()
                if proc.poll() is None:
                    proc.kill()
                returncode = proc.wait()
            if returncode != 0:
                errors.seek(0)
                raise GitCommandError(_failure(args[0], errors.read(), returncode))

    def try_run(self, *args: str) -> bytes | None:
        """Like ``run`` but returns None instead of raising when git fails."""
        try:
            return self.run(*args)
        except GitCommandError:
            return None

    def resolve_commit(self, ref: str) -> str:
        """Resolve ``ref`` to a full commit id, or raise ``RefError`` naming it."""
        if not ref or ref.startswith("-") or "\n" in ref or "\0" in ref:
            raise RefError(f"invalid revision {ref!r}")
        out = self.try_run("rev-parse", "--verify", "--quiet", "--end-of-options",
                           f"{ref}^{{commit}}")
        if not out:
            kind = self.try_run("cat-file", "-t", "--end-of-options", ref)  # not one at all?
            if kind and kind.strip() in (b"tree", b"blob"):
                raise RefError(f"{ref!r} names a {kind.strip().decode()}, not a commit",
                               hint="give a commit, a branch or a tag")
            raise RefError(f"unknown revision {ref!r}", hint="check the branch, tag or commit name")
        return out.decode("ascii").strip()

    def try_resolve(self, ref: str) -> str | None:
        try:
            return self.resolve_commit(ref)
        except RefError:
            return None

    def head(self) -> str:
        head = self.try_resolve("HEAD")
        if head is None:
            if self.has_commits():
                branch = self.try_run("symbolic-ref", "--quiet", "--short", "HEAD")
                name = branch.decode("utf-8", "replace").strip() if branch else "HEAD"
                raise EmptyRepositoryError(
                    f"HEAD is an unborn branch ({name!r} has no commits yet)",
                    hint="commit on it first, name a commit (--commit, --range), or review "
                         "its first commit before it is made: --staged, --working, --all",
                )
            raise EmptyRepositoryError(
                f"repository {self.root} has no commits yet",
                hint="commit something first, review the files before the first commit "
                     "with --staged, --working or --all, or pass --patch FILE",
            )
        return head

    def has_commits(self) -> bool:
        """Whether any branch, tag or other ref names a commit (HEAD may be unborn)."""
        out = self.try_run("for-each-ref", "--count=1", "--format=%(objectname)")
        return bool(out and out.strip())

    def is_shallow(self) -> bool:
        out = self.try_run("rev-parse", "--is-shallow-repository")
        return out is not None and out.strip() == b"true"

    def empty_tree(self) -> str:
        return self.run("hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()


def open_repository(path: str | Path | None = None) -> GitRepo:
    """Find the repository containing ``path`` (default: the working directory, upwards).

    One ``git rev-parse`` names the git directory, the common one and the working tree (it
    follows ``.git`` files of linked worktrees and submodules, and ``GIT_DIR``, as every
    later git command here does); GitPython, which did this before, took a fifth of a second
    to import, on the way to every change's first row."""
    target = Path(path) if path is not None else Path.cwd()
    if not target.exists():
        raise PathNotFoundError(f"path does not exist: {target}")
    if target.is_file():
        target = target.parent
    asked = ["rev-parse", "--path-format=absolute", "--is-bare-repository",
             "--absolute-git-dir", "--git-common-dir"]
    found = _rev_parse(target, [*asked, "--show-toplevel"], 4)  # a working tree: the usual
    if found is None:
        found = _rev_parse(target, asked, 3)  # bare, or inside a git directory
    if found is None:
        raise NotARepositoryError(f"not a git repository: {target.resolve()}")
    bare, git_dir, common_dir = found[0] == "true", Path(found[1]), Path(found[2])
    # a bare repository is its git directory; from inside .git, the tree is its parent
    root = Path(found[3]) if len(found) == 4 else git_dir if bare else git_dir.parent
    return GitRepo(root, git_dir, common_dir, bare=bare)


def _rev_parse(target: Path, args: list[str], lines: int) -> list[str] | None:
    """``git rev-parse`` run in ``target``: its ``lines`` lines, or None when it fails."""
    try:
        proc = subprocess.run([_git(), *args], cwd=target, capture_output=True,
                              env={**os.environ, **_ENV}, check=False)
    except OSError as exc:  # git missing from PATH
        raise GitCommandError(f"cannot run git: {exc.strerror or exc}") from exc
    if b"dubious ownership" in proc.stderr:  # a repository git refuses to work in
        raise GitCommandError(_failure("rev-parse", proc.stderr, proc.returncode))
    found = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    return found if proc.returncode == 0 and len(found) == lines else None
