"""A bundle's sections as the budget fits them: each piece with the part it is sent as.

The scheduler adds every piece to the ``Fitter`` with its ``wrap``: the section title, fence
and label ``render`` gives it, so a piece costs what it adds to the rendered bundle. Callers
and search results are one piece per place, the first kept one under its section's title;
scanner issues one piece per line. Their texts are read back from the fitter once it has
settled the account.
"""

from __future__ import annotations

from collections.abc import Callable

from reviewtui.context.budget import Fitter
from reviewtui.context.render import ISSUES_TITLE, code_part, issue_line, snippet_part
from reviewtui.models import CodeSnippet, ScannerFinding

__all__ = ["Issues", "Snippets", "code"]


def code(title: str, language: str | None) -> Callable[[str], str]:
    return lambda text: code_part(title, text, language)


class Snippets:
    """A bundle's callers or search results: named ``callers[0]``..., each place once, the
    first kept one under the section's title."""

    def __init__(self, prefix: str, title: str, language: str | None) -> None:
        self.prefix = prefix
        self.title = title
        self.language = language
        self.added: list[tuple[str, CodeSnippet]] = []

    def add(self, fit: Fitter, snippet: CodeSnippet, seen: set[tuple[str, int]]) -> None:
        key = (snippet.file_path, snippet.line)
        if key in seen:
            return
        seen.add(key)
        name = f"{self.prefix}[{len(self.added)}]"
        title = None if any(fit.text(n) for n, _ in self.added) else self.title
        self.added.append((name, snippet))
        fit.add(name, snippet.snippet, wrap=lambda code: snippet_part(
            snippet, self.language, title, code))

    def kept(self, fit: Fitter) -> list[CodeSnippet]:
        return [snippet.model_copy(update={"snippet": text}) for name, snippet in self.added
                if (text := fit.text(name))]


class Issues:
    """A bundle's scanner issues, one piece a line under one title."""

    def __init__(self) -> None:
        self.added: list[ScannerFinding] = []

    def add(self, fit: Fitter, finding: ScannerFinding) -> None:
        first = not any(fit.text(self._name(i)) for i in range(len(self.added)))
        self.added.append(finding)
        title, end = (ISSUES_TITLE, "\n") if first else ("", "")
        fit.add(self._name(len(self.added) - 1), issue_line(finding), clip=False,
                wrap=lambda line: f"{title}{line}\n{end}")

    @staticmethod
    def _name(index: int) -> str:
        return f"scanner_issues[{index}]"

    def kept(self, fit: Fitter) -> list[ScannerFinding]:
        return [f for i, f in enumerate(self.added) if fit.text(self._name(i))]
