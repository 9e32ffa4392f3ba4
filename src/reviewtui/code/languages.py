"""Map a file path to a language name.

The names are the ones rule packs and the tree-sitter layer use (``python``, ``typescript``,
``tsx``...), the suffixes and file names come from the language table (``language_specs``).
Unknown files get ``None`` -- they still get every language-independent tag.

A ``.h`` file is C or C++ depending on the repository: ``PathLanguages`` is the mapping of one
repository, with ``.h`` as C++ when the repository has C++ sources.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from reviewtui.code.language_specs import BY_NAME, SPECS

_BY_SUFFIX: dict[str, str] = {suffix: s.name for s in SPECS for suffix in s.suffixes}
_BY_NAME: dict[str, str] = {file_name: s.name for s in SPECS for file_name in s.file_names}
HEADER_SUFFIX = ".h"
CPP_SUFFIXES: tuple[str, ...] = BY_NAME["cpp"].suffixes


@functools.lru_cache(maxsize=65536)
def language_for_path(path: str) -> str | None:
    pure = PurePosixPath(path)
    name = pure.name
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith("Dockerfile"):
        return "dockerfile"
    return _BY_SUFFIX.get(pure.suffix.lower())


def _suffix(path: str) -> str:
    """``PurePosixPath(path).suffix.lower()``, without building a path (a refresh asks this
    of every file of the change)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


def is_header(path: str) -> bool:
    return _suffix(path) == HEADER_SUFFIX


def is_cpp_source(path: str) -> bool:
    return _suffix(path) in CPP_SUFFIXES


@dataclass(frozen=True, slots=True)
class PathLanguages:
    """The languages of one repository's paths: the table's, with ``.h`` as C++ when
    ``cpp_headers`` (the repository has C++ sources)."""

    cpp_headers: bool = False

    def of(self, path: str) -> str | None:
        language = language_for_path(path)
        if language == "c" and self.cpp_headers and is_header(path):
            return "cpp"
        return language


def headers_decided(paths: Iterable[str]) -> PathLanguages | None:
    """The mapping when the paths decide it (no ``.h``, or a C++ source among them), else None:
    then whether the repository tracks C++ sources decides."""
    listed = list(paths)
    if not any(is_header(p) for p in listed):
        return PathLanguages()
    if any(is_cpp_source(p) for p in listed):
        return PathLanguages(cpp_headers=True)
    return None


# Languages of the table that hold data, documentation or build settings rather than code: what
# the changed lines of such a file "do" (a YAML key named ``if-...``) is no control flow.
NOT_CODE = frozenset({"css", "protobuf", "yaml", "toml", "ini", "properties", "make",
                      "dockerfile", "cmake", "starlark", "html", "xml", "markdown", "rst",
                      "text", "json", "terraform", "sql"})


def is_code(language: str | None) -> bool:
    """A programming language (not a data, documentation or build-settings format)."""
    return language is not None and language not in NOT_CODE


# Languages whose test files are read as Mocha/Jest/Vitest specs (``code.spec_calls``).
SPEC_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
