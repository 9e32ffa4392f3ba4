"""Tags that follow from a file's path and its change record alone.

doc_file, test_file, config_file, routing_file, migration_file, generated_or_vendored, lockfile,
translation_file (translation_catalog for the catalogue files themselves), asset_file,
package_manifest, tooling_file, type_stub, security_area (a security word in the path: the
place, not yet what the change does — ``security_sensitive`` comes from the changed code),
binary (with binary_by_attribute when a ``-diff`` / ``binary`` gitattribute made git call it
so, not its content), new_file, deleted_file, renamed, mode_change (with mode_only when the
content is unchanged, made_executable when it gains the executable bit, and
sensitive_executable when that happens where hooks or CI run files), symlink, submodule,
non_utf8, too_large, untracked, kept_on_disk (a deletion from the repository of a file that
stays on disk: ``git rm --cached``), unreadable (an untracked file that could not be read:
listed, never reviewed). Computed once per file and shared by all its units.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from reviewtui.git.model import ChangeStatus, EntryKind, FileChange
from reviewtui.units.vocabulary import Vocabulary

EXECUTABLE = "100755"
# What a unit tagged binary_by_attribute is told with (index, workbench, bundles): git calls
# the file binary because the repository's attributes say so, whatever its content.
BINARY_BY_ATTRIBUTE_NOTE = ("treated as binary because of a gitattribute ('-diff', 'binary', or a "
                            "diff driver set binary; git shows no lines, the content may be code)")
# What a unit tagged kept_on_disk is told with (index, bundles): the change removes the file
# from the repository, not from the disk, so its lines are not lost where it is checked out.
KEPT_ON_DISK_NOTE = ("deleted from the repository, kept on disk untracked ('git rm --cached'): "
                     "clones lose the file, this working tree keeps it")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def identifier_tokens(text: str) -> list[str]:
    """Split ``getUserPassword`` / ``user_password`` / ``a/b-c.py`` into lower-case words."""
    if text.isascii():  # the same words in three C calls: camel joints made separators
        return [word for word in _SPLIT.split(_CAMEL.sub(" ", text).lower()) if word]
    # Elsewhere a word is split first and lowered after: lowering can turn a separator into a
    # letter (the Kelvin sign into ``k``).
    words: list[str] = []
    for part in _SPLIT.split(text):
        if part:
            words.extend(w.lower() for w in _CAMEL.split(part) if w)
    return words


def _dirs(path: PurePosixPath) -> list[str]:
    return [p.lower() for p in path.parts[:-1]]


# A pack's folder list as (its single names lowercased, its nested paths as "/a/b/"), by the
# list's id with the list itself (so an id is never reused for another): a pack is read once
# and not changed, and every changed file asks about eight of its lists.
_DIR_NAMES: dict[int, tuple[list[str], frozenset[str], tuple[str, ...]]] = {}


def _dir_names(names: list[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    kept = _DIR_NAMES.get(id(names))
    if kept is None or kept[0] is not names:
        kept = _DIR_NAMES[id(names)] = (
            names, frozenset(name.lower() for name in names if "/" not in name),
            tuple(f"/{name}/" for name in names if "/" in name))
    return kept[1], kept[2]


def _has_dir(dirs: list[str], path: str, names: list[str]) -> bool:
    """Is one of ``names`` a folder of ``path`` (``dirs``: its folders, lowercased)? A name
    with a slash is a run of folders, looked for in the lowercased path."""
    single, nested = _dir_names(names)
    if not single.isdisjoint(dirs):
        return True
    if nested:
        slashed = f"/{path.lower()}"
        return any(name in slashed for name in nested)
    return False


def path_tags(change: FileChange, vocab: Vocabulary) -> set[str]:
    pack = vocab.pack
    path = change.path
    pure = PurePosixPath(path)
    name = pure.name
    suffix = pure.suffix.lower()
    dirs = _dirs(pure)
    tags: set[str] = set()

    config_by_name = (name in pack.config_names or suffix in pack.config_suffixes
                      or name.startswith(".env"))
    if name in pack.lockfile_names:
        tags.add("lockfile")
    elif config_by_name or _has_dir(dirs, path, pack.config_dirs):
        tags.add("config_file")
    if _has_dir(dirs, path, pack.doc_dirs):
        tags.add("doc_file")  # under docs/ even a build config (docs/conf.py) is documentation
    elif "lockfile" not in tags and not config_by_name and (
            suffix in pack.doc_suffixes or pure.stem.upper() in pack.doc_names):
        # a document in a configuration folder (.github/SECURITY.md, config/README.md) is a
        # document, not configuration
        tags.add("doc_file")
        tags.discard("config_file")
    if _has_dir(dirs, path, pack.tooling_dirs):
        tags.add("tooling_file")
    if suffix == ".pyi" or name.endswith(".d.ts"):
        tags.add("type_stub")  # declarations for type checkers: nothing runs
    if _has_dir(dirs, path, pack.test_dirs) or vocab.test_names.search(name):
        tags.add("test_file")
    if name in pack.routing_names or _has_dir(dirs, path, pack.routing_dirs):
        tags.add("routing_file")
    if _has_dir(dirs, path, pack.migration_dirs) or vocab.migration_names.search(name):
        tags.add("migration_file")
    if (_has_dir(dirs, path, pack.generated_dirs) or vocab.generated_names.search(name)
            or name in pack.generated_names
            or any(d.endswith(tuple(pack.generated_dir_suffixes)) for d in dirs)):
        tags.add("generated_or_vendored")
    if name in pack.package_manifest_names or name.endswith(".gemspec"):
        tags.add("package_manifest")
    if suffix in pack.translation_suffixes:
        tags.add("translation_catalog")  # the catalogue itself, not code in a locale/ folder
    if suffix in pack.translation_suffixes or (
            _has_dir(dirs, path, pack.translation_dirs) and "config_file" in tags):
        tags.add("translation_file")
        tags.discard("config_file")
    elif suffix in pack.asset_suffixes:
        tags.add("asset_file")
    quiet = {"test_file", "doc_file", "translation_file", "asset_file",
             "generated_or_vendored"} & tags
    if not quiet and vocab.security_path_tokens.intersection(identifier_tokens(path)):
        tags.add("security_area")

    if change.is_binary:
        tags.add("binary")
        if change.binary_by_attribute:
            tags.add("binary_by_attribute")
    if change.status is ChangeStatus.ADD:
        tags.add("new_file")
    elif change.status is ChangeStatus.DELETE:
        tags.add("deleted_file")
    elif change.status is ChangeStatus.RENAME:
        tags.add("renamed")
    elif change.status is ChangeStatus.COPY:
        tags.add("copied")
    if change.mode_changed:
        tags.add("mode_change")
        if not change.hunks and change.status is ChangeStatus.MODIFY:
            tags.add("mode_only")
        if change.new_mode == EXECUTABLE and change.old_mode != EXECUTABLE:
            tags.add("made_executable")
            if _has_dir(dirs, path, pack.executable_sensitive_dirs) or (
                    name in pack.executable_sensitive_names):
                tags.add("sensitive_executable")
    if change.kind is EntryKind.SYMLINK:
        tags.add("symlink")
    elif change.kind is EntryKind.SUBMODULE:
        tags.add("submodule")
    if change.non_utf8:
        tags.add("non_utf8")
    if change.too_large:
        tags.add("too_large")
    if change.kept_on_disk:
        tags.add("kept_on_disk")
    elif change.untracked:
        tags.add("untracked")
    if change.unreadable:
        tags.add("unreadable")
    return tags
