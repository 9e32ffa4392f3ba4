"""Run git safely for a repository found with GitPython.

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
from collections.abc import Iterator

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
from pathlib import Path

import git

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
_CONFIG: tuple[str, ...] = ("-c", "core.quotePath=false", "-c", "diff.noprefix=false")
_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


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

    def __init__(self, repo: git.Repo) -> None:
        self._repo = repo
        work = repo.working_tree_dir
        self.root = Path(work if work is not None else repo.git_dir).resolve()
        self.git_dir = Path(repo.git_dir).resolve()
        # shared by every worktree of the repository (== git_dir outside linked worktrees)
        self.common_dir = Path(repo.common_dir).resolve()
        self.is_bare = repo.bare
        self._env = {**os.environ, **_ENV}

    def run_status(self, *args: str, stdin: bytes | None = None,
                   timeout: float | None = None) -> subprocess.CompletedProcess[bytes]:
        """Run ``git <args>``; the caller reads the exit status, stdout and stderr."""
        command = [self._repo.git.GIT_PYTHON_GIT_EXECUTABLE or "git", *_CONFIG, *args]
        try:
            return subprocess.run(
                command, cwd=self.root, input=stdin, capture_output=True, env=self._env,
                check=False, timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise GitCommandError(f"git {args[0]} timed out after {timeout:g} s") from None
        except OSError as exc:  # git missing from PATH
            raise GitCommandError(f"cannot run git: {exc.strerror or exc}") from exc

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True,
            timeout: float | None = None) -> bytes:
        """Run ``git <args>`` in the repository root and return stdout as bytes."""
        proc = self.run_status(*args, stdin=stdin, timeout=timeout)
        if check and proc.returncode != 0:
            raise GitCommandError(_failure(args[0], proc.stderr, proc.returncode))
        return proc.stdout

    def stream(self, *args: str, chunk_size: int = 1 << 16) -> Iterator[bytes]:
        """Run ``git <args>`` and yield its stdout as it is written; raise like ``run`` at the end.

        stderr goes to a temporary file, so a chatty git can never block on a full pipe.
        """
        command = [self._repo.git.GIT_PYTHON_GIT_EXECUTABLE or "git", *_CONFIG, *args]
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
            raise EmptyRepositoryError(
                f"repository {self.root} has no commits yet",
                hint="commit something first, or pass --patch FILE",
            )
        return head

    def is_shallow(self) -> bool:
        out = self.try_run("rev-parse", "--is-shallow-repository")
        return out is not None and out.strip() == b"true"

    def empty_tree(self) -> str:
        return self.run("hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()


def open_repository(path: str | Path | None = None) -> GitRepo:
    """Find the repository containing ``path`` (default: the working directory, upwards)."""
    target = Path(path) if path is not None else Path.cwd()
    if not target.exists():
        raise PathNotFoundError(f"path does not exist: {target}")
    if target.is_file():
        target = target.parent
    try:
        repo = git.Repo(target, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise NotARepositoryError(f"not a git repository: {target.resolve()}") from None
    return GitRepo(repo)
