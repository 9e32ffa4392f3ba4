"""The shared pipeline front: repository -> settings -> change -> units -> rules -> index.

The headless commands and the TUI both start here, so they always see the same units and the
same rule suggestions. Scanners run only when asked (``scan``), never as part of loading.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from reviewtui.config import Settings, load_settings
from reviewtui.errors import NotARepositoryError
from reviewtui.git import (
    ChangeSelector,
    ChangeSet,
    ContentReader,
    GitRepo,
    SelectorMode,
    collect_change,
    open_repository,
)
from reviewtui.git.model import ChangeStatus, SideKind
from reviewtui.models import ReviewIndex
from reviewtui.rules import (
    LoadedPack,
    RuleContext,
    RuleEngine,
    RuleSuggestion,
    fill_rule_fields,
    load_rule_pack,
)
from reviewtui.rules.scan_mapping import apply_findings, findings_by_unit
from reviewtui.rules.scanners import ScanReport, ScanTarget, run_scanners
from reviewtui.units import ReviewUnit, build_review_index, build_units
from reviewtui.units.vocabulary import vocabulary_for


def scanner_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reviewtui" / "scanners"


@dataclass(frozen=True)
class LoadedChange:
    repo: GitRepo | None
    settings: Settings
    change_set: ChangeSet
    reader: ContentReader
    units: list[ReviewUnit]
    rule_pack: LoadedPack
    rules: RuleEngine
    suggestions: dict[str, RuleSuggestion] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.change_set.repo_root

    def unit(self, unit_id: str) -> ReviewUnit | None:
        """The unit with this id, or the only one starting with it."""
        matches = [u for u in self.units if u.unit_id == unit_id]
        if not matches:
            matches = [u for u in self.units if u.unit_id.startswith(unit_id)]
        return matches[0] if len(matches) == 1 else None

    def review_index(self, scan: ScanReport | None = None) -> ReviewIndex:
        index = build_review_index(self.change_set, self.units)
        if scan is None:
            return fill_rule_fields(index, self.suggestions)
        findings = findings_by_unit(self.units, scan.issues)
        return fill_rule_fields(index, apply_findings(self.suggestions, findings), findings)

    def scan_targets(self) -> list[ScanTarget]:
        """The after side of every changed file with hunks (deleted files have none)."""
        languages = {u.file_path: u.language for u in self.units if u.hunks}
        targets: list[ScanTarget] = []
        for change in self.change_set.files:
            if change.path not in languages or change.status is ChangeStatus.DELETE:
                continue
            content = self.reader.new(change)
            if content is None:
                continue
            on_disk = self.change_set.new_side.kind is SideKind.WORKTREE
            if not on_disk and self.repo is not None:
                disk = self.root / change.path
                try:
                    on_disk = disk.is_file() and disk.read_bytes() == content
                except OSError:
                    on_disk = False
            targets.append(ScanTarget(change.path, languages[change.path], content, on_disk))
        return targets

    def scan(self, tools: Collection[str] | None = None) -> ScanReport:
        """Run the installed scanners on the changed files ("after" side), cached."""
        return run_scanners(self.root, self.scan_targets(), self.rule_pack.pack.scanners,
                            cache_dir=scanner_cache_dir(), tools=tools)


def _file_text(change_set: ChangeSet, reader: ContentReader) -> RuleContext:
    by_path = {change.path: change for change in change_set.files}
    cache: dict[str, str | None] = {}

    def text(path: str) -> str | None:
        if path not in cache:
            change = by_path.get(path)
            raw = reader.new(change) if change is not None else None
            cache[path] = raw.decode("utf-8", "replace") if raw is not None else None
        return cache[path]

    return RuleContext(file_text=text)


def load_change(path: str | Path | None, selector: ChangeSelector) -> LoadedChange:
    """Open the repository at ``path``, cut the selected change into units and score them."""
    repo: GitRepo | None
    try:
        repo = open_repository(path)
    except NotARepositoryError:
        if selector.mode is not SelectorMode.PATCH:
            raise
        repo = None  # a patch can be reviewed outside a repository, without file contents
    root = repo.root if repo is not None else Path(path or ".").resolve()
    settings = load_settings(root)
    pack = load_rule_pack(root)
    change_set = collect_change(repo, selector, max_file_bytes=settings.git.max_file_bytes,
                                patch_root=root,
                                default_branch_name=settings.git.default_branch)
    reader = ContentReader(repo, change_set, settings.git.max_file_bytes)
    vocabulary = vocabulary_for(pack.pack.tagging, pack.sources)
    units = build_units(change_set, reader, settings.units, vocabulary)
    engine = RuleEngine(pack.pack)
    suggestions = engine.evaluate_all(units, _file_text(change_set, reader))
    return LoadedChange(repo, settings, change_set, reader, units, pack, engine, suggestions)
