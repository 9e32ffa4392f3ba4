"""Finding where a changed configuration key is read: what to grep for and what counts.

A changed key in ``settings.yaml`` or ``.env`` matters where code reads it, and code spells a key
differently from the file that sets it: ``os.environ["DATABASE_URL"]``, ``config.get("port")``
for ``server.port``, ``settings.server.port``, ``SERVER_PORT`` through an environment binding.
This module makes those needles, finds them on a line as whole keys, and skips occurrences in
comments; hits in configuration files themselves are not usage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from reviewtui.code.languages import language_for_path
from reviewtui.context.search.references import (
    RefKind,
    SourceFile,
    boundary_columns,
    classify_node,
    classify_text,
)
from reviewtui.context.search.side import valid_text

NON_CODE_LANGUAGES = frozenset({
    "markdown", "rst", "text", "yaml", "toml", "json", "ini", "xml", "properties", "css",
})
_CONFIG_SUFFIXES = frozenset({
    ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".json", ".properties", ".env",
    ".xml", ".plist", ".hcl", ".tfvars",
})


def is_config_path(path: str) -> bool:
    name = PurePosixPath(path).name
    return PurePosixPath(name).suffix.lower() in _CONFIG_SUFFIXES or name.startswith(".env")


def is_code_path(path: str) -> bool:
    language = language_for_path(path)
    return language is not None and language not in NON_CODE_LANGUAGES


def config_needles(keys: Sequence[str]) -> dict[str, tuple[str, int]]:
    """needle -> (key, rank): the key and its env form rank 0, a quoted last part 1, ``.last`` 2."""
    needles: dict[str, tuple[str, int]] = {}
    for raw in keys:
        key = raw.strip()
        if not valid_text(key):
            continue
        needles.setdefault(key, (key, 0))
        env = re.sub(r"[.\-]", "_", key).upper()
        if env != key and re.fullmatch(r"[A-Z][A-Z0-9_]*", env):
            needles.setdefault(env, (key, 0))
        parts = [p for p in re.split(r"[.:/]", key) if p]
        if len(parts) > 1:
            last = parts[-1]
            needles.setdefault(f'"{last}"', (key, 1))
            needles.setdefault(f"'{last}'", (key, 1))
            needles.setdefault(f".{last}", (key, 2))
    return needles


def needle_columns(line: bytes, needle: bytes) -> list[int]:
    """Where ``needle`` occurs as a whole key: quoted needles anywhere, others word-bounded
    (``$`` is a sigil here: ``$DATABASE_URL`` in shell)."""
    if needle[:1] in (b'"', b"'"):
        start, found = line.find(needle), []
        while start >= 0:
            found.append(start)
            start = line.find(needle, start + 1)
        return found
    if needle.startswith(b"."):
        return [c - 1 for c in boundary_columns(line, needle[1:], dollar=False)
                if c > 0 and line[c - 1 : c] == b"."]
    return list(boundary_columns(line, needle, dollar=False))


def _in_comment(source: SourceFile | None, number: int, line: bytes, col: int,
                needle: bytes) -> bool:
    if source is not None and source.tree is not None:
        node = source.node_at(number, col, len(needle))
        return classify_node(node, needle) is RefKind.COMMENT
    text = line.decode("utf-8", "replace")
    column = len(line[:col].decode("utf-8", "replace"))
    return classify_text(text, column, needle.decode("utf-8", "replace")) is RefKind.COMMENT


def best_needle(source: SourceFile | None, number: int, grep_text: str,
                needles: dict[str, tuple[str, int]]) -> tuple[int, str] | None:
    """(rank, key) of the best needle on line ``number`` outside comments, or None."""
    line = source.line(number) if source is not None else grep_text.encode("utf-8")
    best: tuple[int, str] | None = None
    for needle, (key, rank) in needles.items():
        raw = needle.encode("utf-8")
        for col in needle_columns(line, raw):
            if _in_comment(source, number, line, col, raw):
                continue
            if best is None or rank < best[0]:
                best = (rank, key)
            break
    return best
