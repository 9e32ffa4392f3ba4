"""The context scheduler (seeds 000/001): one ``ContextBundle`` per planned unit, under budget.

For each unit: the diff (always), the text of its final level, then its extra requests, in that
rank (diff, level context, previous version, callers and search results, scanner issues), each
counted as it is sent (``sections``), after the unit's heading and metadata block. Work
is lazy: every unit is first sized from cheap data (``estimate``), the review budget goes to
whole units in priority order (``allocate``), and only then are the chosen units' files read,
parsed and searched -- a piece that would not fit its unit's budget is never fetched at all, and
its account says so. File versions are read once per change; parse trees are kept for the few
files in use, so memory does not grow with the change.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from reviewtui.code import FileStructure
from reviewtui.config import ContextSettings
from reviewtui.context.budget import Fitter, Rendering
from reviewtui.context.estimate import Estimator, UnitEstimate
from reviewtui.context.excerpt import parse_structure
from reviewtui.context.levels import LEVEL_FIELDS, diff_excerpt, level_context, previous_version
from reviewtui.context.priority import UnitPriority
from reviewtui.context.render import SECTION_TITLES, head_part, listing, notes_part
from reviewtui.context.requests import RequestResults, RequestRunner
from reviewtui.context.sections import Issues, Snippets, code
from reviewtui.git import ChangeSet, ContentReader, FileChange
from reviewtui.models import (
    BudgetAccount,
    BundleMeta,
    CodeSnippet,
    ContextBundle,
    ContextLevel,
    ExtraRequest,
    LineNumbers,
)
from reviewtui.units.model import ReviewUnit
from reviewtui.units.path_tags import BINARY_BY_ATTRIBUTE_NOTE, KEPT_ON_DISK_NOTE

Counter = Callable[[str], int]
_TREES_KEPT = 32  # parse trees of the files in use (units come in priority, not file, order)


@dataclass(frozen=True)
class BundleRequest:
    """What to build for one unit: its final level and extra requests (from the fused plan),
    and what its place in the allocation order depends on."""

    unit_id: str
    level: ContextLevel
    extra_requests: tuple[ExtraRequest, ...] = ()
    priority: UnitPriority = field(default_factory=UnitPriority)


def _removes_only(unit: ReviewUnit) -> bool:
    return unit.change_type == "delete" or (unit.added_lines == 0 and unit.removed_lines > 0)


def _same(text: str) -> str:
    return text


def _cleaned(snippet: CodeSnippet, clean: Callable[[str], str]) -> CodeSnippet:
    return snippet.model_copy(update={"snippet": clean(snippet.snippet)})


class ContextScheduler:
    def __init__(self, units: Sequence[ReviewUnit], change_set: ChangeSet, reader: ContentReader,
                 settings: ContextSettings, runner: RequestRunner, *, count: Counter,
                 counter_name: str, redact: Callable[[str], str] | None = None) -> None:
        self._redact = redact or _same
        self._units = {unit.unit_id: unit for unit in units}
        self._changes = {change.path: change for change in change_set.files}
        self._reader = reader
        self.settings = settings
        self._runner = runner
        self._count = count
        self.counter_name = counter_name
        self._trees: OrderedDict[tuple[str, str], FileStructure | None] = OrderedDict()
        self._estimator = Estimator(settings, self._size_of, self._names_of, runner.findings)

    # --- sizes, before any work -----------------------------------------------------------

    def unit(self, unit_id: str) -> ReviewUnit | None:
        return self._units.get(unit_id)

    def _size_of(self, unit: ReviewUnit, side: str) -> int | None:
        change = self._changes.get(unit.file_path)
        return self._reader.size(change, side) if change is not None else None

    def _names_of(self, unit: ReviewUnit, request: ExtraRequest) -> int:
        return len(self._runner.names(unit, request))

    def estimate(self, request: BundleRequest) -> UnitEstimate:
        unit = self._units[request.unit_id]
        return self._estimator.unit(unit, request.level, request.extra_requests)

    def prefetch_sizes(self, requests: Sequence[BundleRequest]) -> None:
        """File sizes for the estimates of ``requests``, in one git process."""
        self._reader.prefetch_sizes(self._changes[u.file_path] for r in requests
                                    if (u := self._units[r.unit_id]).file_path in self._changes)

    def prefetch(self, work: Sequence[tuple[BundleRequest, UnitEstimate]], limit: int) -> None:
        """Read the files and batch the name searches of units about to be built: every
        request that may still find room under ``limit`` (searches are estimated generously:
        most find little), so that building rarely needs a ``git grep`` of its own."""
        new: list[FileChange] = []
        old: list[FileChange] = []
        for request, _ in work:
            unit = self._units[request.unit_id]
            change = self._changes.get(unit.file_path)
            if change is None:
                continue
            if request.level is not ContextLevel.DIFF_ONLY:
                new.append(change)
            if _removes_only(unit) or any(r.type == "previous_version"
                                          for r in request.extra_requests):
                old.append(change)
        self._reader.prefetch(new, old=False)
        self._reader.prefetch(old, new=False)
        planned: list[tuple[ReviewUnit, list[ExtraRequest]]] = []
        for request, estimate in work:
            used = estimate.diff + estimate.level + estimate.previous_version
            fitting: list[ExtraRequest] = []
            for extra, tokens in zip(request.extra_requests, estimate.requests, strict=True):
                if tokens and used < limit:
                    fitting.append(extra)
                    used += tokens
            planned.append((self._units[request.unit_id], fitting))
        self._runner.prefetch(planned)

    # --- building one bundle -------------------------------------------------------------

    def _version(self, change: FileChange | None, side: str) -> bytes | None:
        if change is None or change.is_binary or change.kind.value != "file":
            return None
        return self._reader.new(change) if side == "new" else self._reader.old(change)

    def _unread(self, change: FileChange | None, side: str, otherwise: str) -> str:
        """Why a side of ``change`` has no text: over ``git.max_file_bytes`` (not read), or
        ``otherwise``."""
        size = self._reader.size(change, side) if change is not None else None
        if change is None or size is None or size <= self._reader.max_bytes:
            return otherwise
        path = (change.new_path if side == "new" else change.old_path) or change.path
        return (f"{path} is {size:,} bytes, over git.max_file_bytes "
                f"({self._reader.max_bytes:,}): not read")

    def _tree(self, unit: ReviewUnit, side: str, data: bytes | None) -> FileStructure | None:
        if data is None:
            return None
        key = (unit.file_path, side)
        if key in self._trees:
            self._trees.move_to_end(key)
            return self._trees[key]
        tree = parse_structure(unit.language, data)
        self._trees[key] = tree
        if len(self._trees) > _TREES_KEPT:
            self._trees.popitem(last=False)
        return tree

    def _level_text(self, unit: ReviewUnit, change: FileChange | None,
                    level: ContextLevel) -> str | None:
        new = self._version(change, "new")
        old = self._version(change, "old")
        if level is ContextLevel.FULL_FILE:  # no structure needed
            return level_context(level, unit, new, None, self.settings, old_text=old)
        if _removes_only(unit):
            return level_context(level, unit, new, None, self.settings, old_text=old,
                                 old_structure=self._tree(unit, "old", old))
        return level_context(level, unit, new, self._tree(unit, "new", new), self.settings,
                             old_text=old)

    def build_one(self, request: BundleRequest, estimate: UnitEstimate,
                  limit: int) -> ContextBundle:
        """The bundle of one unit within ``limit`` tokens as it is sent (rendered); pieces that
        would not fit are not fetched (no read, parse, search or count) and show as
        ``not_fetched``."""
        unit = self._units[request.unit_id]
        change = self._changes.get(unit.file_path)
        extras = request.extra_requests
        meta = BundleMeta(file_path=unit.file_path, old_path=unit.old_path,
                          location=unit.location, language=unit.language,
                          change_type=unit.change_type, tags=list(unit.tags),
                          line_numbers=LineNumbers(new_compact=unit.new_compact,
                                                   old_compact=unit.old_compact))

        def head(account: BudgetAccount) -> str:
            return head_part(ContextBundle.model_construct(
                unit_id=unit.unit_id, meta=meta, final_context_level=request.level,
                extra_requests=list(extras), diff="", budget=account))

        fit = Fitter(limit, self._count, self.counter_name,
                     Rendering(head, notes_part, listing(self._count, limit)))
        labels = [" ".join([extra.type, *(repr(n) for n in self._runner.names(unit, extra))])
                  for extra in extras]
        level_name = LEVEL_FIELDS.get(request.level)
        fit.expect([*([level_name] if level_name else []), *(
            "previous_version" if extra.type == "previous_version" else "scanner_issues[0]"
            if extra.type == "scanner_issues" else label
            for extra, label in zip(extras, labels, strict=True))])
        language = unit.language
        if change is not None and change.binary_by_attribute:
            fit.note(f"{BINARY_BY_ATTRIBUTE_NOTE}: no content beyond the diff summary")
        elif change is not None and change.is_binary:
            fit.note("binary file: no content beyond the diff summary")
        if change is not None and change.kept_on_disk:
            fit.note(KEPT_ON_DISK_NOTE)
        clean = self._redact
        fit.add("diff", clean(diff_excerpt(unit)), required=True, wrap=code("Diff", "diff"))
        name = level_name
        if name is not None:
            if fit.worth(estimate.level):
                text = self._level_text(unit, change, request.level)
                text = clean(text) if text is not None else None
                if text is None and change is not None and not change.is_binary:
                    fit.note(f"{request.level.value}: "
                             + self._unread(change, "new", "file content not available"))
                fit.add(name, text, wrap=code(SECTION_TITLES[name], language))
            else:
                fit.skip(name, estimate.level)
        if any(r.type == "previous_version" for r in extras):
            self._previous(unit, change, fit, estimate)
        callers = Snippets("callers", "Callers", language)
        found = Snippets("search_results", "Search results", language)
        seen: set[tuple[str, int]] = set()
        for extra, tokens, label in zip(extras, estimate.requests, labels, strict=True):
            if extra.type in ("previous_version", "scanner_issues"):
                continue
            fit.resolve(label)
            if not fit.worth(tokens):
                fit.skip(label, tokens)
                continue
            part = RequestResults()
            self._runner.run_one(unit, extra, part)
            for note in part.notes:
                fit.note(clean(note))
            for snippet in part.callers:
                callers.add(fit, _cleaned(snippet, clean), seen)
            for snippet in part.search_results:
                found.add(fit, _cleaned(snippet, clean), seen)
        issues = Issues()
        for extra in extras:
            if extra.type == "scanner_issues":
                part = RequestResults()
                self._runner.run_one(unit, extra, part)
                for note in part.notes:
                    fit.note(clean(note))
                for finding in part.scanner_issues:
                    issues.add(fit, finding.model_copy(update={"message": clean(finding.message)}))
        account = fit.account()  # settled: the texts below are final
        return ContextBundle(
            unit_id=unit.unit_id, meta=meta, final_context_level=request.level,
            extra_requests=list(extras), diff=fit.text("diff") or "",
            function_context=fit.text("function_context"),
            file_context=fit.text("file_context"), full_file=fit.text("full_file"),
            previous_version=fit.text("previous_version"), callers=callers.kept(fit),
            search_results=found.kept(fit), scanner_issues=issues.kept(fit),
            notes=list(fit.notes), budget=account,
        )

    def _previous(self, unit: ReviewUnit, change: FileChange | None, fit: Fitter,
                  estimate: UnitEstimate) -> None:
        if not fit.worth(estimate.previous_version):
            fit.skip("previous_version", estimate.previous_version)
            return
        old = self._version(change, "old")
        before = previous_version(unit, old, self._tree(unit, "old", old), self.settings)
        before = self._redact(before) if before is not None else None
        if before is None:
            fit.note("previous_version: no earlier version (a new file)"
                     if unit.change_type == "add" else "previous_version: "
                     + self._unread(change, "old", "the earlier version is not available"))
        fit.add("previous_version", before,
                wrap=code(SECTION_TITLES["previous_version"], unit.language))
