"""Parse the changed files' versions once per run, in parallel for large changes.

Every file version a unit needs (the "after" side when lines were added, the "before" side when
lines were removed) is analysed exactly once, around its changed lines only (see
``reviewtui.code.windows``). Past a size threshold the work is spread over worker processes:
tree-sitter parsing holds the GIL, so threads would not help.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor

from reviewtui.code import LANGUAGES, FileStructure, analyze_source
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import FileChange, Hunk
from reviewtui.languages import language_for_path

PARALLEL_MIN_BYTES = 4 * 1024 * 1024
_MAX_WORKERS = 4

Job = tuple[str, bytes, list[tuple[int, int]]]
Key = tuple[str, str]  # (path, "old" | "new")


def changed_runs(hunks: Iterable[Hunk], kind: str) -> list[tuple[int, int]]:
    """Runs of consecutive changed lines of one side, as 1-based inclusive ranges."""
    runs: list[tuple[int, int]] = []
    for hunk in hunks:
        for line in hunk.lines:
            number = line.new_no if kind == "+" else line.old_no
            if line.kind != kind or number is None:
                continue
            if runs and runs[-1][1] == number - 1:
                runs[-1] = (runs[-1][0], number)
            else:
                runs.append((number, number))
    return runs


def structure_language(change: FileChange) -> str | None:
    """The tree-sitter language of a changed file, or None if it has no parseable text."""
    if change.kind.value != "file" or change.is_binary:
        return None
    language = language_for_path(change.path)
    return language if language in LANGUAGES else None


def _analyze(job: Job) -> FileStructure | None:
    language, data, ranges = job
    return analyze_source(language, data, ranges)


def _workers(total_bytes: int, min_bytes: int) -> int:
    cpus = os.cpu_count() or 1
    if cpus < 2 or total_bytes < min_bytes or sys.platform != "linux":
        return 0
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    return min(cpus, _MAX_WORKERS)


def analyze_changes(changes: Iterable[FileChange], reader: ContentReader, *,
                    parallel_min_bytes: int = PARALLEL_MIN_BYTES) -> dict[Key, FileStructure]:
    """Structures of every file version the units of ``changes`` will ask about."""
    keys: list[Key] = []
    jobs: list[Job] = []
    for change in changes:
        language = structure_language(change)
        if language is None:
            continue
        for side, kind in (("new", "+"), ("old", "-")):
            ranges = changed_runs(change.hunks, kind)
            if not ranges:
                continue
            data = reader.new(change) if side == "new" else reader.old(change)
            if data is None:
                continue
            keys.append((change.path, side))
            jobs.append((language, data, ranges))
    workers = _workers(sum(len(job[1]) for job in jobs), parallel_min_bytes)
    if workers:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            results = list(pool.map(_analyze, jobs, chunksize=max(1, len(jobs) // (workers * 8))))
    else:
        results = [_analyze(job) for job in jobs]
    return {key: result for key, result in zip(keys, results, strict=True) if result is not None}
