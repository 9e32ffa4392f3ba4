"""Cache keys: a file's results may be reused only when every input to them is the same.

A unit and its rule suggestion depend on the file's change (paths, status, modes, both
contents, the hunks' layout), the ``[units]`` and ``[git]`` settings, the rule pack (patterns,
tagging vocabulary, learned rules) and the code that computes them (reviewtui itself and the
tree-sitter grammars). The run fingerprint covers everything but the file; ``file_key`` adds
the file. The code is stamped by its files' sizes and modification times, so an edited
checkout or an upgrade never reads results computed by other code.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from pathlib import Path

from reviewtui import __version__
from reviewtui.code.language_specs import GRAMMAR_MODULES
from reviewtui.config import Settings
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import FileChange
from reviewtui.rules.schema import RulePack

FORMAT = 9  # 3: the changed lines' signals and tokens; 4: and a rule's skip reason; 5: the
# signals leave out the parse's comments and docstrings; 6: split hunks as slices of their hunk;
# 7: captures in the query's order, one definition per declarator of a JS var statement;
# 8: what the changed lines do, from the parse (units' line_kinds); 9: tokens without the words
# of string literals
_CODE_MODULES = ("tree_sitter", *GRAMMAR_MODULES)
_PACKAGE = Path(__file__).resolve().parent.parent


def _stamp_tree(root: Path, digest: hashlib._Hash) -> None:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".so", ".pyd", ".scm")):
                info = (Path(folder) / name).stat()
                digest.update(f"{folder}/{name}:{info.st_size}:{info.st_mtime_ns}\n".encode())


@functools.cache
def code_stamp() -> str:
    """A digest of the code that computes units and suggestions (once a process: the code this
    process runs is the code it imported)."""
    digest = hashlib.sha256(f"{FORMAT}:{__version__}\n".encode())
    _stamp_tree(_PACKAGE, digest)
    for module in _CODE_MODULES:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
        if origin and Path(origin).exists():
            _stamp_tree(Path(origin).parent, digest)
        else:
            digest.update(f"{module}:absent\n".encode())
    return digest.hexdigest()


def run_fingerprint(settings: Settings, pack: RulePack) -> str:
    """Everything outside the file that its units and suggestions depend on."""
    digest = hashlib.sha256(code_stamp().encode())
    digest.update(settings.units.model_dump_json(exclude={"cache"}).encode())
    digest.update(str(settings.git.max_file_bytes).encode())
    digest.update(pack.model_dump_json().encode())
    return digest.hexdigest()


def _side(oid: str | None, path: str | None, read: bytes | None) -> str:
    if path is None:
        return "-"
    if oid:
        return oid
    return "sha1:" + hashlib.sha1(read).hexdigest() if read is not None else "unreadable"


def file_key(fingerprint: str, change: FileChange, reader: ContentReader,
             language: str | None = None) -> str:
    """The key of ``change``'s results under ``fingerprint``, read as ``language``.

    Blob ids name committed and staged contents; a working-tree side is read and hashed. The
    hunks' headers and line kinds pin the diff's layout (another diff algorithm moves them).
    The language is part of the key: a ``.h`` file is C or C++ depending on the repository.
    """
    digest = hashlib.sha256(fingerprint.encode())
    old = _side(change.old_blob, change.old_path,
                None if change.old_blob else reader.old(change))
    new = _side(change.new_blob, change.new_path,
                None if change.new_blob else reader.new(change))
    digest.update("\0".join((
        change.status.value, change.old_path or "", change.new_path or "",
        change.old_mode or "", change.new_mode or "", old, new, str(change.is_binary),
        str(change.too_large), str(change.untracked), change.kind.value, language or "",
        str(change.unreadable), str(change.binary_by_attribute),
    )).encode("utf-8", "surrogateescape"))
    for hunk in change.hunks:
        digest.update(
            f"\n@{hunk.old_start},{hunk.old_count},{hunk.new_start},{hunk.new_count},"
            f"{hunk.old_missing_newline:d}{hunk.new_missing_newline:d}:".encode()
        )
        digest.update("".join(line.kind for line in hunk.lines).encode())
    return digest.hexdigest()
