"""Typed extra requests from the planner's loose ``{"type", "details"}`` form, and merging.

Seed 001 notes the reference never mapped ``details`` to the ``symbol``/``keyword`` the
scheduler reads, so only ``previous_version`` ever worked. Here every planner request becomes a
typed ``ExtraRequest`` or is dropped with a reason: ``callers`` -> symbol (without one it becomes
``search_callers``, whose symbols come from the unit's definitions), ``search`` -> keyword, the
``search_*`` hints -> symbol.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import TypeAdapter, ValidationError

from reviewtui.models import ContextLevel, ExtraRequest

_ADAPTER: TypeAdapter[ExtraRequest] = TypeAdapter(ExtraRequest)
_SYMBOL_SEARCHES = frozenset({"search_callers", "search_config_usage", "search_implementations",
                              "search_model_usage", "search_class_methods"})
_TYPE_ALIASES = {
    "previous": "previous_version", "prev_version": "previous_version",
    "old_version": "previous_version", "caller": "callers", "call_sites": "callers",
    "grep": "search", "text_search": "search", "keyword": "search",
    "scanner": "scanner_issues", "lint": "scanner_issues", "scanners": "scanner_issues",
}
_LEVEL_ALIASES = {
    "diff": "diff_only", "local": "diff_only", "diffonly": "diff_only", "file": "file_context",
    "filecontext": "file_context", "full": "full_file", "fullfile": "full_file",
    "whole_file": "full_file", "func": "function", "function_context": "function",
}


def parse_level(value: Any) -> ContextLevel | None:
    """A context level from the forms models and rule handlers use; None if unknown."""
    if isinstance(value, ContextLevel):
        return value
    if not isinstance(value, str):
        return None
    key = value.strip().lower().replace("-", "_").replace(" ", "_")
    key = _LEVEL_ALIASES.get(key, _LEVEL_ALIASES.get(key.replace("_", ""), key))
    try:
        return ContextLevel(key)
    except ValueError:
        return None


def _detail(raw: dict[str, Any]) -> str | None:
    for key in ("details", "symbol", "keyword", "text", "query", "detail"):
        value = raw.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def planner_request(raw: Any) -> tuple[ExtraRequest | None, str | None]:
    """One planner request as a typed request, or None and the reason it was dropped."""
    if isinstance(raw, str):
        raw = {"type": raw}
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        return None, f"not a request object: {str(raw)[:60]!r}"
    kind = raw["type"].strip().lower()
    kind = _TYPE_ALIASES.get(kind, kind)
    detail = _detail(raw)
    data: dict[str, Any] = {"type": kind}
    if kind == "callers":
        if detail is None:
            data = {"type": "search_callers"}
        else:
            data["symbol"] = detail
    elif kind == "search":
        if detail is None:
            return None, "search request without a keyword"
        data["keyword"] = detail
    elif kind in _SYMBOL_SEARCHES and detail is not None:
        data["symbol"] = detail
    try:
        return _ADAPTER.validate_python(data), None
    except ValidationError:
        return None, f"unknown request type {raw['type']!r}"


def request_key(request: ExtraRequest) -> tuple[str, str]:
    """Identity for de-duplication: the type plus its symbol or keyword (case kept)."""
    detail = getattr(request, "symbol", None) or getattr(request, "keyword", None) or ""
    return request.type, detail


def merge_requests(*groups: Iterable[ExtraRequest]) -> list[ExtraRequest]:
    """All requests of the groups in order, each (type, detail) once."""
    seen: set[tuple[str, str]] = set()
    merged: list[ExtraRequest] = []
    for group in groups:
        for request in group:
            key = request_key(request)
            if key not in seen:
                seen.add(key)
                merged.append(request)
    return merged
