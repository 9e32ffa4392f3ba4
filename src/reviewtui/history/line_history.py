"""The history of the lines a unit touches, read from the change's base and its ancestors only.

One ``git blame -w --porcelain`` per changed file, at the base (the commit the change starts
from: a commit's parent, the start of a range, ``HEAD`` for staged and working changes), over
the old-side lines of every unit's hunks (the changed lines and their context) tells for each
line the commit that last changed it; ``history.commit_facts`` says from each commit's whole
message (trailers included) whether it was a fix. From that, ``history.unit_features`` gives
each unit its features (``fixed_before``, ``definition_fixed``, ``recent_fix``,
``recent_lines``, ``many_authors``, ``unfamiliar``) and their evidence.

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
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from reviewtui.errors import GitCommandError
from reviewtui.git.model import ChangeSet, SideKind
from reviewtui.git.object_cache import ObjectCache
from reviewtui.git.runner import GitRepo
from reviewtui.history.blame_graph import BlameGraph
from reviewtui.history.blame_run import ignored_revisions, run_blame, tree_path
from reviewtui.history.commit_facts import CommitFacts, Progress
from reviewtui.history.fixes import FixMatcher
from reviewtui.history.unit_features import (
    FEATURES,
    OLDER,
    LineOrigin,
    definition_spans,
    history_evidence,
    touched_spans,
    unit_history,
)
from reviewtui.units.model import ReviewUnit

_log = logging.getLogger(__name__)
_TIMEOUT = 60.0
_KEEP = 16
_WHY = "evidence"  # the cache's key of the evidence (unit ids start with "u_")
_CACHE_VERSION = 3  # bump when what makes a feature changes (2: "Closes #N" is no fix,
# 3: nor is a revert)
MAX_FILES = 100  # files blamed per change, the most changed first; the rest get no history
# blame walks history back until every line has its commit: on a long history (SymPy, 60k
# commits) that is seconds per file. Lines older than this come back as OLDER -- a fix two
# years back weighs 6 % of one today, and the recent-change signals look back 30 days.
WINDOW = 2 * 365 * 24 * 3600


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
    spans = sorted({span for u in units for span in touched_spans(u) + definition_spans(u)})
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
