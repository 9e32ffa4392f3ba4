"""Build review units from a ``ChangeSet`` (the public entry point of the units stage).

Per file: path tags once, both file versions parsed at most once (tree-sitter), hunks grouped
into capped units, then per-unit line tags, symbols, compact line numbers and a deterministic id
(a hash of path, ranges and content: the same change gets the same id on every run and machine).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from reviewtui.code import FileStructure
from reviewtui.code.languages import SPEC_LANGUAGES, PathLanguages
from reviewtui.config import UnitsSettings
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import ChangeSet, ChangeStatus, FileChange, Hunk
from reviewtui.units.cut_points import cut_points, spec_cut_points
from reviewtui.units.grouping import group_hunks
from reviewtui.units.line_tags import line_facts, security_in_lines
from reviewtui.units.model import ReviewUnit, review_unit
from reviewtui.units.path_tags import identifier_tokens, path_tags
from reviewtui.units.structures import (
    DEFAULT_LANGUAGES,
    analyze_file,
    minified,
    structure_language,
)
from reviewtui.units.vocabulary import Vocabulary, default_vocabulary

_CHANGE_TYPE = {
    ChangeStatus.ADD: "add",
    ChangeStatus.MODIFY: "modify",
    ChangeStatus.DELETE: "delete",
    ChangeStatus.RENAME: "rename",
    ChangeStatus.COPY: "add",
}
_MARKER_LINES = 10
_WHOLE_FILE = frozenset({ChangeStatus.ADD, ChangeStatus.DELETE})  # one version of the file
# Prose, tests, lock files and generated code mention "password" without being security code.
_NO_CONTENT_SECURITY = frozenset({"doc_file", "test_file", "lockfile", "generated_or_vendored",
                                  "translation_file", "asset_file"})


def compact_ranges(numbers: Iterable[int]) -> str:
    """``[1, 2, 3, 5, 6, 7, 15]`` -> ``"L1-3,L5-7,L15"``."""
    ordered = sorted(set(numbers))
    if not ordered:
        return ""
    parts: list[str] = []
    start = prev = ordered[0]
    for number in ordered[1:]:
        if number == prev + 1:
            prev = number
            continue
        parts.append(f"L{start}" if start == prev else f"L{start}-{prev}")
        start = prev = number
    parts.append(f"L{start}" if start == prev else f"L{start}-{prev}")
    return ",".join(parts)


def unit_id_for(change: FileChange, hunks: tuple[Hunk, ...]) -> str:
    digest = hashlib.sha256()
    digest.update(f"{change.old_path}\0{change.new_path}\0{change.status.value}\0".encode())
    for hunk in hunks:
        digest.update(
            f"@{hunk.old_start},{hunk.old_count},{hunk.new_start},{hunk.new_count}\n".encode()
        )
        # The changed lines in one piece: the digest of a concatenation is that of its parts
        # fed one by one, and UTF-8 encodes each character on its own.
        digest.update("".join([f"{line.kind}{line.text}\n" for line in hunk.lines
                               if line.kind != " "]).encode("utf-8", "surrogatepass"))
    if not hunks:
        digest.update(f"{change.old_blob}\0{change.new_blob}\0{change.old_mode}\0"
                      f"{change.new_mode}".encode())
    return "u_" + digest.hexdigest()[:12]


def _span(numbers: list[int]) -> str:
    low, high = min(numbers), max(numbers)
    return f"L{low}" if low == high else f"L{low}-{high}"


def _location(path: str, added: list[int], removed: list[int], hunks: tuple[Hunk, ...]) -> str:
    if added:
        return f"{path}:{_span(added)}"
    if removed:
        return f"{path}:{_span(removed)} (removed)"
    if hunks:
        return f"{path}:L{hunks[0].new_start}"
    return path


def _has_generated_marker(change: FileChange, reader: ContentReader,
                          vocab: Vocabulary) -> bool:
    head_lines: list[str] = []
    head = reader.new(change) if structure_language(change) else None
    if head is not None:
        head_lines = head[:2048].decode("utf-8", "replace").split("\n")[:_MARKER_LINES]
    elif change.hunks and change.hunks[0].new_start <= 1:
        head_lines = [ln.text for ln in change.hunks[0].lines[:_MARKER_LINES] if ln.kind != "-"]
    markers = vocab.pack.generated_markers
    if not head_lines:
        return False
    # The lines at once: a marker without a line break is in one of them only if it is in
    # their joined text (with a line break, it is looked for line by line).
    joined = "\n".join(head_lines)
    return any(marker in joined if "\n" not in marker
               else any(marker in line for line in head_lines) for marker in markers)


def _cut_points(change: FileChange, reader: ContentReader, side: str,
                structure: FileStructure | None, language: str | None, tags: set[str],
                max_lines: int) -> frozenset[int]:
    """Where an oversized hunk of one side of ``change`` is best cut (a test file's version
    read as a spec when it is one)."""
    if "test_file" not in tags or language not in SPEC_LANGUAGES:
        return cut_points(structure, max_lines)
    source = reader.new(change) if side == "new" else reader.old(change)
    return spec_cut_points(language, None if source is None or minified(source) else source,
                           structure, max_lines)


def file_units(change: FileChange, reader: ContentReader, settings: UnitsSettings,
               vocab: Vocabulary,
               languages: PathLanguages = DEFAULT_LANGUAGES) -> list[ReviewUnit]:
    """The review units of one changed file (its versions are parsed here, once)."""
    return _file_units(change, reader, analyze_file(change, reader, languages), settings,
                       vocab, languages)


def _file_units(change: FileChange, reader: ContentReader, structures: dict[str, FileStructure],
                settings: UnitsSettings, vocab: Vocabulary,
                languages: PathLanguages) -> list[ReviewUnit]:
    path = change.path
    language = languages.of(path) if change.kind.value == "file" else None
    base_tags = path_tags(change, vocab)
    if _has_generated_marker(change, reader, vocab):
        base_tags.add("generated_or_vendored")
    new_structure = structures.get("new")
    old_structure = structures.get("old")
    if change.kept_on_disk:  # leaves the repository, unchanged on disk: one decision, one unit
        groups = [change.hunks]
    else:
        groups = group_hunks(
            change.hunks, merge_gap=settings.merge_gap, max_hunks=settings.max_hunks,
            max_lines=settings.max_lines,
            cut_points=lambda: _cut_points(change, reader, "new", new_structure, language,
                                           base_tags, settings.max_lines),
            old_cut_points=lambda: _cut_points(change, reader, "old", old_structure, language,
                                               base_tags, settings.max_lines)) or [()]
    units: list[ReviewUnit] = []
    for hunks in groups:
        lines = [line for hunk in hunks for line in hunk.lines]
        added = [ln.new_no for ln in lines if ln.kind == "+" and ln.new_no is not None]
        removed = [ln.old_no for ln in lines if ln.kind == "-" and ln.old_no is not None]
        facts = line_facts(lines, language, old_structure if removed else None,
                           new_structure if added else None, vocab,
                           scan_security=not (base_tags & _NO_CONTENT_SECURITY),
                           lossy=change.non_utf8)
        tags = base_tags | facts.tags
        if change.status in _WHOLE_FILE:
            # a file cut inside a definition shows its header in one unit and not its end;
            # with no other version of the file, no signature changed
            tags.discard("signature_change")
        if "test_file" in tags and (
                vocab.security_path_tokens.intersection(identifier_tokens(path))
                or security_in_lines([(0, ln.text) for ln in lines if ln.kind != " "], vocab,
                                     strings=True)):
            tags.add("security_test")  # a test of security code: weakening it matters
        units.append(review_unit(
            unit_id=unit_id_for(change, hunks),
            file_path=path,
            old_path=change.old_path if change.old_path != path else None,
            language=language,
            change_type=_CHANGE_TYPE[change.status],
            tags=tuple(sorted(tags)),
            hunks=hunks,
            added_lines=len(added),
            removed_lines=len(removed),
            new_compact=compact_ranges(added),
            old_compact=compact_ranges(removed),
            location=_location(path, added, removed, hunks),
            symbols=facts.symbols,
            functions=facts.functions,
            scopes=facts.scopes,
            parsed=facts.parsed and (new_structure is not None or old_structure is not None),
            prose_lines=facts.prose,
            import_lines=facts.imports,
            line_kinds=facts.kinds,
        ))
    return units


def build_units(change_set: ChangeSet, reader: ContentReader, settings: UnitsSettings,
                vocabulary: Vocabulary | None = None,
                languages: PathLanguages = DEFAULT_LANGUAGES) -> list[ReviewUnit]:
    """Cut every file of the change into review units, in path order (in this process)."""
    vocab = vocabulary or default_vocabulary()
    files = sorted(change_set.files, key=lambda c: c.path)
    reader.prefetch(c for c in files if structure_language(c, languages))
    units: list[ReviewUnit] = []
    for change in files:
        units.extend(file_units(change, reader, settings, vocab, languages))
    return units
