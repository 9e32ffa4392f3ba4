"""A review comment already on a pull request, as the workbench and ``publish --dry-run`` show
it beside its line: read-only, whoever wrote it. A module of its own (no imports) so the
workbench can name the type without loading any forge client."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PullThread:
    path: str
    line: int | None  # None: outdated (its line is gone from the diff)
    author: str
    body: str
    reply: bool = False  # an answer within a thread

    @property
    def first_line(self) -> str:
        return (self.body.strip().splitlines() or [""])[0][:100]

    def describe(self) -> str:
        where = f"L{self.line}" if self.line is not None else "outdated"
        return f"{'  ↳ ' if self.reply else ''}{self.path} {where} @{self.author}: " \
               f"{self.first_line}"
