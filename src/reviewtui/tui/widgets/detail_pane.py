"""The selected unit: its diff (syntax highlighted, finding lines marked), the plan's decision,
its findings and comments (and a pull request's review comments on its lines, read-only), and
the bundle preview.

The bundle preview shows the token account piece by piece (included / clipped / dropped / not
fetched), so the person sees what a level or an extra request costs before sending anything to
the model; after a build (``b``), the allocation: whether this unit is in the review budget or
deferred (and why), and the included / deferred units and tokens per risk class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from reviewtui.tui.terminal_safe import shown_text

if TYPE_CHECKING:  # named only: the pane is composed before the change's models load
    from reviewtui.forge.threads import PullThread
    from reviewtui.models import Allocation, ContextBundle
    from reviewtui.tui.triage import Row


def _decision(row: Row) -> RenderableType:
    item, unit = row.item, row.unit
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    # Every cell is Text: a str cell is read as markup (a path's ``[id]`` vanished, the
    # requests' ``[rule]`` too, and ``[/x]`` raised).
    table.add_row("unit", Text(f"{unit.unit_id}  {shown_text(unit.location, one_line=True)}  "
                               f"({unit.change_type}, +{unit.added_lines}/-{unit.removed_lines})"))
    table.add_row("tags", Text(", ".join(unit.tags) or "-"))
    if "binary_by_attribute" in unit.tags:  # the tagging vocabulary loads with the change
        from reviewtui.units.path_tags import BINARY_BY_ATTRIBUTE_NOTE

        table.add_row("binary", Text(BINARY_BY_ATTRIBUTE_NOTE, style="yellow"))
    rule = item.rule_context_level.value if item.rule_context_level else "-"
    conf = f"{item.rule_confidence:.2f}" if item.rule_confidence is not None else "-"
    llm = item.llm_context_level.value if item.llm_context_level else "-"
    table.add_row("level", Text(f"rule {rule} ({conf}) · llm {llm} · final "
                                f"{item.final_context_level.value} by {item.provenance.level}"))
    requests = ", ".join(
        r.type + (f"({d})" if (d := getattr(r, "symbol", None) or getattr(r, "keyword", None))
                  else "") + f" [{src}]"
        for r, src in zip(item.extra_requests, item.provenance.extra_requests, strict=False))
    table.add_row("requests", Text(requests or "-"))
    table.add_row("status", Text(f"{row.status}{' · skipped' if item.skip_review else ''} · "
                                 f"{item.reason}"))
    if item.unrelated:
        table.add_row("unrelated", Text(f"to the stated purpose: {item.unrelated}",
                                        style="yellow"))
    if row.why:
        table.add_row("priority", Text("\n".join(row.why)))
    return table


def _account(bundle: ContextBundle) -> RenderableType:
    table = Table(title=f"bundle: {bundle.budget.used}/{bundle.budget.limit} tokens "
                        f"({bundle.budget.counter})", title_justify="left", expand=False)
    for name in ("piece", "status", "tokens", "of"):
        table.add_column(name)
    styles = {"included": "green", "clipped": "yellow", "dropped": "red", "empty": "dim",
              "not_fetched": "red"}
    for piece in bundle.budget.pieces:
        table.add_row(Text(piece.name), Text(piece.status, style=styles[piece.status]),
                      str(piece.tokens), str(piece.original_tokens))
    notes = Text("\n".join(f"note: {n}" for n in bundle.notes), style="dim")
    return Group(table, notes) if bundle.notes else table


def _allocation(allocation: Allocation, unit_id: str) -> RenderableType:
    """The last build's allocation: this unit's place in it, then the totals per risk class."""
    included = next((u for u in allocation.included if u.unit_id == unit_id), None)
    deferred = next((u for u in allocation.deferred if u.unit_id == unit_id), None)
    if included is not None:
        place = Text(f"in the review: batch {included.batch}, {included.tokens} tokens"
                     + ("" if included.complete else " (not complete)"), style="green")
    elif deferred is not None:
        place = Text(f"deferred: {deferred.reason}", style="yellow")
    else:
        place = Text("not in the last build", style="dim")
    table = Table(title=f"allocation at the last build: {len(allocation.included)} in the "
                        f"review ({allocation.used}/{allocation.review_budget} tokens), "
                        f"{len(allocation.deferred)} deferred",
                  title_justify="left", expand=False)
    for name in ("risk", "included", "tokens", "complete", "deferred", "would need"):
        table.add_column(name, justify="left" if name == "risk" else "right")
    for r in allocation.by_risk:
        table.add_row(Text(r.risk), str(r.included_units), str(r.included_tokens),
                      str(r.complete_units), str(r.deferred_units), f"~{r.deferred_tokens}")
    return Group(place, table)


PREVIEW_LINES = 200


def _preview(bundle: ContextBundle) -> RenderableType:
    """What the bundle adds beyond the diff: the level's context, then the extra requests."""
    parts: list[RenderableType] = []
    context = bundle.function_context or bundle.file_context or bundle.full_file
    if context:
        lines = context.split("\n")
        shown = shown_text("\n".join(lines[:PREVIEW_LINES])) + (
            f"\n… {len(lines) - PREVIEW_LINES} more lines" if len(lines) > PREVIEW_LINES else "")
        parts.append(Text(f"{bundle.final_context_level.value}:", style="bold"))
        parts.append(Syntax(shown, bundle.meta.language or "text", theme="ansi_dark"))
    if bundle.previous_version:
        parts.append(Text("previous version: "
                          f"{bundle.previous_version.count(chr(10)) + 1} lines", style="bold"))
    for snippet in [*bundle.callers, *bundle.search_results]:
        parts.append(Text(f"{snippet.kind}: {shown_text(snippet.file_path)}:{snippet.line}",
                          style="bold"))
        parts.append(Text(shown_text(snippet.snippet)))
    return Group(*parts)


class DetailPane(VerticalScroll):
    """Decision, bundle account and diff of the unit under the cursor."""

    ALLOW_MAXIMIZE = True  # zoom (z)

    def compose(self) -> ComposeResult:
        yield Static(id="decision")
        yield Static(id="review")
        yield Static(id="account")
        yield Static(id="diff")
        yield Static(id="preview")

    def show(self, row: Row | None, bundle: ContextBundle | None = None,
             allocation: Allocation | None = None, current_finding: str | None = None,
             threads: Sequence[PullThread] = (), earlier_review: bool = False) -> None:
        """``earlier_review``: the unit's last review read an earlier version of it."""
        from reviewtui.tui.render_review import finding_diff_lines, review_section

        decision = self.query_one("#decision", Static)
        review = self.query_one("#review", Static)
        account = self.query_one("#account", Static)
        diff = self.query_one("#diff", Static)
        preview = self.query_one("#preview", Static)
        preview.update(_preview(bundle) if bundle is not None else "")
        if row is None:
            decision.update(Text("no unit selected"))
            review.update("")
            review.display = False
            account.update("")
            diff.update("")
            return
        decision.update(_decision(row))
        unit = row.unit
        mine = [t for t in threads if t.path == unit.file_path and t.line is not None
                and unit.covers(t.line, t.line)]
        review.update(review_section(row.review, row.comments, current_finding, mine,
                                     earlier=earlier_review))
        # (no blank line if there is nothing to say)
        review.display = bool(row.review or row.comments or mine or earlier_review)
        shown: RenderableType = _account(bundle) if bundle is not None else Text(
            "bundle: press b to build it", style="dim")
        if allocation is not None:
            shown = Group(shown, _allocation(allocation, row.unit.unit_id))
        account.update(shown)
        diff_text = shown_text(row.unit.diff_text(numbered=False)) or "(no line changes)"
        diff.update(Syntax(diff_text, "diff",
                           theme="ansi_dark", word_wrap=False, line_numbers=False,
                           highlight_lines=finding_diff_lines(row.unit, row.review)))
