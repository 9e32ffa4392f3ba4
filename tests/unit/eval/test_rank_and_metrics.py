"""Ranking a case: the unit holding the bug, its rank in each order, and the metrics exactly
as defined; and a case's ranking never reads a commit newer than the case."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from reviewtui.eval.cases import MiningSettings, mine_cases
from reviewtui.eval.metrics import eval_metrics
from reviewtui.eval.mining import FixLimits
from reviewtui.eval.rank import first_holder, random_expectation, rank_case
from reviewtui.git import ChangeSelector, SelectorMode, open_repository
from reviewtui.git.runner import GitRepo
from reviewtui.history.fixes import DEFAULT_EXCLUDE_PATTERNS, DEFAULT_FIX_PATTERNS
from reviewtui.pipeline import load_change
from reviewtui.units.order import sort_units
from tests.conftest import GitRepoBuilder
from tests.support.histories import planted_bug

SETTINGS = MiningSettings(DEFAULT_FIX_PATTERNS, DEFAULT_EXCLUDE_PATTERNS, FixLimits())


def test_random_expectation_is_exact() -> None:
    expected = random_expectation([10, 10, 10, 10], {2})
    assert expected.recall == {1: 0.25, 3: 0.75, 5: 1.0}
    assert expected.reciprocal_rank == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    assert expected.effort == pytest.approx(30 / 2 / 40)  # each other unit first half the time
    two = random_expectation([1, 1, 1], {0, 1})  # the first pick misses with p = 1/3
    assert two.recall[1] == pytest.approx(2 / 3)
    assert two.reciprocal_rank == pytest.approx(2 / 3 + 1 / 3 / 2)


def test_first_holder_rank_and_effort() -> None:
    ranking = first_holder([3, 0, 2, 1], [5, 10, 20, 65], {2})
    assert ranking.rank == 3 and ranking.effort == pytest.approx((65 + 5) / 100)


def test_the_case_is_ranked_as_index_commit_sort_priority_orders_it(
        repo: GitRepoBuilder) -> None:
    planted = planted_bug(repo)
    case = mine_cases(open_repository(repo.root), SETTINGS)[0]
    result = rank_case(repo.root, case)
    assert result.status == "ok" and result.units >= 10
    assert [h.location.split(":")[0] for h in result.holders] == ["shop/pricing.py"]
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=planted.bug))
    index = loaded.with_reach().review_index()
    by_priority = [u.unit_id for u in sort_units(index, "priority").units]
    holder = result.holders[0].unit_id
    assert result.rankings["reviewtui"].rank == by_priority.index(holder) + 1
    assert result.rankings["file"].rank == [u.unit_id for u in index.units].index(holder) + 1
    sizes = {u.unit_id: u.added_lines + u.removed_lines for u in loaded.units}
    largest = sorted(sizes, key=lambda uid: -sizes[uid])
    assert result.rankings["largest"].rank == largest.index(holder) + 1
    before = by_priority[:by_priority.index(holder)]
    assert result.rankings["reviewtui"].effort == pytest.approx(
        sum(sizes[u] for u in before) / sum(sizes.values()))

    metrics = eval_metrics([result])
    rank = result.rankings["reviewtui"].rank
    assert metrics.all.cases == metrics.large.cases == 1
    assert metrics.large.orders["reviewtui"].mrr == pytest.approx(1 / rank)
    assert metrics.all.orders["reviewtui"].recall == {1: float(rank <= 1),
                                                      3: float(rank <= 3),
                                                      5: float(rank <= 5)}
    assert metrics.all.orders["random"].mrr == pytest.approx(
        random_expectation([sizes[u.unit_id] for u in loaded.units], {0}).reciprocal_rank)


_SHA = re.compile(r"\b[0-9a-f]{40}\b")


def _is_ancestor(root: Path, commit: str, of: str) -> bool:
    return subprocess.run(["git", "merge-base", "--is-ancestor", commit, of], cwd=root,
                          check=False).returncode == 0


def test_a_case_never_reads_a_commit_newer_than_the_case(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every git call made while ranking names only the bug commit, its ancestors or their
    objects, and never HEAD, a branch, the index or the working tree (which hold the future)."""
    planted = planted_bug(repo)
    case = mine_cases(open_repository(repo.root), SETTINGS)[0]
    calls: list[tuple[str, ...]] = []
    run_status, stream = GitRepo.run_status, GitRepo.stream

    def record_run(self: GitRepo, *args: str, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(args)
        return run_status(self, *args, **kwargs)  # type: ignore[arg-type]

    def record_stream(self: GitRepo, *args: str, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(args)
        return stream(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(GitRepo, "run_status", record_run)
    monkeypatch.setattr(GitRepo, "stream", record_stream)
    result = rank_case(repo.root, case)
    assert result.status == "ok" and calls
    assert any(args[0] == "blame" for args in calls)  # the history signals were read too
    commits = {planted.root, planted.bug, planted.unrelated, planted.fix, planted.typo,
               planted.later}
    for args in calls:
        assert args[0] not in ("ls-files", "status", "stash"), args  # index / working tree
        assert "HEAD" not in args and "main" not in args, args
        for sha in _SHA.findall(" ".join(args)):
            if sha in commits:  # a commit (not a blob or tree of one)
                assert _is_ancestor(repo.root, sha, planted.bug), (sha, args)


def test_a_case_ranks_the_same_in_a_clone_that_ends_at_the_bug_commit(
        repo: GitRepoBuilder, make_repo: type[GitRepoBuilder]) -> None:
    planted = planted_bug(repo)
    case = mine_cases(open_repository(repo.root), SETTINGS)[0]
    past = make_repo("past")
    past.git("fetch", "-q", str(repo.root), f"{planted.bug}:refs/heads/past")
    past.git("checkout", "-q", "past")
    assert past.git("rev-list", "--count", "--all").strip() == "2"  # no future here
    full = rank_case(repo.root, case)
    truncated = rank_case(past.root, case)
    assert full.model_dump(exclude={"seconds"}) == truncated.model_dump(exclude={"seconds"})
