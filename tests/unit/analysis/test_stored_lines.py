"""A kept change's diff lines are read when first used: the index and the priority order never
touch them, and the lines a unit shows are the collected ones, object for object."""

from __future__ import annotations

import copy
import marshal
import pickle

import pytest

from reviewtui.analysis.stored_lines import FileLines, StoredLines
from reviewtui.git.model import DiffLine
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder
from tests.unit.analysis.test_snapshot import RANGE, _open, _range

LINES = (DiffLine(" ", "a", 1, 1), DiffLine("-", "b", 2, None), DiffLine("+", "c", None, 2),
         DiffLine(" ", "d", 3, 3))


def _built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The hunks whose lines were built, in order."""
    built: list[int] = []
    original = FileLines._build

    def counting(self: FileLines, index: int, expected: int) -> tuple[DiffLine, ...]:
        built.append(index)
        return original(self, index, expected)

    monkeypatch.setattr(FileLines, "_build", counting)
    return built


def test_a_kept_change_reads_no_line_until_a_unit_shows_its_own(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    _range(repo)
    computed = _open(repo, use_cache=False)
    _open(repo)  # computed and kept, the order with it
    built = _built(monkeypatch)
    again = _open(repo)
    index = again.review_index()
    assert [(u.unit_id, u.priority_score) for u in index.units] == [
        (u.unit_id, u.priority_score) for u in computed.review_index().units]
    assert built == []  # read, ordered and indexed without one diff line

    unit = next(u for u in again.units if u.file_path == "big.py" and u.hunks[0].lines)
    assert again.priority_reasons(unit.unit_id) == computed.priority_reasons(unit.unit_id)
    assert 0 < len(built) <= len(unit.hunks)  # why it ranks there: its own lines alone
    built.clear()
    shown = list(unit.hunks[0].lines)
    expected = next(u for u in computed.units if u.unit_id == unit.unit_id)
    assert shown == list(expected.hunks[0].lines)
    whole = next(c for c in again.change_set.files if c.path == "big.py").hunks[0].lines
    assert all(any(line is own for own in whole) for line in shown)  # the hunk's own objects
    assert built == []  # built once


def test_stored_lines_behave_like_the_tuple_they_stand_for() -> None:
    stored = StoredLines(FileLines(FileLines.encode([LINES[:1], LINES])), 1, len(LINES))
    assert stored == LINES and stored == LINES and hash(stored) == hash(LINES)
    assert len(stored) == 4 and stored[1] == LINES[1] and stored[-1] == LINES[-1]
    piece = stored[1:3]
    assert isinstance(piece, StoredLines) and piece == LINES[1:3] and len(piece) == 2
    assert piece[0] is stored[1]  # one set of objects for the hunk and its pieces
    assert stored[::2] == LINES[::2] and list(reversed(stored)) == list(reversed(LINES))
    for moved in (pickle.loads(pickle.dumps(stored)), copy.deepcopy(stored)):
        assert type(moved) is tuple and moved == LINES


def test_lines_that_do_not_fit_their_hunk_are_an_error_not_a_wrong_diff() -> None:
    stored = StoredLines(FileLines(FileLines.encode([LINES])), 0, len(LINES) + 1)
    with pytest.raises(ValueError, match="does not hold its lines"):
        list(stored)
    with pytest.raises(ValueError, match="not a table"):
        list(StoredLines(FileLines(marshal.dumps("lines")), 0, 0))


def test_a_snapshot_of_an_old_layout_does_not_decode(repo: GitRepoBuilder) -> None:
    """A file row without its lines (format 2) or with the blob inside it (format 3), or one
    pointing past the lines kept beside it, does not decode: the change is computed again."""
    from reviewtui.analysis.snapshot_codec import Unfit, decode_change, encode_change

    _range(repo)
    loaded = load_change(repo.root, RANGE, use_cache=False)
    encoded = encode_change(loaded.change_set, loaded.units, loaded.suggestions)
    payload, lines = encoded.payload, encoded.lines
    assert decode_change(payload, lines).units == loaded.units
    rows = payload[5]
    for files in (tuple(row[:-1] for row in rows),  # format 2: no blob
                  tuple((*row[:-1], b"lines") for row in rows),  # format 3: the blob inside
                  tuple((*row[:-1], (len(lines), 1)) for row in rows)):  # past the end
        with pytest.raises(Unfit):
            decode_change((*payload[:5], files, *payload[6:]), lines)
    with pytest.raises(Unfit):
        decode_change(payload, lines[:-1])  # the lines cut short


def test_a_kept_change_holds_each_repeated_value_once(repo: GitRepoBuilder) -> None:
    """Equal rows' values (a rule matched by many units, their factors) are one object in the
    payload, so marshal writes them once; the diff lines are beside it, not inside."""
    from reviewtui.analysis.records import MATCHES_FIELD
    from reviewtui.analysis.snapshot_codec import decode_change, encode_change

    _range(repo)
    loaded = load_change(repo.root, RANGE, use_cache=False)
    encoded = encode_change(loaded.change_set, loaded.units, loaded.suggestions)
    rows = [row for group in encoded.payload[7] for row in group]
    rules = [rule for row in rows for rule, *_ in row[MATCHES_FIELD]]
    assert len(rules) > len({id(rule) for rule in rules}) == len(set(rules))
    factors = [row[6] for row in rows]
    assert len({id(f) for f in factors}) == len(set(factors))
    assert not any(isinstance(value, bytes) for row in encoded.payload[5] for value in row)
    read = marshal.loads(marshal.dumps(encoded.payload, 4))
    assert decode_change(read, encoded.lines).units == loaded.units
