"""Loading a change: the repository, its settings and rule packs, the diff, units and scores.

``load_change`` is where every command and the workbench start (``pipeline.change.LoadedChange`` is
what it gives). For a commit or a range whose snapshot is kept (``pipeline.snapshot``) it
reads that instead of collecting and analysing the change again; otherwise git starts first,
computing the diff in a thread while this one imports and loads the rest.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.errors import NotARepositoryError
from reviewtui.git.contents import ContentReader
from reviewtui.git.model import SideKind
from reviewtui.git.selector import ChangeSelector, SelectorMode
from reviewtui.pipeline.change import LoadedChange, config_stamp

if TYPE_CHECKING:
    from reviewtui.analysis.progress import ProgressCallback
    from reviewtui.config import Settings
    from reviewtui.git.runner import GitRepo
    from reviewtui.pipeline.snapshot import Slot
    from reviewtui.rules import LoadedPack

_MODES_WITH_SETTINGS = frozenset({SelectorMode.AUTO, SelectorMode.WORKING, SelectorMode.ALL,
                                  SelectorMode.BASE})


def _settings(root: Path) -> Settings:
    from reviewtui.config import load_settings  # pydantic: imported once git has started

    return load_settings(root)


def load_change(path: str | Path | None, selector: ChangeSelector, *,
                use_cache: bool = True, progress: ProgressCallback | None = None,
                cached_only: bool = False) -> LoadedChange:
    """Open the repository at ``path``, cut the selected change into units and score them.

    Per-file results are reused from earlier runs unless ``use_cache`` is off, the ``[units]
    cache`` setting is off, or the change is a patch file (whose contents git does not name).
    ``progress`` hears how far the analysis of the files has got (``analysis.progress``).
    ``cached_only``: raise ``analysis.cached_only.NotCached`` unless the cache knows every file.
    A commit or a range is read from its snapshot when one is kept under the same key (see
    ``pipeline.snapshot``), and one is written after computing it when the cache is on.
    """
    from reviewtui.git.runner import open_repository
    from reviewtui.pipeline.snapshot import committed_slot

    repo: GitRepo | None
    try:
        repo = open_repository(path)
    except NotARepositoryError:
        if selector.mode is not SelectorMode.PATCH:
            raise
        repo = None  # a patch can be reviewed outside a repository, without file contents
    root = repo.root if repo is not None else Path(path or ".").resolve()
    slot = committed_slot(repo, selector) if use_cache and repo is not None else None
    read: Settings | None = None  # the settings, rule packs and key read for a snapshot
    known: tuple[LoadedPack, str] | None = None
    if slot is not None and slot.present:
        assert repo is not None
        kept = _kept(repo, selector, slot, progress, use_cache)
        if not isinstance(kept, tuple):
            return kept
        read, known = kept[0], kept[1:]
    early = (read or _settings(root)) if selector.mode in _MODES_WITH_SETTINGS else None
    taken_ns = time.time_ns()  # before git reads a file: a later edit shows in the stamps
    from reviewtui.git.background import Collecting

    collecting = Collecting(repo, selector, root, early)
    from reviewtui.analysis import analyse_change, open_unit_cache
    from reviewtui.rules.engine import pack_engine
    from reviewtui.rules.packs import load_rule_pack
    from reviewtui.units.languages import repository_languages
    from reviewtui.units.vocabulary import vocabulary_for

    settings = early or read or _settings(root)
    pack = known[0] if known is not None else load_rule_pack(root)
    vocabulary = vocabulary_for(pack.pack.tagging, pack.sources)
    engine = pack_engine(pack)
    cache = None
    if (use_cache and settings.units.cache and repo is not None
            and selector.mode is not SelectorMode.PATCH):
        cache = open_unit_cache(repo.common_dir, settings, pack.pack)
    change_set = collecting.result()
    reader = ContentReader(repo, change_set, settings.git.max_file_bytes)
    analysis = analyse_change(change_set, reader, settings.units, vocabulary, engine,
                              cache=cache, languages=repository_languages(repo, change_set),
                              progress=progress, cached_only=cached_only)
    stamps = None
    if repo is not None and change_set.new_side.kind is SideKind.WORKTREE:
        from reviewtui.git.refresh import stamp_change

        stamps = stamp_change(repo, change_set, taken_ns)
    snapshot = None
    if slot is not None and cache is not None and repo is not None:
        from reviewtui.pipeline.snapshot import snapshot_key, write_snapshot

        key = known[1] if known is not None else snapshot_key(repo, settings, pack.pack)
        snapshot = write_snapshot(slot, key, change_set, analysis.units, analysis.suggestions)
    return LoadedChange(repo, settings, change_set, reader, analysis.units, pack,
                        analysis.suggestions, selector, use_cache, stamps,
                        config_stamp(root, pack) if stamps is not None else (),
                        snapshot=snapshot)


def _kept(repo: GitRepo, selector: ChangeSelector, slot: Slot,
          progress: ProgressCallback | None, use_cache: bool,
          ) -> LoadedChange | tuple[Settings, LoadedPack, str]:
    """The change as its snapshot keeps it; else the settings, rule packs and key read to
    look for it (the snapshot is written again under that key)."""
    from reviewtui.pipeline.snapshot import read_snapshot, snapshot_key
    from reviewtui.rules.packs import load_rule_pack

    settings = _settings(repo.root)
    pack = load_rule_pack(repo.root)
    key = snapshot_key(repo, settings, pack.pack)
    found = read_snapshot(slot, key) if settings.units.cache else None
    if found is None:
        return settings, pack, key
    decoded, snapshot = found
    if progress is not None:  # every file done at once; the units come with the change (a
        # loading view would only show them for a moment, at a cost: see app.open_change)
        from reviewtui.analysis.progress import AnalysisProgress

        files = len(decoded.change_set.files)
        progress(AnalysisProgress(files, files, 0.0, ()))
    reader = ContentReader(repo, decoded.change_set, settings.git.max_file_bytes)
    return LoadedChange(repo, settings, decoded.change_set, reader, decoded.units, pack,
                        decoded.suggestions, selector, use_cache, snapshot=snapshot)


def snapshot_kept(path: str | Path | None, selector: ChangeSelector) -> bool:
    """Is a snapshot of this commit or range kept under the key it would be read with? Its
    header alone is read (``load_change`` checks the rest)."""
    from reviewtui.git.runner import open_repository
    from reviewtui.pipeline.snapshot import committed_slot, holds, snapshot_key
    from reviewtui.rules import load_rule_pack

    repo = open_repository(path)
    slot = committed_slot(repo, selector)
    if slot is None or not slot.present:
        return False
    settings = _settings(repo.root)
    return settings.units.cache and holds(
        slot, snapshot_key(repo, settings, load_rule_pack(repo.root).pack))
