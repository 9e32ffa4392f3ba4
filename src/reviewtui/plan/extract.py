"""Get the plan out of what a model actually wrote.

Models wrap JSON in prose and code fences, stop mid-array when they hit the output limit, or
answer with nothing. ``extract_plan_items`` tries, in order: the whole reply as JSON, the first
fenced block, the first balanced JSON value in the text, and finally a salvage of every complete
item object of a truncated ``plan`` array. A plan written as an object keyed by unit id
(``{"plan": {"u_1": {...}, "u_2": {...}}}``) counts as the list of its items. It says which
of these happened, so the caller can log it; only when nothing usable is found does it raise
``PlanParseError`` (the caller then asks the model once to repair its reply).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from reviewtui.llm.surrogates import whole_value

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n(.*?)(?:\n```|$)", re.DOTALL)
_DECODER = json.JSONDecoder()


class PlanParseError(ValueError):
    """The reply holds no usable plan; the message says why (one line)."""


@dataclass(frozen=True)
class Extracted:
    items: list[Any]
    how: str  # json | fenced | embedded | salvaged
    note: str | None = None


_ITEM_FIELDS = frozenset({"unit_id", "llm_context_level", "skip_review", "extra_requests",
                          "reason"})


def _keyed(value: dict[str, Any]) -> list[Any] | None:
    """A plan written as ``{"u_1": {item}, "u_2": {item}}``: every item, its key its unit id
    unless it names one itself (taken as one item, the others would read as left out)."""
    if not value or not all(isinstance(inner, dict) for inner in value.values()):
        return None
    if not any(_ITEM_FIELDS.intersection(inner) for inner in value.values()):
        return None
    return [{"unit_id": key, **inner} for key, inner in value.items()]


def _items_of(value: Any, *, single: bool = True) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in ("plan", "units", "items", "llm_plan"):
            inner = value.get(key)
            if isinstance(inner, list):
                return inner
            if isinstance(inner, dict) and (keyed := _keyed(inner)) is not None:
                return keyed
        if single and "unit_id" in value:
            return [value]
        keyed = _keyed(value)
        if keyed is not None:
            return keyed
        for inner in value.values():  # {"result": {"plan": [...]}}
            if isinstance(inner, dict):
                nested = _items_of(inner, single=single)
                if nested is not None:
                    return nested
    return None


def _first_value(text: str) -> Any | None:
    """The first complete JSON object or array in ``text`` that holds plan items.

    A lone item object does not count: inside a cut-off plan it is one item of many.
    """
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = _DECODER.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        items = _items_of(value, single=False)
        if items is not None and (isinstance(value, dict) or any(
                isinstance(item, dict) and "unit_id" in item for item in items)):
            return value
    return None


def _salvage(text: str) -> list[Any]:
    """Every complete ``{...}`` with a ``unit_id`` after the start of the plan array."""
    start = text.find('"plan"')
    start = text.find("[", start if start >= 0 else 0)
    if start < 0:
        return []
    items: list[Any] = []
    position = start + 1
    while True:
        brace = text.find("{", position)
        if brace < 0:
            break
        try:
            value, end = _DECODER.raw_decode(text, brace)
        except json.JSONDecodeError:
            position = brace + 1
            continue
        if isinstance(value, dict) and "unit_id" in value:
            items.append(value)
        position = end
    return items


def extract_plan_items(text: str | None) -> Extracted:
    """The plan items in a model's reply, or ``PlanParseError`` saying why there are none
    (strings made whole: a JSON escape may be half a surrogate pair)."""
    found = _extract_plan_items(text)
    return replace(found, items=whole_value(found.items))


def _extract_plan_items(text: str | None) -> Extracted:
    if text is None or not text.strip():
        raise PlanParseError("the model returned an empty reply")
    stripped = text.strip()
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        value = None
    else:
        items = _items_of(value)
        if items is None:
            raise PlanParseError("the reply is JSON but has no 'plan' list")
        return Extracted(items, "json")
    for fenced in _FENCE.findall(stripped):
        try:
            items = _items_of(json.loads(fenced))
        except json.JSONDecodeError:
            continue
        if items is not None:
            return Extracted(items, "fenced", "JSON taken from a code block in the reply")
    value = _first_value(stripped)
    if value is not None:
        items = _items_of(value)
        assert items is not None
        return Extracted(items, "embedded", "JSON taken from prose around it")
    salvaged = _salvage(stripped)
    if salvaged:
        return Extracted(salvaged, "salvaged",
                         f"the reply was cut off; {len(salvaged)} complete items salvaged")
    raise PlanParseError("the reply holds no JSON plan"
                         + (" (it looks cut off)" if "{" in stripped else ""))


def extract_object(text: str | None, key: str) -> tuple[dict[str, Any], str]:
    """The first JSON object in a reply that has ``key`` (whole, fenced or embedded), and how.

    Used for the review agent's final answer; raises ``PlanParseError`` saying why not.
    """
    if text is None or not text.strip():
        raise PlanParseError("the model returned an empty reply")
    stripped = text.strip()
    candidates = [("json", stripped)] + [("fenced", f) for f in _FENCE.findall(stripped)]
    for how, candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and key in value:
            return whole_value(value), how
    for match in re.finditer(r"\{", stripped):
        try:
            value, _ = _DECODER.raw_decode(stripped, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and key in value:
            return whole_value(value), "embedded"
    raise PlanParseError(f"the reply holds no JSON object with {key!r}"
                         + (" (it looks cut off)" if "{" in stripped else ""))
