"""Map a file path to a language name.

The names are the ones rule packs and the tree-sitter layer use (``python``, ``typescript``,
``tsx``...). Unknown files get ``None`` -- they still get every language-independent tag.
"""

from __future__ import annotations

import functools
from pathlib import PurePosixPath

_BY_SUFFIX: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".cs": "csharp", ".rs": "rust", ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift", ".scala": "scala", ".php": "php", ".sh": "shell", ".bash": "shell",
    ".zsh": "shell", ".sql": "sql", ".html": "html", ".htm": "html", ".css": "css",
    ".scss": "css", ".vue": "vue", ".md": "markdown", ".rst": "rst", ".txt": "text",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json", ".ini": "ini",
    ".cfg": "ini", ".xml": "xml", ".proto": "protobuf", ".lua": "lua", ".pl": "perl",
    ".r": "r", ".dart": "dart", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
    ".hs": "haskell", ".ml": "ocaml", ".clj": "clojure", ".gradle": "groovy",
    ".groovy": "groovy", ".tf": "terraform", ".properties": "properties",
}
_BY_NAME: dict[str, str] = {
    "Rakefile": "ruby", "Gemfile": "ruby", "Guardfile": "ruby", "Vagrantfile": "ruby",
    "Dockerfile": "dockerfile", "Makefile": "make", "GNUmakefile": "make",
    "CMakeLists.txt": "cmake", "BUILD": "starlark", "WORKSPACE": "starlark",
}


@functools.lru_cache(maxsize=65536)
def language_for_path(path: str) -> str | None:
    pure = PurePosixPath(path)
    name = pure.name
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith("Dockerfile"):
        return "dockerfile"
    return _BY_SUFFIX.get(pure.suffix.lower())
