"""The history of the lines a unit touches, read from the change's base and its ancestors only.

One ``git blame -w --porcelain`` per changed file, at the base (the commit the change starts
from: a commit's parent, the start of a range, ``HEAD`` for staged and working changes), over
the old-side lines of every unit's hunks (the changed lines and their context) tells for each
line the commit that last changed it; ``history.commit_facts`` says from each commit's whole
message (trailers included) whether it was a fix. From that, per unit:

* ``fixed_before`` -- distinct earlier *fix* commits among those lines (``history.fixes``): code
  that needed fixing before tends to need it again;
* ``definition_fixed`` -- the same over every line of the definition the unit sits in (its
  header to its end, at the base): a function fixed three times is suspect wherever it is edited;
* ``recent_fix`` -- how recently the latest of those fixes was (1 the day before, half a year
  later 0.5): a fresh fix is often an incomplete one;
* ``recent_lines`` -- the share of the lines changed in the 30 days before the base: code still
  settling;
* ``many_authors`` -- how many people wrote those lines;
* ``unfamiliar`` -- the change's author wrote none of them.

Blame looks through the commits the project's ``.git-blame-ignore-revs`` lists *as the base
has it* (``history.blame_run``): a mass reformat is nobody's last touch of a line, so the fix
under it still counts. Blame walks only the base's ancestry and that list is read at the base
too, so nothing here can see a later commit: an evaluation of an old commit scores it as a
reviewer could have then (a project that lists its reformat only later gets no benefit
before). Results are kept per base commit in
``.git/reviewtui/history/`` (a second look costs one file read), under a key that names the
list's commits as well. At most ``MAX_FILES`` files
of a change are blamed, the most changed first, in parallel: a release-sized change must not
cost a minute of blame.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from reviewtui.errors import GitCommandError
from reviewtui.git.model import ChangeSet, SideKind
from reviewtui.git.object_cache import ObjectCache
from reviewtui.git.runner import GitRepo
from reviewtui.history.blame_graph import BlameGraph
from reviewtui.history.blame_run import ignored_revisions, run_blame, tree_path
from reviewtui.history.commit_facts import CommitFacts, Progress
from reviewtui.history.fixes import FixMatcher
from reviewtui.units.model import ReviewUnit

_log = logging.getLogger(__name__)
_TIMEOUT = 60.0
_RECENT = 30 * 24 * 3600
_KEEP = 16
_WHY = "evidence"  # the cache's key of the evidence (unit ids start with "u_")
_CACHE_VERSION = 3  # bump when what makes a feature changes (2: "Closes #N" is no fix,
# 3: nor is a revert)
MAX_FILES = 100  # files blamed per change, the most changed first; the rest get no history
_HALF_LIFE = 182 * 24 * 3600
# blame walks history back until every line has its commit: on a long history (SymPy, 60k
# commits) that is seconds per file. Lines older than this come back as OLDER -- a fix two
# years back weighs 6 % of one today, and the recent-change signals look back 30 days.
WINDOW = 2 * 365 * 24 * 3600
_MAX_DEFINITION = 400  # longer definitions (a whole class) say nothing about the unit's lines
FEATURES: tuple[str, ...] = ("fixed_before", "recent_lines", "many_authors", "unfamiliar",
                             "definition_fixed", "recent_fix")


@dataclass(frozen=True, slots=True)
class LineOrigin:
    commit: str
    author: str
    time: int
    fix: bool
    summary: str = ""


OLDER = LineOrigin("", "", 0, False)  # a line from before the blame window


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


def _to_old(line: int, unit: ReviewUnit) -> int:
    """A new-side line number of ``unit``'s file on the old side (an added line: the old
    line after it)."""
    shift = 0
    for hunk in sorted(unit.hunks, key=lambda h: h.new_start):
        if line < hunk.new_start:
            break
        if line < hunk.new_start + hunk.new_count:
            previous = hunk.old_start - 1
            for row in hunk.lines:
                if row.kind == "+":
                    if row.new_no == line:
                        return max(1, previous + 1)
                elif row.old_no is not None:
                    if row.kind == " " and row.new_no == line:
                        return row.old_no
                    previous = row.old_no
            return max(1, previous)
        shift += hunk.new_count - hunk.old_count
    return max(1, line - shift)


def definition_spans(unit: ReviewUnit) -> list[tuple[int, int]]:
    """The old-side lines of the definitions enclosing the unit's changed lines. A scope is
    found on the new side when the unit added code (mapped back through the hunks), on the
    old side when it only removed code."""
    added = any(ln.kind == "+" and ln.text.strip() for h in unit.hunks for ln in h.lines)
    spans = []
    for scope in unit.scopes:
        if scope.role == "outer" or not 0 < scope.start_line <= scope.end_line or (
                scope.end_line - scope.start_line > _MAX_DEFINITION):
            continue
        if added:
            start, end = _to_old(scope.start_line, unit), _to_old(scope.end_line, unit)
        else:
            start, end = scope.start_line, scope.end_line
        if start <= end:
            spans.append((start, end))
    return spans


def _touched(unit: ReviewUnit) -> list[tuple[int, int]]:
    return [(h.old_start, h.old_start + h.old_count - 1) for h in unit.hunks if h.old_count]


def _ranges(units: Sequence[ReviewUnit]) -> list[str]:
    spans = sorted({span for u in units for span in _touched(u) + definition_spans(u)})
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [f"-L{a},{b}" for a, b in merged]


def blame_lines(repo: GitRepo, base: str, path: str, ranges: list[str],
                matcher: FixMatcher, since: int | None = None,
                env: Mapping[str, str] | None = None,
                ignore: Sequence[str] = ()) -> dict[int, LineOrigin]:
    """Old-side line number -> where it came from (``git blame -w --porcelain`` at ``base``);
    ``since``: a time before which blame stops walking -- older lines come back as
    ``OLDER`` (no commit, author or fix: only that they are older); ``env``: the cached
    commit graph's (``history.blame_graph``); ``ignore``: the commits blame looks through
    (``blame_run.ignored_revisions`` at ``base``)."""
    window = [f"--since={since}"] if since else []
    out = run_blame(repo, "-w", "--porcelain", *window, *ranges, base, "--",
                    tree_path(repo, base, path), timeout=_TIMEOUT, env=env, ignore=ignore)
    commits: dict[str, dict[bytes, bytes]] = {}
    lines: dict[int, LineOrigin] = {}
    current: str | None = None
    final = 0
    for raw in out.split(b"\n"):
        if raw.startswith(b"\t"):
            if current is not None:
                info = commits[current]
                if b"boundary" in info and since:
                    lines[final] = OLDER
                    current = None
                    continue
                summary = info.get(b"summary", b"").decode("utf-8", "replace")
                lines[final] = LineOrigin(
                    current, info.get(b"author-mail", b"").decode("utf-8", "replace")
                    .strip("<>").lower(), int(info.get(b"committer-time", b"0") or 0),
                    matcher.is_fix(summary), summary)
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


def _origins(unit: ReviewUnit, lines: Mapping[int, LineOrigin]
             ) -> tuple[list[LineOrigin], list[LineOrigin]]:
    """Where the unit's touched lines came from, and those plus its definitions' lines."""
    touched = [lines[n] for a, b in _touched(unit) for n in range(a, b + 1) if n in lines]
    around = touched + [lines[n] for a, b in definition_spans(unit)
                        for n in range(a, b + 1) if n in lines]
    return touched, around


def unit_history(unit: ReviewUnit, lines: Mapping[int, LineOrigin], author: str,
                 base_time: int) -> dict[str, float]:
    """The history features of ``unit`` from its file's blamed lines."""
    touched, around = _origins(unit, lines)
    if not around:
        return dict.fromkeys(FEATURES, 0.0)
    fixes = {o.commit: o.time for o in around if o.fix}
    latest = max(fixes.values(), default=None)
    features = {
        "fixed_before": 0.0, "recent_lines": 0.0, "many_authors": 0.0, "unfamiliar": 0.0,
        "definition_fixed": round(1.0 - 1.0 / (1.0 + len(fixes)), 3),
        "recent_fix": 0.0 if latest is None else round(
            0.5 ** (max(0, base_time - latest) / _HALF_LIFE), 3),
    }
    if touched:
        known = [o for o in touched if o.commit]
        authors = {o.author for o in known}
        features.update({
            "fixed_before": 1.0 - 1.0 / (1.0 + len({o.commit for o in touched if o.fix})),
            "recent_lines": round(sum(1 for o in touched if base_time - o.time <= _RECENT)
                                  / len(touched), 3),
            "many_authors": 1.0 - 1.0 / len(authors) if authors else 0.0,
            "unfamiliar": 0.0 if not author or not authors or author in authors else 1.0,
        })
    return features


def history_evidence(unit: ReviewUnit, lines: Mapping[int, LineOrigin],
                     base_time: int) -> dict[str, str]:
    """What gave ``unit`` its history features, for ``rules explain`` and the detail pane:
    the fix commits (newest first), the recently changed lines, the lines' authors."""
    touched, around = _origins(unit, lines)

    def fixes(origins: Sequence[LineOrigin]) -> str:
        seen = {o.commit: o for o in origins if o.fix}
        newest = sorted(seen.values(), key=lambda o: -o.time)
        text = ", ".join(f"{o.commit[:8]} {time.strftime('%Y-%m-%d', time.gmtime(o.time))} "
                         f"\"{o.summary[:50]}\"" for o in newest[:2])
        return text + (f" and {len(newest) - 2} more" if len(newest) > 2 else "")

    out = {"fixed_before": fixes(touched), "definition_fixed": fixes(around)}
    out["recent_fix"] = out["definition_fixed"].split(", ")[0]
    recent = [o for o in touched if o.commit and base_time - o.time <= _RECENT]
    if recent:
        out["recent_lines"] = (f"{len(recent)} of {len(touched)} lines changed in the 30 days "
                               "before")
    authors = sorted({o.author for o in touched if o.commit})
    if authors:
        out["many_authors"] = out["unfamiliar"] = "written by " + ", ".join(authors[:3]) + (
            f" and {len(authors) - 3} more" if len(authors) > 3 else "")
    return {name: text for name, text in out.items() if text}


class LineHistory:
    """The history features of a change's units, cached per base commit; ``evidence`` says,
    once ``features`` ran, what gave each unit its features."""

    def __init__(self, repo: GitRepo, change_set: ChangeSet, cache_dir: Path | None,
                 progress: Progress | None = None, graph_dir: Path | None = None,
                 matcher: FixMatcher | None = None) -> None:
        """``progress``: told (files blamed, files to blame) as the blame goes; ``graph_dir``:
        where the commit graph blame reads is kept (``history.blame_graph``; default
        ``cache_dir``: an evaluation keeps no per-base results but shares the graph);
        ``matcher``: what a fix is (``[eval] fix_patterns``; default: the shipped set)."""
        self._repo = repo
        self._matcher = matcher or FixMatcher.build()
        self._change = change_set
        self._cache_dir = cache_dir
        self._graph_dir = graph_dir if graph_dir is not None else cache_dir
        self._cache = ObjectCache(cache_dir, _KEEP)
        self._progress = progress
        self.evidence: dict[str, dict[str, str]] = {}

    def features(self, units: Sequence[ReviewUnit]) -> dict[str, dict[str, float]]:
        base = base_commit(self._repo, self._change)
        zero = {u.unit_id: dict.fromkeys(FEATURES, 0.0) for u in units}
        if base is None or self._repo.is_shallow():
            return zero  # a shallow clone's blame ends at its cut: it would say nothing true
        # the base's own list (never HEAD's: that would be the future of an old base); which
        # of its ids count depends on the clone too (an id it lacks is left out), so the key
        # names them
        ignore = ignored_revisions(self._repo, base)
        key = f"{base}-{_CACHE_VERSION}-{self._matcher.stamp}"
        if ignore:
            key += "-" + hashlib.sha256(" ".join(ignore).encode()).hexdigest()[:12]
        cached = self._cache.read(key)
        why = cached.setdefault(_WHY, {})
        missing = [u for u in units if u.unit_id not in cached or u.unit_id not in why
                   or len(cached[u.unit_id]) != len(FEATURES)]
        if missing:
            features, evidence, failed = self._compute(base, missing, ignore)
            # a unit whose file git failed to blame (a timeout) has no history this time
            # only: kept, its zeros would stand for this base from now on
            cached.update({uid: v for uid, v in features.items() if uid not in failed})
            why.update({uid: v for uid, v in evidence.items() if uid not in failed})
            self._cache.write(key, cached)
        self.evidence = {u.unit_id: why[u.unit_id] for u in units if why.get(u.unit_id)}
        return {u.unit_id: cached.get(u.unit_id, zero[u.unit_id]) for u in units}

    def _compute(self, base: str, units: Sequence[ReviewUnit], ignore: Sequence[str] = ()
                 ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, str]], set[str]]:
        """The features and evidence of ``units``, and the units whose file git failed to
        blame (``ignore``: the commits blame looks through)."""
        matcher = self._matcher
        author = change_author(self._repo, self._change)
        stamp = self._repo.try_run("log", "-1", "--format=%ct", "--end-of-options", base)
        base_time = int((stamp or b"0").strip() or 0)
        by_file: dict[str, list[ReviewUnit]] = {}
        for unit in units:
            if unit.change_type != "add":
                by_file.setdefault(unit.old_path or unit.file_path, []).append(unit)
        out = {u.unit_id: dict.fromkeys(FEATURES, 0.0) for u in units}
        evidence: dict[str, dict[str, str]] = {u.unit_id: {} for u in units}
        busiest = sorted(by_file, key=lambda p: (-sum(u.added_lines + u.removed_lines
                                                      for u in by_file[p]), p))[:MAX_FILES]
        if self._progress is not None and busiest:
            self._progress(0, len(busiest))
        env = BlameGraph(self._repo, self._graph_dir).env(base) if busiest else None

        def blamed(path: str) -> dict[int, LineOrigin] | None:
            try:
                return blame_lines(self._repo, base, path, _ranges(by_file[path]), matcher,
                                   base_time - WINDOW if base_time > WINDOW else None, env,
                                   ignore)
            except GitCommandError as exc:
                _log.info("no line history for %s: %s", path, exc)
                return None

        # git does the work, in its own processes: threads keep every core busy
        files: dict[str, dict[int, LineOrigin]] = {}
        failed: set[str] = set()
        with ThreadPoolExecutor(max_workers=min(len(busiest), os.cpu_count() or 1) or 1) as pool:
            for path, lines in zip(busiest, pool.map(blamed, busiest), strict=True):
                files[path] = lines if lines is not None else {}
                if lines is None:
                    failed.update(u.unit_id for u in by_file[path])
                if self._progress is not None:
                    self._progress(len(files), len(busiest))
        # whether each blamed commit fixed a bug, from its whole message (blame gives the
        # subject only): read once per commit, kept beside the per-base cache
        facts = CommitFacts(self._repo, self._cache_dir, matcher).lookup(
            {o.commit for lines in files.values() for o in lines.values() if o.commit})
        for path, lines in files.items():
            told = {n: replace(o, fix=facts[o.commit].fix) if o.commit in facts else o
                    for n, o in lines.items()}
            for unit in by_file[path]:
                out[unit.unit_id] = unit_history(unit, told, author, base_time)
                evidence[unit.unit_id] = history_evidence(unit, told, base_time)
        return out, evidence, failed
