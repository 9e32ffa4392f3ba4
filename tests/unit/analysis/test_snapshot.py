"""A committed range's kept analysis: read instead of computed, the same to the last field, and
missed whenever anything that changes the result changed (or the file is damaged)."""

from __future__ import annotations

import dataclasses
import marshal
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import reviewtui.analysis as analysis_package
import reviewtui.git.collect as collect
import reviewtui.pipeline.snapshot as change_snapshot
import reviewtui.rules.learned_priority as learned_priority
from reviewtui.analysis import fingerprint
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import LoadedChange, load_change
from reviewtui.pipeline.loading import snapshot_kept
from reviewtui.rules.weights_files import shipped_weights_path
from tests.conftest import GitRepoBuilder

RANGE = ChangeSelector(SelectorMode.RANGE, "base..head")


def _range(repo: GitRepoBuilder) -> None:
    """Python, Go and a long new file (its hunk split into pieces), over two commits, with
    history for the learned priority (a fix commit touching the changed lines)."""
    for i in range(4):
        repo.write(f"m{i}.py", "".join(f"def f{j}(token):\n    return {j}\n\n"
                                       for j in range(30)))
    repo.write("util.go", "package u\n\nfunc A() int {\n\treturn 1\n}\n")
    repo.commit("start")
    repo.write("m0.py", "".join(f"def f{j}(token):\n    return {j} + 0\n\n" for j in range(30)))
    repo.commit("fix: off by one in f0")
    repo.git("tag", "base")
    for i in range(4):
        repo.write(f"m{i}.py", "".join(f"def f{j}(token):\n    return {j + (j % 7 == i)}\n\n"
                                       for j in range(30)))
    repo.write("m1.py", "import os\n\n" + (repo.root / "m1.py").read_text())
    repo.write("util.go", "package u\n\nfunc A() int {\n\treturn 2\n}\n")
    repo.write("big.py", "".join(f"def g{j}(token):\n    return token * {j}\n\n"
                                 for j in range(150)))
    repo.write("uses.py", "from m0 import f1\n\nprint(f1(2))\n")
    repo.commit("head")
    repo.git("tag", "head")


class Calls:
    """How often the change was collected, analysed and put in priority order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts = {"collect": 0, "analyse": 0, "order": 0}
        for module, name, counted in ((collect, "collect_change", "collect"),
                                      (analysis_package, "analyse_change", "analyse"),
                                      (learned_priority, "priority_order", "order")):
            monkeypatch.setattr(module, name, self._counting(getattr(module, name), counted))

    def _counting(self, function: Callable[..., Any], name: str) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.counts[name] += 1
            return function(*args, **kwargs)
        return counted

    def take(self) -> dict[str, int]:
        counts = dict(self.counts)
        self.counts = dict.fromkeys(self.counts, 0)
        return counts


COMPUTED = {"collect": 1, "analyse": 1, "order": 1}
KEPT = {"collect": 0, "analyse": 0, "order": 0}


def _open(repo: GitRepoBuilder, **kwargs: Any) -> LoadedChange:
    return load_change(repo.root, RANGE, **kwargs).with_reach()


def _same(left: LoadedChange, right: LoadedChange) -> None:
    assert left.change_set == right.change_set
    assert left.units == right.units
    # == takes 0 for False and 1 for True: compared with their types ("+50/-False" showed)
    assert _typed(left.units) == _typed(right.units)
    assert _typed(list(left.suggestions.values())) == _typed(list(right.suggestions.values()))
    assert list(left.suggestions.items()) == list(right.suggestions.items())  # the order too
    assert left.learned_features == right.learned_features
    assert left.learned_evidence == right.learned_evidence
    for unit in left.units:
        assert left.priority_reasons(unit.unit_id) == right.priority_reasons(unit.unit_id)
        assert unit.line_kinds == right.units_by_id[unit.unit_id].line_kinds
    assert left.review_index().model_dump(exclude={"review_metadata"}) == (
        right.review_index().model_dump(exclude={"review_metadata"}))


def _typed(value: Any) -> Any:
    """``value`` with the type of every field and item beside it (sets in a fixed order)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value).__name__, tuple(
            (f.name, _typed(getattr(value, f.name))) for f in dataclasses.fields(value))
    if isinstance(value, BaseModel):
        return type(value).__name__, tuple(
            (name, _typed(getattr(value, name))) for name in type(value).model_fields)
    if isinstance(value, (set, frozenset)):
        return "set", tuple(sorted(repr(_typed(item)) for item in value))
    if isinstance(value, Mapping):
        return "map", tuple(sorted((repr(k), repr(_typed(v))) for k, v in value.items()))
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return "seq", tuple(_typed(item) for item in value)
    return type(value).__name__, value


def _snapshots(repo: GitRepoBuilder) -> list[Path]:
    return sorted((repo.root / ".git" / "reviewtui" / "snapshots").glob("*.snap"))


def test_a_second_open_reads_the_snapshot_and_gives_the_same_change(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    _range(repo)
    calls = Calls(monkeypatch)
    computed = _open(repo, use_cache=False)
    assert calls.take() == COMPUTED and not _snapshots(repo)
    first = _open(repo)
    assert calls.take() == COMPUTED and len(_snapshots(repo)) == 1
    again = _open(repo)
    assert calls.take() == KEPT
    assert any(again.learned_evidence.values())  # the fix commit's history is in it
    assert any(s.reach for s in again.suggestions.values())
    assert any(len(u.hunks) > 1 or u.file_path == "big.py" for u in again.units)
    _same(computed, again)
    _same(first, again)
    # A unit's pieces of a split hunk are slices of the file's hunk lines, as collected.
    big = next(c for c in again.change_set.files if c.path == "big.py")
    piece = next(u for u in again.units if u.file_path == "big.py").hunks[0]
    assert piece.lines[0] is big.hunks[0].lines[0] or piece is big.hunks[0]

    plain = load_change(repo.root, RANGE)  # the rules' scores alone: no order counted
    assert calls.take() == KEPT
    _same(load_change(repo.root, RANGE, use_cache=False), plain)


def test_the_order_is_kept_once_counted(repo: GitRepoBuilder,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _range(repo)
    calls = Calls(monkeypatch)
    load_change(repo.root, RANGE)  # index without --sort priority: the change alone kept
    assert calls.take() == {"collect": 1, "analyse": 1, "order": 0}
    _open(repo)
    assert calls.take() == {"collect": 0, "analyse": 0, "order": 1}
    _open(repo)
    assert calls.take() == KEPT
    load_change(repo.root, RANGE).with_reach(keep=False)
    assert calls.take() == KEPT


def _edit_rules(repo: GitRepoBuilder) -> None:
    repo.write(".reviewtui/rules.toml", "[languages.python.base]\nlarge_change_lines = 10\n")


def _edit_settings(repo: GitRepoBuilder) -> None:
    repo.write(".reviewtui.toml", "[context]\nunit_budget = 5000\n")


def _refit_weights(repo: GitRepoBuilder) -> None:
    repo.write(".reviewtui/triage_weights.toml", shipped_weights_path().read_text())


def _attributes(repo: GitRepoBuilder) -> None:
    repo.write(".gitattributes", "*.go -diff\n")


def _nested_attributes(repo: GitRepoBuilder) -> None:
    repo.write("sub/.gitattributes", "*.py -diff\n")
    repo.git("add", "sub/.gitattributes")


def _user_attributes(repo: GitRepoBuilder) -> None:
    home = Path(os.environ["XDG_CONFIG_HOME"]) / "git"
    home.mkdir(parents=True, exist_ok=True)
    (home / "attributes").write_text("*.go -diff\n")


def _diff_config(repo: GitRepoBuilder) -> None:
    repo.git("config", "diff.algorithm", "patience")


def _new_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fingerprint, "code_stamp", lambda: "another reviewtui")


def _format_bump(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(change_snapshot, "FORMAT", change_snapshot.FORMAT + 1)


@pytest.mark.parametrize("edit", [_edit_rules, _edit_settings, _refit_weights, _attributes,
                                  _nested_attributes, _user_attributes, _diff_config])
def test_what_changes_the_result_misses_the_snapshot(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch,
        edit: Callable[[GitRepoBuilder], None]) -> None:
    _range(repo)
    _open(repo)
    calls = Calls(monkeypatch)
    edit(repo)
    changed = _open(repo)
    assert calls.take() == COMPUTED
    _same(load_change(repo.root, RANGE, use_cache=False).with_reach(), changed)
    calls.take()
    _open(repo)  # written again under the new key
    assert calls.take() == KEPT


@pytest.mark.parametrize("change", [_new_version, _format_bump])
def test_other_code_misses_the_snapshot(repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch,
                                        change: Callable[[pytest.MonkeyPatch], None]) -> None:
    _range(repo)
    _open(repo)
    calls = Calls(monkeypatch)
    change(monkeypatch)
    _open(repo)
    assert calls.take() == COMPUTED


def test_another_range_or_commit_has_its_own(repo: GitRepoBuilder,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _range(repo)
    _open(repo)
    calls = Calls(monkeypatch)
    commit = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, "head")).with_reach()
    assert calls.take() == COMPUTED
    assert commit.change_set.mode == "commit"
    repo.git("tag", "-f", "head", "base")  # the same names, another range: not the old one
    moved = load_change(repo.root, RANGE)
    assert calls.take()["analyse"] == 1 and not moved.units
    working = load_change(repo.root, ChangeSelector(SelectorMode.WORKING))
    assert working.snapshot is None


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_a_damaged_snapshot_is_computed_again_and_rewritten(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    _range(repo)
    expected = _open(repo)
    (path,) = _snapshots(repo)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[:len(data) // 2])
    elif damage == "flip":
        middle = len(data) // 3
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:])
    elif damage == "garbage":
        path.write_bytes(b"RTSNAP1\n\xff\xff\xff\xff not a snapshot")
    else:
        path.write_bytes(b"")
    calls = Calls(monkeypatch)
    again = _open(repo)
    assert calls.take() == COMPUTED
    _same(expected, again)
    _open(repo)
    assert calls.take() == KEPT


def test_only_the_most_recent_snapshots_are_kept_within_a_size(repo: GitRepoBuilder,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _range(repo)
    monkeypatch.setattr(change_snapshot, "KEPT", 2)
    for rev in ("head", "head~1", "head~2"):
        load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, rev))
    assert len(_snapshots(repo)) == 2
    folder = _snapshots(repo)[0].parent
    stopped, writing = folder / ".a.snap.1.tmp", folder / ".b.snap.2.tmp"
    stopped.write_bytes(b"partial")
    writing.write_bytes(b"partial")
    os.utime(stopped, (0, 0))
    newest = max(_snapshots(repo), key=lambda path: path.stat().st_mtime)
    monkeypatch.setattr(change_snapshot, "MAX_BYTES", 1)
    load_change(repo.root, ChangeSelector(SelectorMode.RANGE, "head~2..head"))
    assert len(_snapshots(repo)) == 1 and newest not in _snapshots(repo)
    assert not stopped.exists() and writing.exists()


def test_the_analysis_process_asks_whether_the_snapshot_is_kept(repo: GitRepoBuilder) -> None:
    """The workbench's forked process checks the key alone (then leaves the load to the app)."""
    _range(repo)
    assert not snapshot_kept(repo.root, RANGE)
    load_change(repo.root, RANGE)
    assert snapshot_kept(repo.root, RANGE)
    assert not snapshot_kept(repo.root, ChangeSelector(SelectorMode.WORKING))
    _edit_settings(repo)
    assert not snapshot_kept(repo.root, RANGE)
    load_change(repo.root, RANGE)
    assert snapshot_kept(repo.root, RANGE)
    (path,) = _snapshots(repo)
    path.write_bytes(path.read_bytes()[:20])
    assert not snapshot_kept(repo.root, RANGE)


def test_an_order_that_does_not_decode_is_counted_and_written_again(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    """An order kept by other code (whole and checked, but not of this layout)."""
    _range(repo)
    expected = _open(repo)
    (path,) = _snapshots(repo)
    key = expected.snapshot.key if expected.snapshot is not None else ""
    parts = change_snapshot._read(path, key)
    assert parts is not None and parts[2] is not None
    assert change_snapshot._write(path, key, parts[0], parts[1],
                                  marshal.dumps((("other", ()),), 4))
    calls = Calls(monkeypatch)
    again = _open(repo)
    assert calls.take() == {"collect": 0, "analyse": 0, "order": 1}
    _same(expected, again)
    _open(repo)
    assert calls.take() == KEPT


def test_an_order_counted_beyond_its_parts_is_kept_whole(repo: GitRepoBuilder) -> None:
    """Counting changes a suggestion's priority parts and reach only; were it to change more,
    the whole suggestions are kept (and read back the same)."""
    from dataclasses import replace

    from reviewtui.analysis.snapshot_codec import decode_counted, encode_counted

    _range(repo)
    plain = load_change(repo.root, RANGE)
    counted = plain.with_reach()
    first = plain.units[0].unit_id
    for changed, layout in ((counted.suggestions, "parts"), (
            {**counted.suggestions, first: replace(counted.suggestions[first], notes="more")},
            "whole")):
        payload = marshal.loads(marshal.dumps(encode_counted(
            plain.units, plain.suggestions, changed, counted.learned_features,
            counted.learned_evidence), 4))
        assert payload[0][0] == layout
        back = decode_counted(payload, plain.units, plain.suggestions)
        assert list(back.suggestions.items()) == list(changed.items())
        assert back.features == counted.learned_features
        assert back.evidence == counted.learned_evidence


def test_another_home_folder_with_the_same_files_reads_the_snapshot(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The key holds the files' contents, not where they are (``bench_tui`` starts every run
    in a fresh home folder)."""
    _range(repo)
    _open(repo)
    calls = Calls(monkeypatch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "elsewhere"))
    _open(repo)
    assert calls.take() == KEPT
