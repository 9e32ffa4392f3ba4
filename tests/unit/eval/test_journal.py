"""The evaluation's journals: a line torn by a killed run is skipped, and what the next run
appends after it is kept."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from reviewtui.eval.journal import Journal


class _Item(BaseModel):
    name: str
    value: int


def _journal(path: Path) -> Journal[_Item]:
    return Journal(path, _Item, lambda item: item.name)


def test_a_record_appended_after_a_torn_line_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "eval" / "results-x.jsonl"
    first = _journal(path)
    first.add(_Item(name="a", value=1))
    first.add(_Item(name="b", value=2))
    path.write_bytes(path.read_bytes()[:-9])  # the run was killed while writing "b"
    second = _journal(path)
    assert list(second.items) == ["a"]
    second.add(_Item(name="c", value=3))
    assert list(_journal(path).items) == ["a", "c"]
