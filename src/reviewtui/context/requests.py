"""Execute a unit's extra requests: every type of the typed union does something.

The reference only ever ran ``previous_version`` (seed 001): ``callers``/``search`` never got
their symbol, and the rule-side ``search_*`` hints had no executor. Here each type maps to a
search over the change's "after" side (``ProjectSearch``) or the diff's base side, and a request
that finds nothing says so in the bundle's notes instead of silently vanishing. A bare
``search_*`` request (no symbol) takes its names from the unit: what the rule handler's symbol
analysis says for that type, else the definitions the unit changes or sits in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from reviewtui.code.kinds import TYPE_KINDS
from reviewtui.context.search import ProjectSearch
from reviewtui.models import CodeSnippet, ExtraRequest, ScannerFinding
from reviewtui.units.model import ReviewUnit

SymbolsFor = Callable[[ReviewUnit, str], Sequence[str]]
MAX_SYMBOLS = 3
_NAME_SEARCHES = frozenset({"callers", "search_callers", "search_model_usage"})


@dataclass
class RequestResults:
    """What the requests of one unit produced, in request order."""

    callers: list[CodeSnippet] = field(default_factory=list)
    search_results: list[CodeSnippet] = field(default_factory=list)
    scanner_issues: list[ScannerFinding] = field(default_factory=list)
    previous_version: bool = False
    notes: list[str] = field(default_factory=list)


def unit_ranges(unit: ReviewUnit) -> list[tuple[str, int, int]]:
    """The unit's own after-side lines: hits there are the change itself, not a use of it."""
    return [(unit.file_path, h.new_start, h.new_start + max(h.new_count, 1) - 1)
            for h in unit.hunks]


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1].rsplit("::", 1)[-1].rsplit("#", 1)[-1]


def default_symbols(unit: ReviewUnit, request_type: str) -> list[str]:
    """Names from the unit's own definitions when the rules had none for this type."""
    if request_type in ("search_implementations", "search_model_usage",
                        "search_class_methods"):
        names = [s.name for s in unit.scopes if s.kind in TYPE_KINDS]
    else:
        names = list(unit.symbols) + list(unit.functions)
    unique = list(dict.fromkeys(n for n in names if n))
    return unique[:MAX_SYMBOLS]


def _dedupe(snippets: list[CodeSnippet]) -> list[CodeSnippet]:
    seen: set[tuple[str, int]] = set()
    kept: list[CodeSnippet] = []
    for snippet in snippets:
        key = (snippet.file_path, snippet.line)
        if key not in seen:
            seen.add(key)
            kept.append(snippet)
    return kept


class RequestRunner:
    """Runs requests for units of one change; one ``ProjectSearch`` shared by all of them."""

    def __init__(self, search: ProjectSearch | None, symbols_for: SymbolsFor | None = None,
                 findings: Callable[[ReviewUnit], Sequence[ScannerFinding] | None] | None = None,
                 ) -> None:
        self.search = search
        self.symbols_for = symbols_for
        self.findings = findings

    def _symbols(self, unit: ReviewUnit, request: ExtraRequest) -> list[str]:
        given = getattr(request, "symbol", None)
        if given:
            return [given]
        names = list(self.symbols_for(unit, request.type)) if self.symbols_for else []
        return names[:MAX_SYMBOLS] or default_symbols(unit, request.type)

    def names(self, unit: ReviewUnit, request: ExtraRequest) -> list[str]:
        """What a search request looks for: its keyword, or up to three symbol names."""
        if request.type == "search":
            keyword = getattr(request, "keyword", "")
            return [keyword] if keyword else []
        if request.type in ("previous_version", "scanner_issues"):
            return []
        return self._symbols(unit, request)

    def prefetch(self, work: Sequence[tuple[ReviewUnit, Sequence[ExtraRequest]]]) -> None:
        """Search the names of every callers/model-usage request of the given units in one
        batch (the units about to be built, never the ones left out)."""
        if self.search is None:
            return
        names: list[str] = []
        for unit, requests in work:
            for request in requests:
                if request.type in _NAME_SEARCHES:
                    names += self._symbols(unit, request)
        self.search.prefetch_names(names)

    def run(self, unit: ReviewUnit, requests: Sequence[ExtraRequest]) -> RequestResults:
        results = RequestResults()
        for request in requests:
            self.run_one(unit, request, results)
        results.callers = _dedupe(results.callers)
        results.search_results = _dedupe(results.search_results)
        return results

    def run_one(self, unit: ReviewUnit, request: ExtraRequest, results: RequestResults) -> None:
        """Execute one request, adding what it found (or why not) to ``results``."""
        if request.type == "previous_version":
            results.previous_version = True
        elif request.type == "scanner_issues":
            self._scanner(unit, results)
        elif self.search is None:
            results.notes.append(f"{request.type}: no repository to search (a patch file)")
        elif request.type == "search":
            keyword = getattr(request, "keyword", "")
            self._add(results, "search", f"search {keyword!r}", self.search.text(keyword))
        else:
            self._symbol_request(unit, request, results)

    def _symbol_request(self, unit: ReviewUnit, request: ExtraRequest,
                        results: RequestResults) -> None:
        assert self.search is not None
        names = self._symbols(unit, request)
        if not names:
            results.notes.append(f"{request.type}: the unit defines no symbol to search for")
            return
        exclude = unit_ranges(unit)
        for name in names:
            label = f"{request.type} {name!r}"
            if request.type in ("callers", "search_callers"):
                found = self.search.callers(name, exclude=exclude)
                self._add(results, "callers", label, found)
            elif request.type == "search_config_usage":
                found = self.search.config_usage([name], config_path=unit.file_path)
                self._add(results, "search", label, found)
            elif request.type == "search_implementations":
                self._add(results, "search", label, self.search.implementations(_short(name)))
            elif request.type == "search_model_usage":
                found = self.search.model_usage(_short(name), exclude=exclude)
                self._add(results, "search", label, found)
            elif request.type == "search_class_methods":
                found = self.search.class_methods(unit.file_path, _short(name))
                self._add(results, "search", label, found)

    @staticmethod
    def _add(results: RequestResults, where: str, label: str,
             found: Sequence[CodeSnippet]) -> None:
        if not found:
            results.notes.append(f"{label}: nothing found")
        elif where == "callers":
            results.callers.extend(found)
        else:
            results.search_results.extend(found)

    def _scanner(self, unit: ReviewUnit, results: RequestResults) -> None:
        found = self.findings(unit) if self.findings is not None else None
        if found is None:
            results.notes.append("scanner_issues: no scanner ran for this file")
        elif not found:
            results.notes.append("scanner_issues: the scanners found nothing here")
        else:
            results.scanner_issues.extend(found)
