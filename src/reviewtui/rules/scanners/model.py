"""What a scanner run produces: issues, the files to scan, and a report of what happened.

Kept free of subprocess and tool details so that the rule engine and the TUI can depend on these
value types without pulling in the runner. Every tool's own severity vocabulary is folded into
three levels by ``normalise_severity`` so that findings from different tools compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "info")

_ERROR = frozenset({"error", "fatal", "critical", "high", "e", "f", "blocker"})
_WARNING = frozenset({"warning", "warn", "caution", "medium", "w", "major"})
_INFO = frozenset({
    "info", "note", "hint", "style", "low", "convention", "refactor", "minor", "i", "c", "r",
})


def normalise_severity(raw: str) -> str:
    """Map any tool's severity word (case-insensitive) to ``error``, ``warning`` or ``info``.

    Unknown words map to ``warning``: a finding we cannot classify is worth a look, not an alarm.
    """
    word = raw.strip().lower()
    if word in _ERROR:
        return "error"
    if word in _INFO:
        return "info"
    return "warning"


@dataclass(frozen=True, slots=True, order=True)
class ScannerIssue:
    """One finding of one tool; ``path`` is repo-relative with forward slashes, 1-based lines."""

    path: str
    line: int
    column: int
    severity: str
    message: str
    rule_id: str
    tool: str


@dataclass(frozen=True, slots=True)
class ScanTarget:
    """A file to scan: ``content`` is the "after" side, which may differ from the disk.

    ``on_disk`` is True only when ``root / path`` currently holds exactly ``content``; the
    runner then lets tools read the file in place, otherwise it feeds them ``content``.
    """

    path: str
    language: str | None
    content: bytes
    on_disk: bool


@dataclass(frozen=True, slots=True)
class ScanReport:
    """The outcome of ``run_scanners``.

    A tool appears in at most one of ``ran`` (every invocation succeeded or came from the
    cache), ``skipped`` (not started, with the reason) and ``failed`` (at least one invocation
    timed out, crashed or printed something unparseable; issues of its successful invocations
    are still in ``issues``). ``cached`` counts the tool x file results answered by the cache.
    """

    issues: tuple[ScannerIssue, ...] = ()
    ran: tuple[str, ...] = ()
    skipped: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    cached: int = 0

    def issues_for(self, path: str) -> tuple[ScannerIssue, ...]:
        return tuple(issue for issue in self.issues if issue.path == path)
