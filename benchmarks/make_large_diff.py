"""Build a scratch git repository holding a large, real-world diff for benchmarks.

Two released source distributions of one PyPI project are downloaded with
``pip download --no-deps --no-binary NAME`` (or, with ``--npm``, two releases
of an npm package with ``npm pack``), extracted, and committed as two
commits of a fresh repository, tagged ``old`` and ``new``.  Author, committer,
dates and messages are fixed, and user/system git configuration is ignored
while building, so the commit ids are the same on every machine.

The default pair, Django 5.0.6 -> 5.1, gives a diff of roughly 900 changed
files and 3,000 hunks (see ``benchmarks/README.md``).

The script is idempotent: when the target repository already exists with the
expected ``old``/``new`` commits it is reused (pass ``--force`` to rebuild).
Downloads are cached under ``<data dir>/downloads``.

Usage::

    python benchmarks/make_large_diff.py
    python benchmarks/make_large_diff.py --package django --old 4.2.7 --new 5.0
    python benchmarks/make_large_diff.py --npm --package expo-modules-core --old 2.1.4 --new 2.2.0

Only the standard library is used; ``git``, ``pip`` and ``npm`` are run as subprocesses
(``pip`` through the current interpreter, ``sys.executable -m pip``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
DATA_DIR = BENCH_DIR / ".data"

DEFAULT_PACKAGE = "django"
DEFAULT_OLD = "5.0.6"
DEFAULT_NEW = "5.1"
DEFAULT_REPO = DATA_DIR / f"{DEFAULT_PACKAGE}-{DEFAULT_OLD}-{DEFAULT_NEW}"

# Fixed identity and dates make the commit ids reproducible.
AUTHOR_NAME = "reviewtui benchmarks"
AUTHOR_EMAIL = "benchmarks@reviewtui.invalid"
OLD_DATE = "2024-01-01T00:00:00+0000"
NEW_DATE = "2024-01-02T00:00:00+0000"

# The diff flags reviewtui itself uses (bench_index.py imports them from here).
TOOL_DIFF_FLAGS = [
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "-M",
    "--src-prefix=a/",
    "--dst-prefix=b/",
]

SDIST_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip")


class BuildError(RuntimeError):
    """A step of building the dataset failed."""


@dataclass(frozen=True)
class DiffStats:
    """Size of the diff between two revisions."""

    files: int
    hunks: int
    insertions: int
    deletions: int
    status_counts: dict[str, int]

    def describe(self) -> str:
        """Return a one-line, human readable summary."""
        statuses = ", ".join(f"{k}={v}" for k, v in sorted(self.status_counts.items()))
        return (
            f"{self.files} files, {self.hunks} hunks, "
            f"+{self.insertions}/-{self.deletions} lines ({statuses})"
        )


def normalize_name(name: str) -> str:
    """Normalize a distribution name the PEP 503 way (``Django`` -> ``django``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def slug(package: str) -> str:
    """A file name for a package: ``@wordpress/block-library`` -> ``wordpress-block-library``."""
    return normalize_name(package).lstrip("@").replace("/", "-")


def default_repo_path(package: str, old: str, new: str) -> Path:
    """Return the default location of the dataset repository."""
    return DATA_DIR / f"{slug(package)}-{old}-{new}"


def git_env() -> dict[str, str]:
    """Return an environment that isolates git from user/system configuration."""
    env = dict(os.environ)
    for key in list(env):
        if key.startswith("GIT_"):
            del env[key]
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": AUTHOR_NAME,
            "GIT_AUTHOR_EMAIL": AUTHOR_EMAIL,
            "GIT_COMMITTER_NAME": AUTHOR_NAME,
            "GIT_COMMITTER_EMAIL": AUTHOR_EMAIL,
            "LC_ALL": "C",
        }
    )
    return env


def git(
    repo: Path,
    *args: str,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> str:
    """Run ``git -C repo ARGS`` and return its stdout as text."""
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if check and proc.returncode != 0:
        raise BuildError(f"git {' '.join(args)} failed in {repo}:\n{proc.stderr.strip()}")
    return proc.stdout


def find_sdist(directory: Path) -> Path | None:
    """Return the single sdist archive in ``directory``, if there is one."""
    if not directory.is_dir():
        return None
    found = sorted(
        p for p in directory.iterdir() if p.is_file() and p.name.lower().endswith(SDIST_SUFFIXES)
    )
    if len(found) > 1:
        raise BuildError(f"more than one archive in {directory}: {[p.name for p in found]}")
    return found[0] if found else None


def download_sdist(package: str, version: str, downloads: Path, *, npm: bool = False) -> Path:
    """Download (or reuse a cached copy of) the sdist of ``package==version`` (``npm``: the
    npm package's tarball)."""
    target = downloads / f"{'npm-' if npm else ''}{slug(package)}-{version}"
    cached = find_sdist(target)
    if cached is not None:
        print(f"using cached {cached}", file=sys.stderr)
        return cached
    target.mkdir(parents=True, exist_ok=True)
    if npm:
        what = f"npm pack of {package}@{version}"
        cmd = ["npm", "pack", "--silent", f"{package}@{version}", "--pack-destination",
               str(target)]
    else:
        what = f"pip download of {package}=={version}"
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               # the package's sdist; its build backend may come as a wheel (maturin,
               # setuptools-rust: building those from source needs crates.io)
               "--no-binary", package, f"{package}=={version}", "-d", str(target)]
    print(f"{what} ...", file=sys.stderr)
    proc = subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL if npm else None)
    if proc.returncode != 0:
        raise BuildError(f"{what} failed (exit {proc.returncode})")
    sdist = find_sdist(target)
    if sdist is None:
        raise BuildError(f"{what} left no archive in {target}")
    return sdist


def extract_archive(archive: Path, dest: Path) -> Path:
    """Extract ``archive`` into ``dest`` and return its single top-level directory."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    if archive.name.lower().endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(dest)
    else:
        with tarfile.open(archive) as tf:
            # The "data" filter refuses unsafe members and drops the archive's
            # owner ids (extracting as root would otherwise keep them, and git
            # then refuses the repository as having "dubious ownership").
            if hasattr(tarfile, "data_filter"):
                tf.extractall(dest, filter="data")
            else:  # pragma: no cover - Python < 3.11.4
                tf.extractall(dest)
    entries = list(dest.iterdir())
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return dest


def clear_worktree(repo: Path) -> None:
    """Delete everything in ``repo`` except ``.git``."""
    for entry in repo.iterdir():
        if entry.name == ".git":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def commit_tree(repo: Path, tree: Path, message: str, date: str) -> str:
    """Replace the work tree of ``repo`` by ``tree``, commit it and return the id."""
    clear_worktree(repo)
    shutil.copytree(tree, repo, symlinks=True, dirs_exist_ok=True)
    env = git_env()
    env["GIT_AUTHOR_DATE"] = date
    env["GIT_COMMITTER_DATE"] = date
    # -f: the sdist may contain files matched by its own .gitignore.
    git(repo, "add", "--all", "--force", ".", env=env)
    git(repo, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD", env=env).strip()


def commit_message(package: str, version: str) -> str:
    """Return the (deterministic) commit message for one release."""
    return f"{package} {version} (sdist)"


def existing_dataset_ok(repo: Path, package: str, old: str, new: str) -> bool:
    """Return True if ``repo`` already holds the expected ``old``/``new`` commits.

    Raises :class:`BuildError` if it holds something else.
    """
    if not (repo / ".git").exists():
        if repo.exists() and any(repo.iterdir()):
            raise BuildError(f"{repo} exists and is not a git repository; use --force or --out")
        return False
    env = git_env()
    subjects: dict[str, str] = {}
    for tag in ("old", "new"):
        ref = f"{tag}^{{commit}}"
        rev = git(repo, "rev-parse", "--verify", "--quiet", ref, env=env, check=False)
        if not rev.strip():
            return False
        subjects[tag] = git(repo, "log", "-1", "--format=%s", tag, env=env).strip()
    expected = {"old": commit_message(package, old), "new": commit_message(package, new)}
    if subjects != expected:
        raise BuildError(
            f"{repo} holds {subjects['old']!r} -> {subjects['new']!r}, expected "
            f"{expected['old']!r} -> {expected['new']!r}; use --force or another --out"
        )
    return True


def build_dataset(repo: Path, package: str, old: str, new: str, *, npm: bool = False) -> None:
    """Download both releases and build the two-commit repository at ``repo``."""
    downloads = DATA_DIR / "downloads"
    work = repo.with_name(repo.name + ".building")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    try:
        repo_tmp = work / "repo"
        repo_tmp.mkdir()
        env = git_env()
        git(repo_tmp, "init", "--quiet", "--initial-branch=main", env=env)
        for key, value in (
            ("core.autocrlf", "false"),
            ("core.fileMode", "true"),
            ("commit.gpgSign", "false"),
            ("tag.gpgSign", "false"),
            # No background auto-gc racing the explicit gc / rename below.
            ("gc.auto", "0"),
            ("maintenance.auto", "false"),
        ):
            git(repo_tmp, "config", key, value, env=env)
        for tag, version, date in (("old", old, OLD_DATE), ("new", new, NEW_DATE)):
            sdist = download_sdist(package, version, downloads, npm=npm)
            tree = extract_archive(sdist, work / f"src-{tag}")
            sha = commit_tree(repo_tmp, tree, commit_message(package, version), date)
            git(repo_tmp, "tag", tag, sha, env=env)
            print(f"{tag}: {package} {version} -> {sha}", file=sys.stderr)
        git(repo_tmp, "gc", "--quiet", env=env)
        if repo.exists():
            shutil.rmtree(repo)
        repo.parent.mkdir(parents=True, exist_ok=True)
        repo_tmp.rename(repo)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def diff_stats(repo: Path, old: str = "old", new: str = "new") -> DiffStats:
    """Measure the diff ``old..new`` with the flags reviewtui uses."""
    base = ["-c", "core.quotePath=false", "diff", *TOOL_DIFF_FLAGS]
    shortstat = git(repo, *base, "--shortstat", old, new)
    numbers = {
        word: int(count)
        for count, word in re.findall(r"(\d+) (file|insertion|deletion)", shortstat)
    }
    status_counts: dict[str, int] = {}
    for line in git(repo, *base, "--name-status", old, new).splitlines():
        if line:
            letter = line[0]
            status_counts[letter] = status_counts.get(letter, 0) + 1
    hunks = 0
    with subprocess.Popen(
        ["git", "-C", str(repo), *base, old, new], stdout=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        for raw in proc.stdout:
            if raw.startswith(b"@@"):
                hunks += 1
    if proc.returncode != 0:
        raise BuildError(f"git diff failed in {repo} (exit {proc.returncode})")
    return DiffStats(
        files=numbers.get("file", 0),
        hunks=hunks,
        insertions=numbers.get("insertion", 0),
        deletions=numbers.get("deletion", 0),
        status_counts=status_counts,
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        description="Build a scratch git repo with a large real-world diff (tags old/new)."
    )
    parser.add_argument(
        "--package", default=DEFAULT_PACKAGE, help="PyPI project (default: %(default)s)"
    )
    parser.add_argument("--old", default=DEFAULT_OLD, help="old version (default: %(default)s)")
    parser.add_argument("--new", default=DEFAULT_NEW, help="new version (default: %(default)s)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="repository directory (default: benchmarks/.data/<package>-<old>-<new>)",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even if the repo exists")
    parser.add_argument("--npm", action="store_true",
                        help="the package and versions are on npm, not PyPI")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    repo: Path = (args.out or default_repo_path(args.package, args.old, args.new)).resolve()
    try:
        if args.force or not existing_dataset_ok(repo, args.package, args.old, args.new):
            build_dataset(repo, args.package, args.old, args.new, npm=args.npm)
        else:
            print(f"reusing existing repository {repo}", file=sys.stderr)
        stats = diff_stats(repo)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    env = git_env()
    print(f"repo: {repo}")
    print(f"old:  {args.package} {args.old} ({git(repo, 'rev-parse', 'old', env=env).strip()})")
    print(f"new:  {args.package} {args.new} ({git(repo, 'rev-parse', 'new', env=env).strip()})")
    print(f"diff: {stats.describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
