"""The history of the lines a unit touches, read from the change's base and its ancestors only.

One ``git blame -w --porcelain`` per changed file, at the base (the commit the change starts
from: a commit's parent, the start of a range, ``HEAD`` for staged and working changes), over
the old-side lines of every unit's hunks (the changed lines and their context) tells for each
line the commit that last changed it, its author, time and subject. From that, per unit:

* ``fixed_before`` -- distinct earlier *fix* commits among those lines (``history.fixes``): code
  that needed fixing before tends to need it again;
* ``recent_lines`` -- the share of the lines changed in the 30 days before the base: code still
  settling;
* ``many_authors`` -- how many people wrote those lines;
* ``unfamiliar`` -- the change's author wrote none of them.

Blame walks only the base's ancestry, so nothing here can see a later commit: an evaluation of
an old commit scores it as a reviewer could have then. Results are kept per base commit in
``.git/reviewtui/history/`` (a second look costs one file read). At most ``MAX_FILES`` files
of a change are blamed, the most changed first, in parallel: a release-sized change must not
cost a minute of blame.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from reviewtui.errors import GitCommandError
from reviewtui.git.model import ChangeSet, SideKind
from reviewtui.git.object_cache import ObjectCache
from reviewtui.git.runner import GitRepo
from reviewtui.history.fixes import FixMatcher
from reviewtui.units.model import ReviewUnit

_log = logging.getLogger(__name__)
_TIMEOUT = 60.0
_RECENT = 30 * 24 * 3600
_KEEP = 16
MAX_FILES = 100  # files blamed per change, the most changed first; the rest get no history
FEATURES: tuple[str, ...] = ("fixed_before", "recent_lines", "many_authors", "unfamiliar")


@dataclass(frozen=True, slots=True)
class LineOrigin:
    commit: str
    author: str
    time: int
    fix: bool


def base_commit(repo: GitRepo, change_set: ChangeSet) -> str | None:
    """The commit the change starts from (None: no commit yet, or a patch)."""
    side = change_set.old_side
    if side.kind is SideKind.COMMIT and side.rev:
        return side.rev
    if change_set.new_side.kind in (SideKind.WORKTREE, SideKind.INDEX):
        return repo.try_resolve("HEAD")
    return None


def change_author(repo: GitRepo, change_set: ChangeSet) -> str:
    side = change_set.new_side
    if side.kind is SideKind.COMMIT and side.rev:
        out = repo.try_run("log", "-1", "--format=%ae", "--end-of-options", side.rev)
    else:
        out = repo.try_run("config", "user.email")
    return (out or b"").decode("utf-8", "replace").strip().lower()


def _ranges(units: Sequence[ReviewUnit]) -> list[str]:
    spans = sorted({(h.old_start, h.old_start + h.old_count - 1) for u in units
                    for h in u.hunks if h.old_count})
    return [f"-L{a},{b}" for a, b in spans]


def blame_lines(repo: GitRepo, base: str, path: str, ranges: list[str],
                matcher: FixMatcher) -> dict[int, LineOrigin]:
    """Old-side line number -> where it came from (``git blame -w --porcelain`` at ``base``)."""
    out = repo.run("blame", "-w", "--porcelain", *ranges, base, "--", path, timeout=_TIMEOUT)
    commits: dict[str, dict[bytes, bytes]] = {}
    lines: dict[int, LineOrigin] = {}
    current: str | None = None
    final = 0
    for raw in out.split(b"\n"):
        if raw.startswith(b"\t"):
            if current is not None:
                info = commits[current]
                lines[final] = LineOrigin(
                    current, info.get(b"author-mail", b"").decode("utf-8", "replace")
                    .strip("<>").lower(), int(info.get(b"committer-time", b"0") or 0),
                    matcher.is_fix(info.get(b"summary", b"").decode("utf-8", "replace")))
            current = None
            continue
        head, _, rest = raw.partition(b" ")
        if len(head) == 40 and rest[:1].isdigit():
            current = head.decode("ascii")
            final = int(rest.split()[1])
            commits.setdefault(current, {})
        elif current is not None and head:
            commits[current][head] = rest
    return lines


def unit_history(unit: ReviewUnit, lines: Mapping[int, LineOrigin], author: str,
                 base_time: int) -> dict[str, float]:
    """The four history features of ``unit`` from its file's blamed lines."""
    touched = [lines[n] for h in unit.hunks if h.old_count
               for n in range(h.old_start, h.old_start + h.old_count) if n in lines]
    if not touched:
        return dict.fromkeys(FEATURES, 0.0)
    fixes = len({o.commit for o in touched if o.fix})
    authors = {o.author for o in touched}
    recent = sum(1 for o in touched if base_time - o.time <= _RECENT) / len(touched)
    return {
        "fixed_before": 1.0 - 1.0 / (1.0 + fixes),
        "recent_lines": round(recent, 3),
        "many_authors": 1.0 - 1.0 / len(authors),
        "unfamiliar": 0.0 if not author or author in authors else 1.0,
    }


class LineHistory:
    """The history features of a change's units, cached per base commit."""

    def __init__(self, repo: GitRepo, change_set: ChangeSet, cache_dir: Path | None) -> None:
        self._repo = repo
        self._change = change_set
        self._cache = ObjectCache(cache_dir, _KEEP)

    def features(self, units: Sequence[ReviewUnit]) -> dict[str, dict[str, float]]:
        base = base_commit(self._repo, self._change)
        zero = {u.unit_id: dict.fromkeys(FEATURES, 0.0) for u in units}
        if base is None or self._repo.is_shallow():
            return zero  # a shallow clone's blame ends at its cut: it would say nothing true
        cached = self._cache.read(base)
        missing = [u for u in units if u.unit_id not in cached]
        if missing:
            cached.update(self._compute(base, missing))
            self._cache.write(base, cached)
        return {u.unit_id: cached.get(u.unit_id, zero[u.unit_id]) for u in units}

    def _compute(self, base: str, units: Sequence[ReviewUnit]) -> dict[str, dict[str, float]]:
        matcher = FixMatcher.build()
        author = change_author(self._repo, self._change)
        stamp = self._repo.try_run("log", "-1", "--format=%ct", "--end-of-options", base)
        base_time = int((stamp or b"0").strip() or 0)
        by_file: dict[str, list[ReviewUnit]] = {}
        for unit in units:
            if unit.change_type != "add":
                by_file.setdefault(unit.old_path or unit.file_path, []).append(unit)
        out = {u.unit_id: dict.fromkeys(FEATURES, 0.0) for u in units}
        busiest = sorted(by_file, key=lambda p: (-sum(u.added_lines + u.removed_lines
                                                      for u in by_file[p]), p))[:MAX_FILES]

        def blamed(path: str) -> dict[int, LineOrigin]:
            try:
                return blame_lines(self._repo, base, path, _ranges(by_file[path]), matcher)
            except GitCommandError as exc:
                _log.info("no line history for %s: %s", path, exc)
                return {}

        # git does the work, in its own processes: threads keep every core busy
        with ThreadPoolExecutor(max_workers=min(len(busiest), os.cpu_count() or 1) or 1) as pool:
            for path, lines in zip(busiest, pool.map(blamed, busiest), strict=True):
                for unit in by_file[path]:
                    out[unit.unit_id] = unit_history(unit, lines, author, base_time)
        return out
