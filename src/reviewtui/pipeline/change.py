"""A loaded change and what is asked of it: refresh, rescoring, the priority order, the index,
the plan and the context bundles.

``pipeline.loading.load_change`` gives it. Scanners run only when asked (``scan``), never as
part of loading. Refreshing and rescoring are ``pipeline.refreshing``'s, planning and bundles
``pipeline.planning``'s: the methods here hand over to them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.git.contents import ContentReader
from reviewtui.git.model import ChangeSet, ChangeStatus, SideKind
from reviewtui.git.selector import ChangeSelector, SelectorMode

if TYPE_CHECKING:
    import threading

    # Settings and the rule and unit stages are imported while git computes the diff (see
    # load_change); the LLM stack (openai, tiktoken) loads only when planning.
    from reviewtui.config import Settings
    from reviewtui.context import BundleStream
    from reviewtui.git.intent import ChangeIntent
    from reviewtui.git.refresh import WorktreeStamps
    from reviewtui.git.runner import GitRepo  # GitPython: imported when load_change opens one
    from reviewtui.history.fixes import FixMatcher
    from reviewtui.models import BundleSet, ReviewIndex
    from reviewtui.pipeline.snapshot import ChangeSnapshot
    from reviewtui.plan import FusedPlan, OverrideSet
    from reviewtui.plan.conflicts import EvidenceLog
    from reviewtui.plan.evidence import UnitFacts
    from reviewtui.rules import LoadedPack, RuleEngine, RuleSuggestion
    from reviewtui.rules.scanners import ScanReport, ScanTarget
    from reviewtui.units import ReviewUnit


def scanner_cache_dir() -> Path:
    from reviewtui.config import user_cache_dir

    return user_cache_dir() / "scanners"


@dataclass(frozen=True)
class LoadedChange:
    repo: GitRepo | None
    settings: Settings
    change_set: ChangeSet
    reader: ContentReader
    units: list[ReviewUnit]
    rule_pack: LoadedPack
    suggestions: dict[str, RuleSuggestion] = field(default_factory=dict)
    selector: ChangeSelector | None = None  # how it was collected (for ``refresh``)
    use_cache: bool = True
    stamps: WorktreeStamps | None = None  # the working-tree files as read (for ``refresh``)
    config_stamp: tuple[object, ...] = ()  # the settings and rule packs as read
    # the learned priority's features per unit, once ``with_reach`` has counted them
    learned_features: dict[str, dict[str, float]] = field(default_factory=dict)
    # what gave each unit its history features (the fix commits, the authors), for explain
    learned_evidence: dict[str, dict[str, str]] = field(default_factory=dict)
    intent: ChangeIntent | None = None  # the stated purpose, once ``with_intent`` gathered it
    # a commit's or a range's kept analysis (``pipeline.snapshot``): read from, or written
    snapshot: ChangeSnapshot | None = field(default=None, compare=False, repr=False)

    @property
    def rules(self) -> RuleEngine:
        """The rule packs' engine (built when first used: see ``rules.engine.pack_engine``)."""
        from reviewtui.rules.engine import pack_engine

        return pack_engine(self.rule_pack)

    @property
    def root(self) -> Path:
        return self.change_set.repo_root

    @property
    def refreshable(self) -> bool:
        """Can collecting again show something new? Not for a commit, a range or a patch."""
        return self.selector is not None and self.repo is not None and self.selector.mode not in (
            SelectorMode.COMMIT, SelectorMode.RANGE, SelectorMode.PATCH)

    def refresh(self) -> LoadedChange:
        """The same selector collected again: edits in the working tree or the index show up
        (``pipeline.refreshing.refreshed``). ``UsageError`` for a commit, a range or a patch."""
        from reviewtui.pipeline import refreshing

        return refreshing.refreshed(self)

    def with_intent(self, description: str | None = None, *, stored: str | None = None,
                    source: str = "--description") -> LoadedChange:
        """This change with its stated purpose gathered (``git.intent.gather_intent``): the
        commits' messages, the branch, and the first description of ``description`` (given
        with ``--description``, or a pull request's; ``source`` names it), ``stored`` (written
        in the workbench, kept in the session) and the ``[review] description`` setting."""
        from reviewtui.git.intent import gather_intent

        chosen = next(((text, origin) for text, origin in (
            (description, source), (stored, "workbench"),
            (self.settings.review.description, "config")) if text and text.strip()),
            (None, None))
        intent = gather_intent(self.repo, self.change_set, description=chosen[0],
                               description_source=chosen[1])
        return replace(self, intent=intent)

    def unit(self, unit_id: str) -> ReviewUnit | None:
        """The unit with this id, or the only one starting with it."""
        matches = [u for u in self.units if u.unit_id == unit_id]
        if not matches:
            matches = [u for u in self.units if u.unit_id.startswith(unit_id)]
        return matches[0] if len(matches) == 1 else None

    @functools.cached_property
    def units_by_id(self) -> dict[str, ReviewUnit]:
        return {unit.unit_id: unit for unit in self.units}

    def facts(self, unit_id: str) -> UnitFacts | None:
        """What an evidence record says about one of this change's units (its rule scores)."""
        from reviewtui.plan.evidence import UnitFacts

        unit = self.units_by_id.get(unit_id)
        if unit is None:
            return None
        suggestion = self.suggestions.get(unit_id)
        return UnitFacts(unit.unit_id, unit.file_path, unit.new_compact or unit.old_compact,
                         unit.language, unit.tags,
                         suggestion.context_level if suggestion else None,
                         suggestion.confidence if suggestion else None,
                         suggestion.risk.value if suggestion else None)

    def review_index(self, scan: ScanReport | None = None) -> ReviewIndex:
        from reviewtui.rules import scored_review_index

        if scan is None:
            return scored_review_index(self.change_set, self.units, self.suggestions)
        from reviewtui.rules.scan_mapping import apply_findings, findings_by_unit

        findings = findings_by_unit(self.units, scan.issues)
        return scored_review_index(self.change_set, self.units,
                                   apply_findings(self.suggestions, findings), findings)

    def with_reach(self, *, keep: bool = True,
                   progress: Callable[[int, int], None] | None = None) -> LoadedChange:
        """This change in priority order's terms: every unit's priority counting its reach
        and its learned part (``rules.learned_priority``); ``progress`` is told (files
        blamed, files to blame) while the history of the changed lines is read."""
        if self.repo is None or any(s.reach_counted for s in self.suggestions.values()):
            return self
        snapshot = (self.snapshot if self.snapshot is not None
                    and self.snapshot.fits(self.units, self.suggestions) else None)
        kept = snapshot.counted() if snapshot is not None else None
        if kept is not None:
            return replace(self, suggestions=kept.suggestions, learned_features=kept.features,
                           learned_evidence=kept.evidence)
        from reviewtui.rules.learned_priority import priority_order

        order = priority_order(self.repo, self.change_set, self.units, self.suggestions,
                               self.root, keep=keep, progress=progress,
                               matcher=self.fix_matcher())
        if snapshot is not None and keep:
            snapshot.keep_counted(order.suggestions, order.features, order.evidence)
        return replace(self, suggestions=order.suggestions, learned_features=order.features,
                       learned_evidence=order.evidence)

    def priority_reasons(self, unit_id: str) -> tuple[str, ...]:
        """Why a unit stands where it does in the priority order (the workbench's detail)."""
        from reviewtui.rules.learned_priority import priority_reasons

        suggestion = self.suggestions.get(unit_id)
        unit = self.units_by_id.get(unit_id)
        if suggestion is None or unit is None:
            return ()
        return priority_reasons(unit, suggestion, self.learned_features.get(unit_id),
                                self.learned_evidence.get(unit_id), self.root)

    def triage_features(self, *, keep: bool = True,
                        progress: Callable[[int, int], None] | None = None
                        ) -> dict[str, dict[str, float]]:
        """The learned priority's features of every unit, without the rule parts (kept per
        base commit in .git/reviewtui/history unless ``keep`` is off)."""
        from reviewtui.rules.learned_priority import triage_features

        return triage_features(self.repo, self.change_set, self.units, self.suggestions,
                               keep=keep, progress=progress, matcher=self.fix_matcher())[0]

    def fix_matcher(self) -> FixMatcher:
        """What a bug fix is for the history signals: the ``[eval]`` patterns eval mines with."""
        from reviewtui.history.fixes import fix_matcher

        return fix_matcher(self.settings.eval.fix_patterns, self.settings.eval.exclude_patterns)

    def scan_targets(self) -> list[ScanTarget]:
        """The after side of every changed file with hunks (deleted files have none)."""
        from reviewtui.rules.scanners import ScanTarget

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

    def scan(self, tools: Collection[str] | None = None,
             paths: Collection[str] | None = None) -> ScanReport:
        """Run the installed scanners on the changed files ("after" side), cached."""
        from reviewtui.rules.scanners import run_scanners

        targets = self.scan_targets()
        if paths is not None:
            targets = [t for t in targets if t.path in paths]
        return run_scanners(self.root, targets, self.rule_pack.pack.scanners,
                            cache_dir=scanner_cache_dir(), tools=tools)

    def conflict_log(self) -> EvidenceLog | None:
        """The per-repository evidence log (in the common git dir), with the stamps of this
        change: the rule pack's identity and the change's key. None outside a repository."""
        from reviewtui.plan.conflicts import EvidenceLog, conflict_log_path
        from reviewtui.rules.packs import pack_identity

        if self.repo is None:
            return None
        return EvidenceLog(conflict_log_path(self.repo.common_dir),
                           pack_identity(self.rule_pack.pack), self.change_set.key)

    def rescored(self) -> LoadedChange:
        """The same change scored by the repository's rule packs as they are now (after a
        learned rule was accepted, say), without collecting it again
        (``pipeline.refreshing.rescored``)."""
        from reviewtui.pipeline import refreshing

        return refreshing.rescored(self)

    def plan(self, *, use_llm: bool = True, overrides: OverrideSet | None = None,
             scan: ScanReport | None = None, fresh: bool = False,
             cancel: threading.Event | None = None) -> FusedPlan:
        """The fused plan: the LLM planner when configured (and wanted), else the rules; the
        model's plan kept from an earlier run on the same inputs unless ``fresh``
        (``planning.plan``)."""
        from reviewtui.pipeline import planning

        return planning.plan(self, use_llm=use_llm, overrides=overrides, scan=scan,
                             fresh=fresh, cancel=cancel)

    def replan(self, previous: FusedPlan, before: Sequence[ReviewUnit] = (), *,
               follow: bool = True) -> FusedPlan:
        """``previous``, made for ``before`` (the units of an earlier version), carried over
        to this change after a refresh (``planning.carry_plan``)."""
        from reviewtui.pipeline import planning

        return planning.replan(self, previous, before, follow=follow)

    def bundle_stream(self, plan: FusedPlan, unit_ids: Sequence[str] | None = None, *,
                      unit_budget: int | None = None, review_budget: int | None = None,
                      batches: int | None = 1, scan: ScanReport | None = None) -> BundleStream:
        """Context bundles for ``unit_ids`` built lazily in priority order
        (``planning.bundle_stream``)."""
        from reviewtui.pipeline import planning

        return planning.bundle_stream(self, plan, unit_ids, unit_budget=unit_budget,
                                      review_budget=review_budget, batches=batches, scan=scan)

    def bundles(self, plan: FusedPlan, unit_ids: Sequence[str] | None = None, *,
                unit_budget: int | None = None, review_budget: int | None = None,
                batches: int | None = 1, scan: ScanReport | None = None) -> BundleSet:
        """``bundle_stream`` collected: every included bundle and the allocation."""
        return self.bundle_stream(plan, unit_ids, unit_budget=unit_budget,
                                  review_budget=review_budget, batches=batches,
                                  scan=scan).collect()


def config_stamp(root: Path, pack: LoadedPack) -> tuple[object, ...]:
    """The files the settings and the rule packs were read from, as they are on disk now."""
    from reviewtui.config import REPO_CONFIG_NAME, user_config_path
    from reviewtui.git.refresh import stamp

    paths = [user_config_path(), root / REPO_CONFIG_NAME, root / ".reviewtui", *pack.sources]
    return tuple((str(p), stamp(p)) for p in paths)
