"""Units and rule suggestions for a whole change: reused from the cache, else computed.

A file is the unit of both caching and parallel work: its pipeline (parse both versions around
the changes, cut and tag units, score them with the rules) runs in one place and yields one
``FileRecord``. Files the cache does not know are computed in forked worker processes when
there is enough of them (tree-sitter and the rules hold the GIL, so threads would not help),
otherwise in this process. Either way the result is the one the serial ``build_units`` plus
``RuleEngine.evaluate_all`` gives, in path order.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from reviewtui.analysis.cache import UnitCache
from reviewtui.analysis.cached_only import NotCached
from reviewtui.analysis.fingerprint import file_key
from reviewtui.analysis.progress import ProgressCallback, ProgressTracker
from reviewtui.analysis.records import FileRecord, decode, dump, encode, load
from reviewtui.code.languages import PathLanguages
from reviewtui.config import UnitsSettings
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import ChangeSet, FileChange
from reviewtui.rules import RuleContext, RuleEngine, RuleSuggestion
from reviewtui.units import ReviewUnit
from reviewtui.units.build import file_units
from reviewtui.units.structures import DEFAULT_LANGUAGES, structure_language
from reviewtui.units.vocabulary import Vocabulary

# Below this many bytes of files to parse, forking and shipping records back costs about
# what a second core saves (2 cores, Django 5.0.6->5.1 slices: at 0.6 MiB the workers' CPU
# total is 0.27 s against 0.22 s here; at 8 MiB, 2.7 s spread over two against 2.4 s here).
PARALLEL_MIN_BYTES = 4 * 1024 * 1024
_BATCHES_PER_WORKER = 8


@dataclass(frozen=True)
class Analysis:
    units: list[ReviewUnit]
    suggestions: dict[str, RuleSuggestion]
    reused_files: int  # answered by the cache, or kept from the collection before
    computed_files: int
    workers: int = 0  # processes the computed files were spread over (0: this one)


@dataclass(frozen=True)
class _Work:
    files: Sequence[FileChange]
    reader: ContentReader
    settings: UnitsSettings
    vocabulary: Vocabulary
    engine: RuleEngine
    rules: RuleContext
    languages: PathLanguages


_SHARED: _Work | None = None  # set before forking: the workers inherit it


def rule_context(files: Sequence[FileChange], reader: ContentReader) -> RuleContext:
    """What rules may look up beyond a unit: the after-side text of its file (decoded once)."""
    by_path = {change.path: change for change in files}
    cache: dict[str, str | None] = {}

    def text(path: str) -> str | None:
        if path not in cache:
            change = by_path.get(path)
            raw = reader.new(change) if change is not None else None
            cache[path] = raw.decode("utf-8", "replace") if raw is not None else None
        return cache[path]

    return RuleContext(file_text=text)


def _compute(work: _Work, change: FileChange) -> FileRecord:
    units = file_units(change, work.reader, work.settings, work.vocabulary, work.languages)
    return encode(change, units, [work.engine.evaluate(unit, work.rules) for unit in units])


def _compute_batch(indices: list[int]) -> list[tuple[int, bytes]]:
    """In a worker: pickled records, which the parent stores as they are. The batch's file
    versions are read here, in one ``git cat-file`` of the worker's own: read by the parent
    before forking, they were time no worker could start in (0.15 s of Django 4.2 -> 5.2)."""
    work = _SHARED
    assert work is not None
    _prefetch(work, indices)
    return [(index, dump(_compute(work, work.files[index]))) for index in indices]


def _prefetch(work: _Work, indices: Sequence[int]) -> None:
    """Read the versions of the files at ``indices`` that will be parsed, in one git call."""
    work.reader.prefetch(work.files[index] for index in indices
                         if structure_language(work.files[index], work.languages))


def _cost(change: FileChange, reader: ContentReader, languages: PathLanguages) -> int:
    """About how long the file takes: the bytes of both versions where they are parsed (from
    git's sizes: the contents are read by whoever computes the file)."""
    if structure_language(change, languages) is None:
        return sum(len(hunk.lines) for hunk in change.hunks) * 40
    return (reader.size(change, "new") or 0) + (reader.size(change, "old") or 0)


def _workers(total: int, files: int, min_bytes: int) -> int:
    cpus = os.cpu_count() or 1
    if cpus < 2 or files < 2 or total < min_bytes or sys.platform != "linux":
        return 0
    if threading.active_count() > 1:
        return 0  # forking a threaded process can copy a lock another thread holds
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    return min(cpus, files)


_Decoded = dict[int, list[tuple[ReviewUnit, RuleSuggestion]]]


def _compute_all(work: _Work, indices: list[int], parallel_min_bytes: int,
                 decoded: _Decoded, progress: ProgressCallback | None
                 ) -> tuple[dict[int, FileRecord | bytes], int]:
    """Records of the files at ``indices`` (objects when computed here, pickles from workers),
    decoded into ``decoded`` as they arrive, and the number of worker processes used."""
    if len(indices) > 1:
        work.reader.prefetch_sizes(work.files[index] for index in indices
                                   if structure_language(work.files[index], work.languages))
    else:  # one file is computed here whatever its size: read it, its size comes with it
        _prefetch(work, indices)
    costs = {index: _cost(work.files[index], work.reader, work.languages) for index in indices}
    tracker = ProgressTracker(progress, len(work.files), costs,
                              [change.path for change in work.files])
    if decoded:  # the files the cache answered (or kept) are done from the start
        tracker.finished((), [pair for index in sorted(decoded) for pair in decoded[index]])
    # Largest first: the slowest files do not come last, and "largest left" shrinks in order.
    largest_first = sorted(indices, key=lambda index: (-costs[index], index))
    workers = _workers(sum(costs.values()), len(indices), parallel_min_bytes)
    results: dict[int, FileRecord | bytes] = {}
    if not workers:
        _prefetch(work, largest_first)
        for index in largest_first:
            record = results[index] = _compute(work, work.files[index])
            decoded[index] = decode(work.files[index], record)
            tracker.finished((index,), decoded[index])
        return results, 0
    global _SHARED
    _SHARED = work
    # The rules of the change's languages compiled once here, not once per worker.
    for language in {work.languages.of(work.files[index].path) for index in indices}:
        work.engine.handler(language)
    try:
        # Dealt round-robin from the largest down, so every batch costs about the same.
        count = min(len(indices), workers * _BATCHES_PER_WORKER)
        batches = [largest_first[start::count] for start in range(count)]
        with ProcessPoolExecutor(max_workers=workers,
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            try:
                for future in as_completed([pool.submit(_compute_batch, b) for b in batches]):
                    finished: list[tuple[ReviewUnit, RuleSuggestion]] = []
                    batch = future.result()
                    for index, data in batch:
                        results[index] = data
                        decoded[index] = decode(work.files[index], load(data))
                        finished += decoded[index]
                    tracker.finished([index for index, _ in batch], finished)
            except BaseException:
                # Stopped (the progress callback raised, an interrupt): the batches not yet
                # started are dropped, not computed for nobody before the pool lets go.
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        return results, workers
    finally:
        _SHARED = None


def analyse_change(change_set: ChangeSet, reader: ContentReader, settings: UnitsSettings,
                   vocabulary: Vocabulary, engine: RuleEngine, *,
                   cache: UnitCache | None = None,
                   parallel_min_bytes: int = PARALLEL_MIN_BYTES,
                   kept: Mapping[str, Sequence[tuple[ReviewUnit, RuleSuggestion]]] | None = None,
                   languages: PathLanguages = DEFAULT_LANGUAGES,
                   progress: ProgressCallback | None = None,
                   cached_only: bool = False) -> Analysis:
    """Every unit of the change, in path order, with its rule suggestion.

    ``kept`` holds results already in hand (a refresh: the files that did not change since),
    by the file's path; those files are neither looked up nor computed. ``languages``: how
    this repository maps paths to languages (``.h`` as C or C++). ``progress`` hears of
    every file finished (see ``analysis.progress``). ``cached_only``: raise ``NotCached``
    rather than compute a file the cache does not know (the workbench then waits for the
    process that computes them, see ``app.open_change``)."""
    files = sorted(change_set.files, key=lambda c: c.path)
    decoded: dict[int, list[tuple[ReviewUnit, RuleSuggestion]]] = {
        index: list(kept[change.path]) for index, change in enumerate(files)
        if kept and change.path in kept}
    keys = [file_key(cache.fingerprint, change, reader, languages.of(change.path))
            if index not in decoded else "" for index, change in enumerate(files)] if cache else []
    known = cache.get_many([key for key in keys if key]) if cache else {}
    reused: dict[int, FileRecord] = {}
    for index, key in enumerate(keys):
        record = known.get(key) if key else None
        if record is None:
            continue
        try:
            decoded[index] = decode(files[index], record)
        except ValueError:
            continue
        reused[index] = record
    missing = [index for index in range(len(files)) if index not in decoded]
    if cached_only and missing:
        if cache is not None:
            cache.close()
        raise NotCached(f"{len(missing)} of {len(files)} files not in the cache")
    work = _Work(files, reader, settings, vocabulary, engine, rule_context(files, reader),
                 languages)
    computed, workers = _compute_all(work, missing, parallel_min_bytes, decoded, progress)
    if cache is not None:
        cache.save({keys[index]: result if isinstance(result, bytes) else dump(result)
                    for index, result in computed.items()},
                   (keys[index] for index in reused))
        cache.close()
    units: list[ReviewUnit] = []
    suggestions: dict[str, RuleSuggestion] = {}
    for index in range(len(files)):
        for unit, suggestion in decoded[index]:
            units.append(unit)
            suggestions[unit.unit_id] = suggestion
    return Analysis(units, suggestions, reused_files=len(files) - len(computed),
                    computed_files=len(computed), workers=workers)
