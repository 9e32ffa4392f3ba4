"""The note that tells the model which files changed on disk since earlier chat rounds."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from reviewtui.conversation.edits import EDITED_NOTE, edited_note, edited_since
from reviewtui.sessions.records import RoundRecord

START = datetime(2026, 11, 28, 6, 0, tzinfo=UTC)


def _round(index: int, minute: int | None, files: list[str] | None = None) -> RoundRecord:
    ended = (START + timedelta(minutes=minute)).isoformat(timespec="microseconds") \
        if minute is not None else None
    return RoundRecord(index=index, user_message=f"q{index}", answer="a", files=files or [],
                       ended_at=ended)


def _file(root: Path, path: str, minute: float) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("x\n")
    ns = int((START + timedelta(minutes=minute)).timestamp()) * 1_000_000_000
    os.utime(target, ns=(ns, ns))


def test_each_edited_file_names_the_last_round_that_saw_it_before(tmp_path: Path) -> None:
    rounds = [_round(0, 0, ["lib/helper.py"]), _round(1, 10), _round(2, 20), _round(3, None)]
    _file(tmp_path, "app.py", 15)  # in the change: every round had its diff
    _file(tmp_path, "lib/helper.py", 25)  # only round 1 (index 0) read it
    _file(tmp_path, "lib/other.py", 25)  # no round saw it
    _file(tmp_path, "old.py", -5)  # edited before any round ended
    edited = edited_since(tmp_path, rounds, ["app.py", "old.py", "gone.py"])
    assert edited == {"app.py": 1, "lib/helper.py": 0}
    note = edited_note(edited)
    assert note.splitlines() == [EDITED_NOTE, "- app.py (edited after round 2)",
                                 "- lib/helper.py (edited after round 1)"]


def test_nothing_edited_or_no_round_ended_gives_no_note(tmp_path: Path) -> None:
    _file(tmp_path, "app.py", 5)
    assert edited_since(tmp_path, [_round(0, 10)], ["app.py"]) == {}
    assert edited_since(tmp_path, [_round(0, None)], ["app.py"]) == {}
    assert edited_note({}) == ""


def test_a_long_list_is_cut_and_counted() -> None:
    note = edited_note({f"f{n:02}.py": n % 3 for n in range(25)})
    assert note.count("\n- f") == 20 and note.endswith("- and 5 more files")
