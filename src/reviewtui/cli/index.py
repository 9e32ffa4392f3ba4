"""``reviewtui index``: the review index as a table, the review_index JSON or the planner_index.

Scanner results (``--scan``) are summarised on stderr so that JSON on stdout stays clean. The
pipeline and the models are imported only after ``load_change`` has started git (see there).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from reviewtui.app.terminal_text import shown_text
from reviewtui.cli.selectors import selector_from_args
from reviewtui.cli.table import table_lines

if TYPE_CHECKING:
    from pydantic import BaseModel

    from reviewtui.models import ReviewIndex
    from reviewtui.rules.scanners import ScanReport


# The last run's change and index, kept so that the process can end without freeing them one
# object at a time (see ``cli.main``); a second run in the same process replaces them.
KEPT: list[object] = []


def run_index(args: argparse.Namespace) -> int:
    from reviewtui.cli.intent import intent_line, loaded_with_intent, read_description
    from reviewtui.cli.progress import load_change
    from reviewtui.units.order import sort_units

    loaded = load_change(args.path, selector_from_args(args), use_cache=not args.no_cache)
    fmt = "planner" if args.planner else "json" if args.json else "table"
    if fmt == "table":  # the JSON contracts are the seeds'; only the table shows the intent
        loaded = loaded_with_intent(loaded, args)
    else:
        read_description(args.description)  # still a bad --description is said
    scan = None
    if args.scan or args.scan_tools:
        tools = [t.strip() for t in args.scan_tools.split(",") if t.strip()] if (
            args.scan_tools) else None
        scan = loaded.scan(tools)
        print_scan_summary(scan, sys.stderr)
    if args.sort == "priority":
        from reviewtui.cli.progress import CountLine

        line = CountLine(sys.stderr, "index: reading the history of the changed lines", "files")
        try:
            loaded = loaded.with_reach(progress=line)
        finally:
            line.close()
        if loaded.repo is not None and loaded.repo.is_shallow():
            sys.stderr.write("index: a shallow clone: the priority leaves out the history of "
                             "the changed lines ('git fetch --unshallow' brings it)\n")
    index = sort_units(loaded.review_index(scan), args.sort)
    print_index(index, fmt, sys.stdout, intent=intent_line(loaded))
    KEPT[:] = [loaded, index]
    return 0


def risk_summary(index: ReviewIndex) -> str:
    """``risk: 3 critical, 12 high (9.4%), 40 medium, 105 low`` once the rules have scored."""
    counts = index.summary.risk_distribution
    if not counts or not index.units:
        return ""
    share = 100 * (counts["critical"] + counts["high"]) / len(index.units)
    return (f"risk: {counts['critical']} critical, {counts['high']} high ({share:.1f}% high or "
            f"critical), {counts['medium']} medium, {counts['low']} low")


def binary_by_attribute_line(index: ReviewIndex, shown: int = 5) -> str:
    """``binary by gitattribute: a.py, b.py - treated as binary because of ...`` when git
    called a file binary because of a ``-diff`` / ``binary`` attribute (not its content)."""
    from reviewtui.units.path_tags import BINARY_BY_ATTRIBUTE_NOTE

    paths = sorted({unit.file_path for unit in index.units
                    if "binary_by_attribute" in unit.tags})
    if not paths:
        return ""
    named = ", ".join(shown_text(path, one_line=True) for path in paths[:shown])
    if len(paths) > shown:
        named += f" and {len(paths) - shown} more"
    return f"binary by gitattribute: {named} - {BINARY_BY_ATTRIBUTE_NOTE}"


def kept_on_disk_line(index: ReviewIndex, shown: int = 5) -> str:
    """``kept on disk: .env - deleted from the repository, ...`` when the change stops
    tracking files that stay on disk (``git rm --cached``)."""
    from reviewtui.units.path_tags import KEPT_ON_DISK_NOTE

    paths = sorted({unit.file_path for unit in index.units if "kept_on_disk" in unit.tags})
    if not paths:
        return ""
    named = ", ".join(shown_text(path, one_line=True) for path in paths[:shown])
    if len(paths) > shown:
        named += f" and {len(paths) - shown} more"
    return f"kept on disk: {named} - {KEPT_ON_DISK_NOTE}"


def _table(index: ReviewIndex, intent: str = "") -> str:
    meta = index.review_metadata
    total = index.summary.total_lines
    header = (f"{meta.mode}: {meta.old} -> {meta.new} | {meta.total_files} files, "
              f"{meta.total_changes} units, +{total.added} -{total.removed}")
    risks = risk_summary(index)
    if risks:
        header += "\n" + risks
    by_attribute = binary_by_attribute_line(index)
    if by_attribute:
        header += "\n" + by_attribute
    kept = kept_on_disk_line(index)
    if kept:
        header += "\n" + kept
    if intent:
        header += "\n" + intent
    if not index.units:
        return header + "\nno changes to review\n"
    rows = [("UNIT", "LOCATION", "LANG", "TYPE", "+/-", "LEVEL", "CONF", "RISK", "PRIO", "TAGS")]
    for unit in index.units:
        rows.append((
            unit.unit_id,
            unit.location,
            unit.language or "-",
            unit.change_type,
            f"+{unit.metrics.added_lines}/-{unit.metrics.removed_lines}",
            unit.rule_context_level.value if unit.rule_context_level else "-",
            f"{unit.rule_confidence:.2f}" if unit.rule_confidence is not None else "-",
            (unit.agent_decision.priority if unit.agent_decision else None) or "-",
            f"{unit.priority_score:.0f}" if unit.priority_score is not None else "-",
            ",".join(unit.tags) or "-",
        ))
    lines = [header, "", *table_lines(rows)]
    return "\n".join(lines) + "\n"


def print_index(index: ReviewIndex, fmt: str, out: TextIO, *, intent: str = "") -> None:
    """Write the index as ``table`` (``intent``, the stated purpose's line, in its header),
    ``json`` (review_index) or ``planner`` (planner_index)."""
    from reviewtui.units.index import planner_index

    if fmt in ("json", "planner"):
        write_json(index if fmt == "json" else planner_index(index), out)
    else:
        out.write(_table(index, intent))
    out.flush()


def write_json(model: BaseModel, out: TextIO) -> None:
    """``model`` as indented JSON and a newline. On a UTF-8 stream with a byte buffer (stdout)
    pydantic's bytes go to the buffer as they are: the same bytes as writing its text, without
    decoding 10 MB of JSON into a string and encoding it back."""
    buffer = getattr(out, "buffer", None)
    encoding = (getattr(out, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if buffer is None or encoding != "utf8":
        out.write(model.model_dump_json(indent=2) + "\n")
        return
    data = model.__pydantic_serializer__.to_json(model, indent=2)
    out.flush()  # what was written as text comes first
    buffer.write(data)
    buffer.write(b"\n")


def print_scan_summary(report: ScanReport, out: TextIO) -> None:
    """One line per scanner outcome, on stderr, so that JSON on stdout stays clean."""
    counts = {severity: sum(1 for i in report.issues if i.severity == severity)
              for severity in ("error", "warning", "info")}
    ran = ", ".join(report.ran) or "none"
    out.write(f"scanners: ran {ran}; {counts['error']} errors, {counts['warning']} warnings, "
              f"{counts['info']} info ({report.cached} cached results)\n")
    for tool, reason in sorted(report.failed.items()):
        out.write(f"scanners: {tool} failed: {reason}\n")
    out.flush()
