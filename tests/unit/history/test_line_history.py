"""The history of a unit's lines and of its definition: fixes read from whole commit messages
(trailers included), the definition's fixes beyond the touched lines, how recent the latest
fix was, and the commit facts kept per repository (read once, torn lines skipped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.git.runner import GitRepo, open_repository
from reviewtui.history.commit_facts import FILE_NAME, CommitFacts
from reviewtui.history.fixes import FixMatcher
from reviewtui.history.line_history import definition_spans
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder

_BODY = ("def {name}(items, limit):\n"
         "    total = 0\n"
         "    for item in items:\n"
         "        total += item.size\n"
         "    if total > limit:\n"
         "        return limit\n"
         "    return total\n")
_SPACER = "\n" * 12


def _history(repo: GitRepoBuilder) -> dict[str, dict[str, float]]:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False).with_reach(keep=False)
    return {u.functions[0]: loaded.learned_features[u.unit_id] for u in loaded.units}


def _two(repo: GitRepoBuilder, first: str, second: str) -> None:
    repo.write("sizes.py", first + _SPACER + second)


def _fixed_then_capped(repo: GitRepoBuilder,
                       fix: str = "fix measure: items without a size") -> None:
    """``measure`` and ``weigh`` written, ``measure`` fixed (commit message ``fix``), then both
    edited on the line after the fix: the history a unit of the last commit reads."""
    f, g = _BODY.format(name="measure"), _BODY.format(name="weigh")
    _two(repo, f, g)
    repo.commit("sizes", date="2024-01-01T00:00:00")
    f = f.replace("total += item.size", "total += item.size or 0")
    _two(repo, f, g)
    repo.commit(fix, date="2024-02-01T00:00:00")
    edit = ("    if total > limit:", "    if total >= limit:")
    _two(repo, f.replace(*edit), g.replace(*edit))
    repo.commit("cap at the limit", date="2024-03-01T00:00:00")


def test_a_fix_told_only_by_its_trailer_counts(repo: GitRepoBuilder) -> None:
    # blame's porcelain has only the subject, which says nothing of a fix
    _fixed_then_capped(repo, "Handle items without a size\n\nFixes #12")
    history = _history(repo)
    assert history["measure"]["fixed_before"] > 0
    assert history["measure"]["definition_fixed"] > 0
    assert history["weigh"]["fixed_before"] == history["weigh"]["definition_fixed"] == 0


def test_a_revert_is_no_fix_in_the_history_either(repo: GitRepoBuilder) -> None:
    # the same meaning of "a fix" as eval's mining: undoing a commit is not fixing a bug
    _fixed_then_capped(repo, "fix: revert counting items without a size")
    history = _history(repo)
    assert history["measure"]["fixed_before"] == history["measure"]["definition_fixed"] == 0


def test_the_projects_fix_vocabulary_in_the_settings_feeds_the_history_too(
        repo: GitRepoBuilder) -> None:
    """``[eval] fix_patterns`` made eval's mining see this project's "patch ..." commits as
    fixes while "was this definition fixed before?" still used the shipped words, even for the
    ranking eval measures. One setting now means one thing; a kept history is read again when
    it changes."""
    _fixed_then_capped(repo, "patch measure: items without a size")

    def history() -> dict[str, dict[str, float]]:
        loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                             use_cache=False).with_reach(keep=True)
        return {u.functions[0]: loaded.learned_features[u.unit_id] for u in loaded.units}

    assert history()["measure"]["fixed_before"] == 0  # "patch" is no shipped fix word
    (repo.root / ".reviewtui.toml").write_text('[eval]\nfix_patterns = ["\\\\bpatch\\\\b"]\n')
    told = history()
    assert told["measure"]["fixed_before"] > 0 and told["measure"]["definition_fixed"] > 0
    assert told["weigh"]["fixed_before"] == 0


def test_a_fix_elsewhere_in_the_definition_counts_for_the_definition_only(
        repo: GitRepoBuilder) -> None:
    long_f = _BODY.format(name="measure").replace(
        "    return total\n", "".join(f"    step_{i} = {i}\n" for i in range(10))
        + "    return total\n")
    g = _BODY.format(name="weigh")
    _two(repo, long_f, g)
    repo.commit("sizes", date="2024-01-01T00:00:00")
    fixed = long_f.replace("    step_9 = 9\n", "    step_9 = 90\n")  # far from the edit below
    _two(repo, fixed, g)
    repo.commit("fix wrong step", date="2024-02-01T00:00:00")
    edit = ("    total = 0\n", "    total = 1\n")
    _two(repo, fixed.replace(*edit), g.replace(*edit))
    repo.commit("start at one", date="2024-03-01T00:00:00")
    history = _history(repo)
    assert history["measure"]["fixed_before"] == 0  # the touched lines were never fixed
    assert history["measure"]["definition_fixed"] > 0
    assert history["measure"]["recent_fix"] > 0
    assert history["weigh"]["definition_fixed"] == history["weigh"]["recent_fix"] == 0


def test_a_recent_fix_weighs_more_than_an_old_one(repo: GitRepoBuilder) -> None:
    f, g = _BODY.format(name="measure"), _BODY.format(name="weigh")
    _two(repo, f, g)
    repo.commit("sizes", date="2020-01-01T00:00:00")
    g = g.replace("    return total\n", "    return int(total)\n")
    _two(repo, f, g)
    repo.commit("fix weigh returning floats", date="2023-03-01T00:00:00")
    f = f.replace("    return total\n", "    return int(total)\n")
    _two(repo, f, g)
    repo.commit("fix measure returning floats", date="2024-02-01T00:00:00")
    edit = ("    total = 0\n", "    total = 1\n")
    _two(repo, f.replace(*edit), g.replace(*edit))
    repo.commit("start at one", date="2024-03-01T00:00:00")
    history = _history(repo)
    assert history["measure"]["recent_fix"] > 0.8  # a month before
    assert 0.2 < history["weigh"]["recent_fix"] < 0.3  # a year before: two half-lives


def test_lines_older_than_the_window_are_only_older(repo: GitRepoBuilder) -> None:
    """Blame stops two years before the base (a long history costs seconds per file): a fix
    from before is not counted, nor its author."""
    f, g = _BODY.format(name="measure"), _BODY.format(name="weigh")
    _two(repo, f, g)
    repo.commit("sizes", date="2019-01-01T00:00:00")
    f = f.replace("total += item.size", "total += item.size or 0")
    _two(repo, f, g)
    repo.commit("fix measure: items without a size", date="2020-01-01T00:00:00")
    repo.write("README", "sizes\n")
    repo.commit("readme", date="2024-02-01T00:00:00")  # the base: four years after the fix
    edit = ("    if total > limit:", "    if total >= limit:")
    _two(repo, f.replace(*edit), g.replace(*edit))
    repo.commit("cap at the limit", date="2024-03-01T00:00:00")
    history = _history(repo)
    assert history["measure"] == history["weigh"]
    assert history["measure"]["definition_fixed"] == history["measure"]["many_authors"] == 0


def test_definition_spans_map_a_new_side_definition_back_to_the_base(
        repo: GitRepoBuilder) -> None:
    head = "import os\n"
    f = _BODY.format(name="measure")
    repo.write("m.py", head + f)
    repo.commit("m")
    repo.write("m.py", head + "import sys\nimport re\n" + f.replace("total = 0", "total = 1"))
    repo.commit("two imports and a start")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False)
    unit = next(u for u in loaded.units if u.functions == ("measure",))
    # the definition is lines 4-10 after, lines 2-8 at the base
    assert definition_spans(unit) == [(2, 8)]


def _commits(repo: GitRepoBuilder) -> list[str]:
    return repo.git("rev-list", "HEAD").split()


def test_commit_facts_are_read_once_and_kept(repo: GitRepoBuilder, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("a.py", "a = 1\n")
    repo.commit("first")
    repo.write("a.py", "a = 2\n")
    repo.commit("Adjust a\n\nFixes #3")
    shas = _commits(repo)
    cache = tmp_path / "history"
    facts = CommitFacts(open_repository(repo.root), cache).lookup(shas)
    assert {sha: f.fix for sha, f in facts.items()} == {shas[0]: True, shas[1]: False}
    calls: list[tuple[str, ...]] = []
    original = GitRepo.run

    def spy(self: GitRepo, *args: str, **kwargs: object) -> bytes:
        calls.append(args)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(GitRepo, "run", spy)
    again = CommitFacts(open_repository(repo.root), cache).lookup(shas)
    assert again == facts and calls == []  # a second process reads the kept file only
    # a torn last line (a killed writer) is skipped, and that commit read again
    path = cache / FILE_NAME
    text = path.read_text()
    path.write_text(text[:-10])
    repaired = CommitFacts(open_repository(repo.root), cache).lookup(shas)
    assert repaired == facts and len(calls) == 1
    assert len(CommitFacts(open_repository(repo.root), cache)) == 2
    # other fix patterns classify again from scratch
    other = CommitFacts(open_repository(repo.root), cache, FixMatcher.build([r"\bfirst\b"], []))
    assert {sha: f.fix for sha, f in other.lookup(shas).items()} == {
        shas[0]: True, shas[1]: True}  # the trailer still counts; "first" now does too


def _three_files_changed(repo: GitRepoBuilder) -> None:
    for name in ("a", "b", "c"):
        repo.write(f"{name}.py", _BODY.format(name=name))
    repo.commit("three files")
    for name in ("a", "b", "c"):
        repo.write(f"{name}.py", _BODY.format(name=name).replace("total = 0", "total = 1"))
    repo.commit("start at one")


def test_reading_the_history_reports_progress_and_a_terminal_shows_it(
        repo: GitRepoBuilder) -> None:
    import io

    from reviewtui.cli.progress import CountLine

    _three_files_changed(repo)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal, piped = Terminal(), io.StringIO()
    lines = [CountLine(stream, "index: history", "files", delay=0)
             for stream in (terminal, piped)]
    calls: list[tuple[int, int]] = []

    def told(done: int, total: int) -> None:
        calls.append((done, total))
        for line in lines:
            line(done, total)

    load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                use_cache=False).with_reach(keep=False, progress=told)
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]  # 0: while the commit graph is written
    assert terminal.getvalue().endswith("index: history [####################] 3/3 files")
    for line in lines:
        line.close()
    assert terminal.getvalue().endswith("\r\x1b[K") and piped.getvalue() == ""


def test_a_count_told_to_stop_does_not_wait_for_the_reach(repo: GitRepoBuilder,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The workbench quit while the order was counted: the progress callback raises, and the
    count ends then, the reach (the tree's files read, in its own thread) left to end alone --
    the quit waited for it (~1.3 s of a 2,606-unit change's tree) before the prompt came back."""
    import threading

    from reviewtui.context.search.reach import ReachCounter

    _three_files_changed(repo)
    release, finished = threading.Event(), threading.Event()

    def slow_counts(self: ReachCounter, names: object) -> dict[str, set[str]]:
        release.wait(30)
        finished.set()
        return {}

    monkeypatch.setattr(ReachCounter, "counts", slow_counts)

    class Quit(Exception):
        pass

    def quitting(done: int, total: int) -> None:
        if done >= 1:
            raise Quit

    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False)
    try:
        with pytest.raises(Quit):
            loaded.with_reach(keep=False, progress=quitting)
        assert not finished.is_set()  # raised while the reach still counted
    finally:
        release.set()
    assert finished.wait(30)


def test_a_configured_blame_ignore_list_missing_here_keeps_the_history(
        repo: GitRepoBuilder, isolated_git: Path) -> None:
    """``blame.ignoreRevsFile`` set for the projects that have such a file makes git blame
    stop where there is none: the history must not silently drop out of the priority."""
    _fixed_then_capped(repo)
    expected = _history(repo)
    assert expected["measure"]["fixed_before"] > 0
    with isolated_git.open("a") as config:
        config.write("[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n")
    assert _history(repo) == expected


def test_a_file_whose_blame_failed_is_blamed_again_next_time(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    """A blame that failed once (a timeout on a busy machine) leaves its units without a
    history for this look only: it is not kept in the per-base cache as if it were true."""
    import reviewtui.history.line_history as line_history
    from reviewtui.errors import GitCommandError

    _fixed_then_capped(repo)
    real = line_history.run_blame

    def timing_out(*args: object, **kwargs: object) -> bytes:
        raise GitCommandError("git blame timed out after 120 s")

    def kept_history() -> dict[str, float]:  # the per-base cache kept, as index keeps it
        loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                             use_cache=False).with_reach()
        unit = next(u for u in loaded.units if u.functions == ("measure",))
        return loaded.learned_features[unit.unit_id]

    monkeypatch.setattr(line_history, "run_blame", timing_out)
    assert kept_history()["fixed_before"] == 0
    monkeypatch.setattr(line_history, "run_blame", real)
    assert kept_history()["fixed_before"] > 0


def test_a_file_whose_name_is_not_utf8_has_its_history(repo: GitRepoBuilder) -> None:
    """The units name ``caf\\xe9.py`` with a replacement character; blame must be asked about
    the name's own bytes, or the file has no history at all."""
    name = "caf\udce9.py"  # the byte 0xE9, as the file system has it
    f = _BODY.format(name="measure")
    repo.write(name, f)
    repo.commit("sizes", date="2024-01-01T00:00:00")
    f = f.replace("total += item.size", "total += item.size or 0")
    repo.write(name, f)
    repo.commit("fix measure: items without a size", date="2024-02-01T00:00:00")
    repo.write(name, f.replace("    if total > limit:", "    if total >= limit:"))
    repo.commit("cap at the limit", date="2024-03-01T00:00:00")
    assert _history(repo)["measure"]["fixed_before"] > 0


def _fixed_reformatted_then_capped(repo: GitRepoBuilder, listed_before: bool) -> str:
    """``measure`` fixed on its ``if`` line, that line then rewritten by a mass reformat, the
    project's ``.git-blame-ignore-revs`` naming the reformat (with lines git would stop on:
    a short id, an unknown id, a blob, junk) before the edit of that line (``listed_before``)
    or only after it; returns the edit's commit, the change ranked."""
    f, g = _BODY.format(name="measure"), _BODY.format(name="weigh")
    _two(repo, f, g)
    repo.commit("sizes", date="2024-01-01T00:00:00")
    f = f.replace("    if total > limit:", "    if total >= limit:")
    _two(repo, f, g)
    repo.commit("fix measure: the limit itself is over", date="2024-02-01T00:00:00")
    reformat = ("    if total >= limit:", "    if (total >= limit):")
    f = f.replace(*reformat)
    _two(repo, f, g)
    reformatted = repo.commit("reformat the sizes", date="2024-02-10T00:00:00")
    blob = repo.git("rev-parse", "HEAD:sizes.py").strip()
    listing = (f"# the reformat\n{reformatted}  # black\n{reformatted[:12]}\n{'ab' * 20}\n"
               f"{blob}\nnot an id\n")

    def listed() -> None:
        repo.write(".git-blame-ignore-revs", listing)
        repo.commit("ignore the reformat in blame", date="2024-02-11T00:00:00")

    if listed_before:
        listed()
    _two(repo, f.replace("    if (total >= limit):", "    if (total >= limit + 1):"), g)
    edit = repo.commit("cap above the limit", date="2024-03-01T00:00:00")
    if not listed_before:
        listed()
    return edit


def _history_of(repo: GitRepoBuilder, rev: str, keep: bool = False
                ) -> dict[str, dict[str, float]]:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=rev),
                         use_cache=False).with_reach(keep=keep)
    return {u.functions[0]: loaded.learned_features[u.unit_id] for u in loaded.units}


def test_the_repositorys_blame_ignore_list_at_the_base_looks_through_a_reformat(
        repo: GitRepoBuilder, isolated_git: Path) -> None:
    """A mass reformat the project lists in its ``.git-blame-ignore-revs`` stood as the last
    change of every line it rewrote: the fix under it no longer counted. The list as the
    change's base has it applies (the lines git would stop on left out, the person's
    ``blame.ignoreRevsFile`` changing nothing)."""
    edit = _fixed_reformatted_then_capped(repo, listed_before=True)
    history = _history_of(repo, edit)
    assert history["measure"]["fixed_before"] > 0
    assert history["measure"]["definition_fixed"] > 0
    with isolated_git.open("a") as config:
        config.write("[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n")
    assert _history_of(repo, edit) == history


def test_a_blame_ignore_list_written_after_the_base_is_not_read(repo: GitRepoBuilder) -> None:
    """The ranking must not see the future: a list the project wrote after the change's base
    (as HEAD now has it) does not apply to that change."""
    edit = _fixed_reformatted_then_capped(repo, listed_before=False)
    assert _history_of(repo, edit)["measure"]["fixed_before"] == 0
    assert _history_of(repo, edit)["measure"]["definition_fixed"] == 0


def test_the_kept_history_is_keyed_by_the_blame_ignore_list(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    """A history kept for a base under another list (none, as before the list counted, or
    one naming commits this clone lacked) is read again, not reused."""
    import reviewtui.history.line_history as line_history

    edit = _fixed_reformatted_then_capped(repo, listed_before=True)
    real = line_history.ignored_revisions
    monkeypatch.setattr(line_history, "ignored_revisions", lambda *args: ())
    assert _history_of(repo, edit, keep=True)["measure"]["fixed_before"] == 0
    monkeypatch.setattr(line_history, "ignored_revisions", real)
    assert _history_of(repo, edit, keep=True)["measure"]["fixed_before"] > 0


def test_a_warm_look_reads_the_blame_ignore_list_once(
        repo: GitRepoBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The base's ``.git-blame-ignore-revs`` is read (two git calls) on the first look only:
    a second look at the same base of the same repository -- its features kept -- asks git
    nothing about the list, and finds the same features."""
    from subprocess import CompletedProcess

    from reviewtui.history.line_history import LineHistory

    edit = _fixed_reformatted_then_capped(repo, listed_before=True)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref=edit),
                         use_cache=False)
    git = open_repository(repo.root)
    calls: list[tuple[str, ...]] = []
    original = GitRepo.run_status

    def spy(self: GitRepo, *args: str, **kwargs: object) -> CompletedProcess[bytes]:
        calls.append(args)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(GitRepo, "run_status", spy)
    cache = tmp_path / "history"
    first = LineHistory(git, loaded.change_set, cache)
    cold = first.features(loaded.units)
    assert any(args[0] == "cat-file" for args in calls)  # the list was read
    by_name = {u.functions[0]: cold[u.unit_id] for u in loaded.units}
    assert by_name["measure"]["fixed_before"] > 0  # through the listed reformat
    for reader in (first, LineHistory(git, loaded.change_set, cache)):
        calls.clear()
        assert reader.features(loaded.units) == cold
        assert [args for args in calls if args[0] == "cat-file"] == []
