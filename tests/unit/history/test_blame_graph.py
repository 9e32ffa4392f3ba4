"""The line history's commit graph: kept in reviewtui's cache (the repository's object store
untouched), the same blame with it as without, grown only for new bases, and never needed:
where it cannot be written, blame runs without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.runner import GitRepo, open_repository
from reviewtui.history.blame_graph import MAX_NEW_FILTERS, BlameGraph
from reviewtui.history.fixes import FixMatcher
from reviewtui.history.line_history import blame_lines
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder


def _history(repo: GitRepoBuilder, commits: int) -> list[str]:
    """``commits`` commits, each changing one line of ``app.py`` (some of them fixes)."""
    shas = []
    lines = [f"value_{n} = {n}\n" for n in range(40)]
    for n in range(commits):
        lines[n % 40] = f"value_{n % 40} = {n * 7}\n"
        repo.write("app.py", "".join(lines))
        repo.write(f"other_{n % 3}.py", f"x = {n}\n")
        repo.commit(f"fix wrong value {n}" if n % 4 == 0 else f"tune value {n}")
        shas.append(repo.git("rev-parse", "HEAD").strip())
    return shas


def _layers(cache: Path) -> list[str]:
    chain = cache / "graph" / "objects" / "info" / "commit-graphs" / "commit-graph-chain"
    return chain.read_text().split()


def test_the_graph_is_kept_in_the_cache_and_blame_says_the_same(repo: GitRepoBuilder,
                                                                 tmp_path: Path) -> None:
    shas = _history(repo, 24)
    git = open_repository(repo.root)
    cache = tmp_path / "history"
    env = BlameGraph(git, cache).env(shas[-1])
    assert env is not None and len(_layers(cache)) == 1
    objects = repo.root / ".git" / "objects"
    assert not (objects / "info" / "commit-graph").exists()
    assert not (objects / "info" / "commit-graphs").exists()  # the repository's store untouched
    matcher = FixMatcher.build()
    with_graph = blame_lines(git, shas[-1], "app.py", ["-L1,40"], matcher, env=env)
    without = blame_lines(git, shas[-1], "app.py", ["-L1,40"], matcher)
    assert with_graph == without and len(with_graph) == 40
    assert {o.fix for o in with_graph.values()} == {True, False}


def test_the_graph_grows_only_with_commits_it_does_not_hold(repo: GitRepoBuilder,
                                                            tmp_path: Path) -> None:
    shas = _history(repo, 12)
    git = open_repository(repo.root)
    cache = tmp_path / "history"
    assert BlameGraph(git, cache).env(shas[-1]) is not None
    assert len(_layers(cache)) == 1
    assert BlameGraph(git, cache).env(shas[5]) is not None  # an ancestor: nothing to add
    assert len(_layers(cache)) == 1
    later = _history(repo, 3)
    graph = BlameGraph(git, cache)
    assert graph.env(later[-1]) is not None
    layers = _layers(cache)
    assert 1 <= len(layers) <= 2  # the new commits as a layer (git may merge small layers)
    assert layers != [] and graph.env(later[-1]) is not None


def test_without_a_writable_cache_blame_runs_without_the_graph(repo: GitRepoBuilder,
                                                               tmp_path: Path) -> None:
    shas = _history(repo, 6)
    git = open_repository(repo.root)
    assert BlameGraph(git, None).env(shas[-1]) is None
    blocked = tmp_path / "file-in-the-way"
    blocked.write_text("not a folder")
    assert BlameGraph(git, blocked / "history").env(shas[-1]) is None


def test_where_the_graph_cannot_be_written_the_history_is_read_all_the_same(
        repo: GitRepoBuilder) -> None:
    _history(repo, 8)
    history = repo.root / ".git" / "reviewtui" / "history"
    history.mkdir(parents=True)
    (history / "graph").write_text("in the way")  # mkdir of graph/objects fails
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False).with_reach(keep=True)
    assert any(f["recent_lines"] > 0 for f in loaded.learned_features.values())
    assert (history / "graph").read_text() == "in the way"


def test_the_index_uses_the_graph_for_its_history(repo: GitRepoBuilder) -> None:
    """Through the pipeline the workbench and ``index`` use: the graph is written beside the
    history cache, and the history features are the same as with no cache at all."""
    _history(repo, 16)
    selector = ChangeSelector(SelectorMode.COMMIT, ref="HEAD")
    kept = load_change(repo.root, selector, use_cache=False).with_reach(keep=True)
    assert len(_layers(repo.root / ".git" / "reviewtui" / "history")) == 1
    plain = load_change(repo.root, selector, use_cache=False).with_reach(keep=False)
    assert kept.learned_features == plain.learned_features
    assert any(f["fixed_before"] > 0 for f in kept.learned_features.values())


def test_the_graph_is_written_from_the_base_alone(repo: GitRepoBuilder, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Git walks from the commits it is given: only the base, never HEAD or a branch (which
    may hold commits later than the change under evaluation)."""
    shas = _history(repo, 6)
    git = open_repository(repo.root)
    calls: list[tuple[tuple[str, ...], bytes | None]] = []
    run_status = GitRepo.run_status

    def record(self: GitRepo, *args: str, **kwargs: Any) -> Any:
        calls.append((args, kwargs.get("stdin")))
        return run_status(self, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run_status", record)
    assert BlameGraph(git, tmp_path / "history").env(shas[2]) is not None
    assert calls == [(("commit-graph", "write", "--stdin-commits", "--changed-paths",
                       "--split", "--no-progress", f"--max-new-filters={MAX_NEW_FILTERS}"),
                      f"{shas[2]}\n".encode())]


def test_an_evaluation_keeps_no_results_but_shares_the_graph(repo: GitRepoBuilder) -> None:
    """``keep=False`` (``reviewtui eval``: a case per bug commit) writes no per-base history,
    but blames through the one graph every base shares."""
    _history(repo, 10)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False).with_reach(keep=False)
    history = repo.root / ".git" / "reviewtui" / "history"
    assert len(_layers(history)) == 1
    assert not list(history.glob("*.json")) and not (history / "commits.tsv").exists()
    assert any(f["fixed_before"] > 0 for f in loaded.learned_features.values())
