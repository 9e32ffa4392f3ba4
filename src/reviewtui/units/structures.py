"""Parse the changed files' versions once per run.

Every file version a unit needs (the "after" side when lines were added, the "before" side when
lines were removed) is analysed exactly once, around its changed lines only (see
``reviewtui.code.windows``). Spreading files over processes is the caller's business
(``reviewtui.analysis``): a file's whole pipeline runs in one place.
"""

from __future__ import annotations

from collections.abc import Iterable

from reviewtui.code import LANGUAGES, FileStructure, analyze_source
from reviewtui.code.languages import PathLanguages
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import FileChange, Hunk

Key = tuple[str, str]  # (path, "old" | "new")


def changed_runs(hunks: Iterable[Hunk], kind: str) -> list[tuple[int, int]]:
    """Runs of consecutive changed lines of one side, as 1-based inclusive ranges."""
    runs: list[tuple[int, int]] = []
    for hunk in hunks:
        for line in hunk.lines:
            number = line.new_no if kind == "+" else line.old_no
            if line.kind != kind or number is None:
                continue
            if runs and runs[-1][1] == number - 1:
                runs[-1] = (runs[-1][0], number)
            else:
                runs.append((number, number))
    return runs


DEFAULT_LANGUAGES = PathLanguages()
# A version whose lines average more bytes than this is minified (``jquery.min.js``: 87 kB on
# two lines; source code averages 30-40): its definitions share lines, so no changed line lies
# "in a single function", and parsing it cost 0.3 s for a four-line diff.
MINIFIED_LINE_BYTES = 500


def minified(data: bytes) -> bool:
    """Whether ``data`` reads as minified code (its lines average over
    ``MINIFIED_LINE_BYTES`` bytes)."""
    return len(data) > MINIFIED_LINE_BYTES * (data.count(b"\n") + 1)


def structure_language(change: FileChange,
                       languages: PathLanguages = DEFAULT_LANGUAGES) -> str | None:
    """The tree-sitter language of a changed file, or None if it has no parseable text."""
    if change.kind.value != "file" or change.is_binary:
        return None
    language = languages.of(change.path)
    return language if language in LANGUAGES else None


def analyze_file(change: FileChange, reader: ContentReader,
                 languages: PathLanguages = DEFAULT_LANGUAGES) -> dict[str, FileStructure]:
    """Structures of the versions of one file its units will ask about, keyed "new" / "old".

    A side is analysed only when it has changed lines, and only around them; a minified one
    not at all (see ``MINIFIED_LINE_BYTES``).
    """
    language = structure_language(change, languages)
    if language is None:
        return {}
    found: dict[str, FileStructure] = {}
    for side, kind in (("new", "+"), ("old", "-")):
        ranges = changed_runs(change.hunks, kind)
        if not ranges:
            continue
        data = reader.new(change) if side == "new" else reader.old(change)
        if data is None or minified(data):
            continue
        structure = analyze_source(language, data, ranges)
        if structure is not None:
            found[side] = structure
    return found


def analyze_changes(changes: Iterable[FileChange], reader: ContentReader,
                    languages: PathLanguages = DEFAULT_LANGUAGES) -> dict[Key, FileStructure]:
    """Structures of every file version the units of ``changes`` will ask about."""
    return {(change.path, side): structure for change in changes
            for side, structure in analyze_file(change, reader, languages).items()}
