"""What the agent works in: one loaded change, its fused plan, its bundles, and the tools.

Bundles are built lazily (the agent asks for a unit's bundle only when it wants it) and cached;
the index is rendered as the compact Markdown table the review prompt and the chat's static
context use (seed 001 §5: prompt + index Markdown + bundles).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reviewtui.agent.memory import ToolMemory
from reviewtui.agent.tools import ToolBox, ToolContext
from reviewtui.context import ProjectSearch
from reviewtui.git import ChangeSet
from reviewtui.git.contents import SideLines
from reviewtui.git.intent_text import intent_budget, intent_markdown
from reviewtui.models import BundleSet, ContextBundle, IndexUnit, ReviewIndex, ScannerFinding
from reviewtui.pipeline import LoadedChange
from reviewtui.plan import FusedItem, FusedPlan
from reviewtui.rules.scan_mapping import findings_by_unit
from reviewtui.rules.scanners import ScanReport

SKIPPED_NAMED = 30  # skipped units named in the chat's index; the rest are counted


def change_key(change_set: ChangeSet) -> str:
    """Which change a session belongs to: the mode and the two sides (commit ids when known)."""
    return change_set.key


class Workspace:
    """A change ready for the agent; safe to share between rounds of one session."""

    def __init__(self, loaded: LoadedChange, plan: FusedPlan,
                 scan: ScanReport | None = None) -> None:
        self.loaded = loaded
        self.plan = plan
        self.scan = scan
        self.index: ReviewIndex = loaded.review_index(scan)
        self._units = {u.unit_id: u for u in self.index.units}
        self._bundles: dict[str, ContextBundle] = {}
        self._search: ProjectSearch | None = None
        self._lines = SideLines(loaded.change_set, loaded.reader)

    @property
    def repo_key(self) -> str:
        return str(self.loaded.root)

    @property
    def change_key(self) -> str:
        return change_key(self.loaded.change_set)

    def intent_markdown(self, count: Callable[[str], int], context_window: int) -> str:
        """The change's stated purpose for a prompt, within ``intent_budget`` of
        ``context_window``; "" when none was gathered or there is none."""
        intent = self.loaded.intent
        if intent is None:
            return ""
        return intent_markdown(intent, count, intent_budget(context_window))

    def index_unit(self, unit_id: str) -> IndexUnit | None:
        found = self._units.get(unit_id)
        if found is None:
            matches = [u for key, u in self._units.items() if key.startswith(unit_id)]
            found = matches[0] if len(matches) == 1 else None
        return found

    def bundles(self, unit_ids: Sequence[str]) -> list[ContextBundle]:
        missing = [u for u in unit_ids if u not in self._bundles]
        if missing:
            for bundle in self.loaded.bundles(self.plan, missing, scan=self.scan).bundles:
                self._bundles[bundle.unit_id] = bundle
        return [self._bundles[u] for u in unit_ids if u in self._bundles]

    def allocate(self, unit_ids: Sequence[str], *, batches: int | None) -> BundleSet:
        """The bundles of ``unit_ids`` that fit ``batches`` review budgets (None: all of
        them), by priority; the allocation lists the units left out and why."""
        found = self.loaded.bundles(self.plan, unit_ids, batches=batches, scan=self.scan)
        for bundle in found.bundles:
            self._bundles[bundle.unit_id] = bundle
        return found

    def bundle(self, unit_id: str) -> ContextBundle | None:
        unit = self.index_unit(unit_id)
        if unit is None:
            return None
        found = self.bundles([unit.unit_id])
        return found[0] if found else None

    def scanner_issues(self, path: str) -> list[ScannerFinding] | None:
        if self.scan is None:
            return None
        by_unit = findings_by_unit(self.loaded.units, self.scan.issues)
        return [f for u in self.loaded.units if u.file_path == path
                for f in by_unit.get(u.unit_id, [])]

    def search(self) -> ProjectSearch | None:
        if self._search is None and self.loaded.repo is not None:
            self._search = ProjectSearch(self.loaded.repo, self.loaded.change_set,
                                         self.loaded.reader, self.loaded.settings.context)
        return self._search

    def toolbox(self, memory: ToolMemory,
                stored_elsewhere: Callable[[str], str | None] | None = None) -> ToolBox:
        """The agent's tools; ``get_tool_result`` reads ``memory``, then ``stored_elsewhere``
        (the session store, for results of earlier processes)."""
        def unit_json(unit_id: str) -> dict[str, Any] | None:
            unit = self.index_unit(unit_id)
            return unit.model_dump(mode="json") if unit is not None else None

        def stored(ref_id: str) -> str | None:
            record = memory.get(ref_id)
            if record is not None:
                return record.content
            return stored_elsewhere(ref_id) if stored_elsewhere is not None else None

        loaded = self.loaded
        return ToolBox(ToolContext(
            root=loaded.root, repo=loaded.repo, change_set=loaded.change_set,
            reader=loaded.reader, search=self.search(), unit=unit_json, bundle=self.bundle,
            scanner_issues=self.scanner_issues, tool_result=stored))

    def line_text(self, path: str, line: int) -> str | None:
        """Line ``line`` of ``path`` on the after side (the before side for deleted files)."""
        return self.side_line(path, "new", line)

    def file_bytes(self, path: str) -> bytes | None:
        """``path`` as reviewed (the after side), what a fix is checked against."""
        return self._lines.data(path)

    def side_line(self, path: str, side: str, line: int) -> str | None:
        """Line ``line`` of ``path`` on the ``new`` (after) or ``old`` (before) side; the new
        side of a deleted file is its old one."""
        return self._lines.line(path, side, line)

    def index_markdown(self, unit_ids: Sequence[str] | None = None) -> str:
        """The review index as a Markdown table (kept units, or ``unit_ids``); for the kept
        units, a line naming the skipped ones after it (``skipped_line``)."""
        items = {item.unit_id: item for item in self.plan.plan}
        wanted = list(unit_ids) if unit_ids is not None else [
            i.unit_id for i in self.plan.plan if not i.skip_review]
        meta = self.index.review_metadata
        total = self.index.summary.total_lines
        lines = [f"Change: {meta.mode} {meta.old} -> {meta.new}; {meta.total_files} files, "
                 f"{meta.total_changes} units, +{total.added} -{total.removed}; "
                 f"{len(wanted)} units for review.", "",
                 "| unit | location | type | tags | level | risk |", "|---|---|---|---|---|---|"]
        lines += [row for unit_id in wanted if (row := self.index_row(unit_id, items))]
        if unit_ids is None:
            skipped = [i for i in self.plan.plan if i.skip_review and i.unit_id in self._units]
            if skipped:
                lines += ["", self.skipped_line(skipped)]
        return "\n".join(lines)

    def skipped_line(self, skipped: Sequence[FusedItem]) -> str:
        """The skipped units, by id and place (``SKIPPED_NAMED`` of them, the rest counted):
        without them "what changed in the lockfile?" had nothing to go on in a chat, though
        ``get_unit`` reads any unit."""
        named = ", ".join(f"{i.unit_id} {self._units[i.unit_id].location}"
                          for i in skipped[:SKIPPED_NAMED])
        more = f" and {len(skipped) - SKIPPED_NAMED} more" if len(skipped) > SKIPPED_NAMED else ""
        return (f"Skipped, not for review ({len(skipped)}; get_unit reads one): "
                f"{named}{more}.")

    def index_row(self, unit_id: str, items: Mapping[str, FusedItem] | None = None) -> str:
        """The unit's row of the index table ("" for an unknown unit)."""
        unit = self._units.get(unit_id)
        if unit is None:
            return ""
        item = (items.get(unit_id) if items is not None
                else next((i for i in self.plan.plan if i.unit_id == unit_id), None))
        level = item.final_context_level.value if item else "-"
        risk = item.risk if item and item.risk else "-"
        return (f"| {unit_id} | {unit.location} | {unit.change_type} | "
                f"{', '.join(unit.tags) or '-'} | {level} | {risk} |")
