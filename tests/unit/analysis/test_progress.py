"""``analyse_change`` reports every file finished, in workers as here, and from the cache."""

from __future__ import annotations

from pathlib import Path

from reviewtui.analysis import Analysis, UnitCache, analyse_change
from reviewtui.analysis.progress import AnalysisProgress
from reviewtui.config import Settings
from reviewtui.git import ChangeSelector, ContentReader, SelectorMode, collect_change
from reviewtui.git.runner import open_repository
from reviewtui.rules import RuleEngine, load_rule_pack
from reviewtui.units.vocabulary import default_vocabulary
from tests.conftest import GitRepoBuilder


def _repo(repo: GitRepoBuilder) -> None:
    for i in range(6):
        repo.write(f"pkg/m{i}.py", "".join(f"def f{j}():\n    return {j}\n\n"
                                           for j in range(10 + 30 * i)))
    repo.commit("base")
    for i in range(6):
        repo.write(f"pkg/m{i}.py", "".join(f"def f{j}():\n    return {j + (j % 7 == 0)}\n\n"
                                           for j in range(10 + 30 * i)))
    repo.write("notes.txt", "a new file\n")


def _run(repo: GitRepoBuilder, parallel_min_bytes: int, cache: UnitCache | None = None
         ) -> tuple[list[AnalysisProgress], Analysis]:
    git_repo = open_repository(repo.root)
    change_set = collect_change(git_repo, ChangeSelector(SelectorMode.ALL))
    reader = ContentReader(git_repo, change_set, 1 << 20)
    heard: list[AnalysisProgress] = []
    result = analyse_change(change_set, reader, Settings().units, default_vocabulary(),
                            RuleEngine(load_rule_pack(repo.root).pack), cache=cache,
                            parallel_min_bytes=parallel_min_bytes, progress=heard.append)
    return heard, result


def test_progress_counts_every_file_and_streams_every_unit(repo: GitRepoBuilder) -> None:
    _repo(repo)
    for parallel_min_bytes in (1 << 40, 0):  # here, then in worker processes
        heard, result = _run(repo, parallel_min_bytes)
        assert heard, "no progress was reported"
        dones = [p.done for p in heard]
        assert dones == sorted(dones) and heard[-1].done == heard[-1].total == 7
        assert heard[-1].complete and not heard[0].complete
        assert heard[-1].largest_left == ()
        assert all(p.total == 7 for p in heard)
        streamed = [unit for p in heard for unit in p.finished]
        assert sorted(u.unit_id for u in streamed) == sorted(
            u.unit_id for u in result.units)
    serial, _ = _run(repo, 1 << 40)
    # here, one report per file, largest first: the largest left is the next one computed
    assert len(serial) == 7
    assert serial[0].largest_left[0] == "pkg/m4.py"
    assert serial[0].finished[0].location.startswith("pkg/m5.py:")
    assert all(len(p.largest_left) <= 3 for p in serial)


def test_files_the_cache_answers_are_done_at_once(repo: GitRepoBuilder, tmp_path: Path) -> None:
    _repo(repo)
    for computed in (True, False):
        cache = UnitCache.open(tmp_path / "c.sqlite3", "f")
        assert cache is not None
        heard, result = _run(repo, 1 << 40, cache)
        if computed:
            assert [p.done for p in heard] == list(range(1, 8))
        else:  # one report: everything done, every unit in it
            assert [p.done for p in heard] == [7]
            assert result.reused_files == 7
            assert [u.unit_id for u in heard[0].finished] == [u.unit_id for u in result.units]
