"""Records appended to a JSON Lines file as they are computed, so a stopped run continues.

The evaluation keeps three such journals in ``.git/reviewtui/eval/`` -- the fixes it examined,
the cases it ranked, the cases it reviewed -- each named by a key of everything its records
depend on. A line torn by a killed run is skipped (that record is computed again), and the
next record starts on a line of its own rather than after it; an unwritable folder turns the
journal into memory only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

Record = TypeVar("Record", bound=BaseModel)


class Journal(Generic[Record]):
    def __init__(self, path: Path | None, model: type[Record],
                 key_of: Callable[[Record], str]) -> None:
        self.path = path
        self._key_of = key_of
        self.items: dict[str, Record] = {}
        self._torn = False  # the file ends inside a line: the next record starts a new one
        if path is None or not path.is_file():
            return
        text = path.read_text("utf-8", "replace")
        self._torn = bool(text) and not text.endswith("\n")
        for line in text.splitlines():
            try:
                record = model.model_validate_json(line)
            except ValidationError:
                continue  # a line torn by a killed run
            self.items[key_of(record)] = record

    def add(self, record: Record) -> None:
        self.items[self._key_of(record)] = record
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write("\n" * self._torn + record.model_dump_json() + "\n")
            self._torn = False
        except OSError:
            self.path = None  # unwritable: go on without keeping
