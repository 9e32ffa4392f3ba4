"""``analyse_change`` gives the serial units + rules answer: in workers, and from the cache."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from reviewtui.analysis import Analysis, UnitCache, analyse_change
from reviewtui.analysis.progress import AnalysisProgress
from reviewtui.analysis.records import FileRecord, decode, dump, encode, load
from reviewtui.analysis.run import NotCached
from reviewtui.config import Settings
from reviewtui.git import ChangeSelector, ChangeSet, ContentReader, SelectorMode, collect_change
from reviewtui.git.runner import open_repository
from reviewtui.rules import RuleEngine, load_rule_pack
from reviewtui.units import build_units
from reviewtui.units.vocabulary import default_vocabulary
from tests.conftest import GitRepoBuilder


def _change(repo: GitRepoBuilder) -> tuple[ChangeSet, ContentReader]:
    for i in range(5):
        repo.write(f"m{i}.py", "".join(f"def f{j}():\n    return {j}\n\n" for j in range(40)))
    repo.write("util.go", "package u\n\nfunc A() int {\n\treturn 1\n}\n")
    repo.commit("base")
    for i in range(5):
        repo.write(f"m{i}.py", "".join(f"def f{j}():\n    return {j + (j % 9 == i)}\n\n"
                                       for j in range(40)))
    repo.write("util.go", "package u\n\nfunc A() int {\n\treturn 2\n}\n")
    # A long new file: its one hunk is split into pieces that are not the diff's own hunks.
    repo.write("big.py", "".join(f"def g{j}(token):\n    return token * {j}\n\n"
                                 for j in range(150)))
    git_repo = open_repository(repo.root)
    change_set = collect_change(git_repo, ChangeSelector(SelectorMode.ALL))
    return change_set, ContentReader(git_repo, change_set, 1 << 20)


def test_workers_and_cache_give_the_serial_answer(repo: GitRepoBuilder, tmp_path: Path) -> None:
    change_set, reader = _change(repo)
    settings = Settings()
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    vocab = default_vocabulary()
    units = build_units(change_set, reader, settings.units, vocab)
    expected = (units, {unit.unit_id: engine.evaluate(unit) for unit in units})
    big = next(change for change in change_set.files if change.path == "big.py")
    pieces = [h for u in units if u.file_path == "big.py" for h in u.hunks]
    assert len(pieces) > 1 and not any(piece in big.hunks for piece in pieces)

    serial = analyse_change(change_set, reader, settings.units, vocab, engine,
                            parallel_min_bytes=1 << 40)
    # No process is forked while another thread runs (``_workers``): a thread an earlier test
    # left in this worker process, alive during the call and gone after it, made this flaky.
    alone = threading.active_count() == 1
    parallel = analyse_change(change_set, reader, settings.units, vocab, engine,
                              parallel_min_bytes=0)
    for result in (serial, parallel):
        assert (result.units, result.suggestions) == expected
        assert result.computed_files == 7 and result.reused_files == 0
    assert serial.workers == 0
    if (os.cpu_count() or 1) > 1 and alone and threading.active_count() == 1:
        assert parallel.workers > 1

    cache_file = tmp_path / "cache.sqlite3"
    for computed, reused in ((7, 0), (0, 7)):
        cache = UnitCache.open(cache_file, "fingerprint")
        assert cache is not None
        result = analyse_change(change_set, reader, settings.units, vocab, engine, cache=cache)
        assert (result.units, result.suggestions) == expected
        assert (result.computed_files, result.reused_files) == (computed, reused)
    other = UnitCache.open(cache_file, "another fingerprint")
    assert other is not None
    result = analyse_change(change_set, reader, settings.units, vocab, engine, cache=other)
    assert (result.computed_files, result.reused_files) == (7, 0)


def test_cached_only_computes_nothing(repo: GitRepoBuilder, tmp_path: Path) -> None:
    """The workbench asks the cache alone first: every file known -> the answer computed with
    it; one file unknown -> ``NotCached``, nothing computed, nothing reported."""
    change_set, reader = _change(repo)
    settings = Settings()
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    vocab = default_vocabulary()
    cache_file = tmp_path / "cache.sqlite3"
    heard: list[AnalysisProgress] = []

    def run(change: ChangeSet, contents: ContentReader, *, cached_only: bool = False) -> Analysis:
        cache = UnitCache.open(cache_file, "fingerprint")
        assert cache is not None
        return analyse_change(change, contents, settings.units, vocab, engine, cache=cache,
                              progress=heard.append, cached_only=cached_only)

    with pytest.raises(NotCached, match="7 of 7 files"):
        run(change_set, reader, cached_only=True)
    assert heard == []
    computed = run(change_set, reader)
    heard.clear()
    cached = run(change_set, reader, cached_only=True)
    assert (cached.units, cached.suggestions) == (computed.units, computed.suggestions)
    assert (cached.computed_files, cached.reused_files) == (0, 7)
    assert [(p.done, p.total, len(p.finished)) for p in heard] == [(7, 7, len(cached.units))]
    heard.clear()
    repo.write("m0.py", "def f0():\n    return 'edited'\n")  # one file the cache has not seen
    git_repo = open_repository(repo.root)
    edited = collect_change(git_repo, ChangeSelector(SelectorMode.ALL))
    with pytest.raises(NotCached, match="1 of 7 files"):
        run(edited, ContentReader(git_repo, edited, 1 << 20), cached_only=True)
    assert heard == []


def test_records_refuse_a_change_they_do_not_fit(repo: GitRepoBuilder) -> None:
    change_set, reader = _change(repo)
    settings = Settings()
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    by_path = {change.path: change for change in change_set.files}
    units = [u for u in build_units(change_set, reader, settings.units, default_vocabulary())
             if u.file_path == "m1.py"]
    record = encode(by_path["m1.py"], units, [engine.evaluate(u) for u in units])
    assert [u for u, _ in decode(by_path["m1.py"], record)] == units
    try:
        decode(by_path["util.go"], record)  # one hunk, where m1.py's record names more
    except ValueError as exc:
        assert "do not fit" in str(exc)
    else:
        raise AssertionError("a record for another file was accepted")


def test_the_cache_keeps_at_most_max_rows(repo: GitRepoBuilder, tmp_path: Path) -> None:
    change_set, reader = _change(repo)
    settings = Settings()
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    cache = UnitCache.open(tmp_path / "c.sqlite3", "f", max_rows=3)
    assert cache is not None
    analyse_change(change_set, reader, settings.units, default_vocabulary(), engine,
                   cache=cache)
    again = UnitCache.open(tmp_path / "c.sqlite3", "f", max_rows=3)
    assert again is not None
    result = analyse_change(change_set, reader, settings.units, default_vocabulary(), engine,
                            cache=again)
    assert result.reused_files == 3 and result.computed_files == 4


def test_reused_records_are_marked_used_once_a_day(repo: GitRepoBuilder, tmp_path: Path) -> None:
    import sqlite3

    change_set, reader = _change(repo)
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    path = tmp_path / "c.sqlite3"

    def run() -> None:
        cache = UnitCache.open(path, "f")
        assert cache is not None
        analyse_change(change_set, reader, Settings().units, default_vocabulary(), engine,
                       cache=cache)

    def used() -> list[float]:
        with sqlite3.connect(path) as db:
            return [row[0] for row in db.execute("SELECT used FROM files ORDER BY key")]

    run()
    first = used()
    run()
    assert used() == first  # fresh records are not rewritten on every run
    with sqlite3.connect(path) as db:
        db.execute("UPDATE files SET used = 1.0")
    run()
    assert all(value > 1.0 for value in used())  # records unused for long are marked again


def test_records_of_other_runs_go_after_a_week(repo: GitRepoBuilder, tmp_path: Path) -> None:
    import sqlite3

    change_set, reader = _change(repo)
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    path = tmp_path / "c.sqlite3"

    def run(fingerprint: str) -> None:
        cache = UnitCache.open(path, fingerprint)
        assert cache is not None
        analyse_change(change_set, reader, Settings().units, default_vocabulary(), engine,
                       cache=cache)

    def runs() -> dict[str, int]:
        with sqlite3.connect(path) as db:
            return dict(db.execute("SELECT run, count(*) FROM files GROUP BY run").fetchall())

    run("old version")
    run("new version")
    assert runs() == {"old version": 7, "new version": 7}  # a week's grace: switching back
    with sqlite3.connect(path) as db:
        db.execute("UPDATE files SET used = 1.0 WHERE run = 'old version'")
    run("newest version")
    assert runs() == {"new version": 7, "newest version": 7}


def test_a_cache_of_another_layout_is_rebuilt(repo: GitRepoBuilder, tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "c.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE files (key TEXT PRIMARY KEY, record BLOB, used REAL)")
        db.execute("INSERT INTO files VALUES ('k', x'00', 1.0)")
    change_set, reader = _change(repo)
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    for computed, reused in ((7, 0), (0, 7)):
        cache = UnitCache.open(path, "f")
        assert cache is not None
        result = analyse_change(change_set, reader, Settings().units, default_vocabulary(),
                                engine, cache=cache)
        assert (result.computed_files, result.reused_files) == (computed, reused)


def test_split_pieces_are_stored_as_slices_of_their_hunk(repo: GitRepoBuilder) -> None:
    change_set, reader = _change(repo)
    settings = Settings()
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    big = next(change for change in change_set.files if change.path == "big.py")
    units = [u for u in build_units(change_set, reader, settings.units, default_vocabulary())
             if u.file_path == "big.py"]
    record = encode(big, units, [engine.evaluate(u) for u in units])
    stored = [item for row in record.units for item in row[6]]  # ReviewUnit.hunks
    assert len(stored) > 1 and all(isinstance(item, tuple) for item in stored)
    assert b"DiffLine" not in dump(record)
    decoded = [u for u, _ in decode(big, load(dump(record)))]
    assert decoded == units
    assert all(a is b for u, d in zip(units, decoded, strict=True)
               for h, g in zip(u.hunks, d.hunks, strict=True)
               for a, b in zip(h.lines, g.lines, strict=True))
    # a slice past the end of the hunk's lines does not fit this change
    row = list(record.units[0])
    row[6] = ((0, 0, len(big.hunks[0].lines) + 1, 1, 0, 1, 1, "", False, False),)
    bad = FileRecord((tuple(row),), record.suggestions[:1])
    try:
        decode(big, bad)
    except ValueError as exc:
        assert "do not fit" in str(exc)
    else:
        raise AssertionError("a slice past the hunk's end was accepted")


def test_caches_opened_at_once_on_a_new_file_keep_every_record(repo: GitRepoBuilder,
                                                               tmp_path: Path) -> None:
    """Two workbenches opened at once on a repository without a cache: the second to prepare
    the file used to drop the table the first had made and filled (it had read "no layout"
    before the first committed), or to take a busy file for a corrupt one and delete it."""
    import sqlite3

    change_set, reader = _change(repo)
    engine = RuleEngine(load_rule_pack(repo.root).pack)
    seed = UnitCache.open(tmp_path / "seed.sqlite3", "f")
    analyse_change(change_set, reader, Settings().units, default_vocabulary(), engine,
                   cache=seed)
    with sqlite3.connect(tmp_path / "seed.sqlite3") as db:
        (blob,) = db.execute("SELECT record FROM files").fetchone()
    writers = 6
    for attempt in range(6):
        path = tmp_path / f"c{attempt}.sqlite3"
        barrier = threading.Barrier(writers)
        saved: list[str] = []

        def write(n: int, path: Path = path, barrier: threading.Barrier = barrier,
                  saved: list[str] = saved) -> None:
            barrier.wait()
            cache = UnitCache.open(path, "f")
            if cache is not None:  # a file too busy to prepare: this run goes without it
                cache.save({f"k{n}": blob}, ())
                cache.close()
                saved.append(f"k{n}")

        threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(saved) >= 2, attempt  # they did run at once
        cache = UnitCache.open(path, "f")
        assert cache is not None
        keys = [f"k{n}" for n in range(writers)]
        assert sorted(cache.get_many(keys)) == sorted(saved), attempt  # none of them lost
        cache.close()
