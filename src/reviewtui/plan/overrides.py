"""The person's layer above fusion: level, skip and extra-request overrides.

Overrides never change the fused item underneath; ``apply_overrides`` returns a new item whose
provenance names ``user`` for what the person decided, so the UI can always show which layer
won and "reset to fused" is just dropping the override. Overrides are plain data
(``OverrideSet``), loadable from a JSON file and persisted by the session store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import ValidationError

from reviewtui.errors import ConfigError
from reviewtui.plan.requests import merge_requests, request_key
from reviewtui.plan.schema import FusedItem, OverrideSet, Source, UnitOverride
from reviewtui.units.identity import successor_of
from reviewtui.units.model import ReviewUnit, unit_key


def apply_override(item: FusedItem, override: UnitOverride | None) -> FusedItem:
    if override is None or override.is_empty:
        return item
    update: dict[str, object] = {}
    provenance = item.provenance.model_copy()
    if override.level is not None:
        update["final_context_level"] = override.level
        provenance.level = "user"
    if override.skip is not None and override.skip != item.skip_review:
        update["skip_review"] = override.skip
        update["reason"] = ("user: skipped" if override.skip else "user: kept for review") + (
            f" (was: {item.reason})")
        provenance.skip = "user"
    if override.add_requests or override.remove_requests:
        removed = {request_key(r) for r in override.remove_requests}
        kept = [(r, s) for r, s in zip(item.extra_requests, provenance.extra_requests,
                                       strict=True) if request_key(r) not in removed]
        merged = merge_requests([r for r, _ in kept], override.add_requests)
        sources: dict[tuple[str, str], Source] = {request_key(r): s for r, s in kept}
        update["extra_requests"] = merged
        provenance.extra_requests = [sources.get(request_key(r), "user") for r in merged]
    update["provenance"] = provenance
    return item.model_copy(update=update)


def apply_overrides(items: Sequence[FusedItem], overrides: OverrideSet | None) -> list[FusedItem]:
    if overrides is None:
        return list(items)
    return [apply_override(item, overrides.units.get(item.unit_id)) for item in items]


def _matches(key: str, unit_ids: Sequence[str]) -> list[str]:
    return [u for u in unit_ids if u == key] or [u for u in unit_ids if u.startswith(key)]


def override_problems(overrides: OverrideSet, unit_ids: Sequence[str]) -> list[str]:
    """What ``resolve_unit_ids`` will ignore or overrule, one line each: a key that names no
    unit of the change, a prefix of several, a unit another key names too (the last key
    wins). A file given on the command line should not lose a decision without a word."""
    problems: list[str] = []
    named: dict[str, str] = {}
    for key in overrides.units:
        matches = _matches(key, unit_ids)
        if not matches:
            problems.append(f"{key!r} names no unit of this change; ignored")
        elif len(matches) > 1:
            problems.append(f"{key!r} matches {len(matches)} units; ignored (give more of "
                            "the id)")
        else:
            if (earlier := named.get(matches[0])) is not None:
                problems.append(f"{earlier!r} and {key!r} both name {matches[0]}; the last, "
                                f"{key!r}, is used")
            named[matches[0]] = key
    return problems


def resolve_unit_ids(overrides: OverrideSet, unit_ids: Sequence[str]) -> OverrideSet:
    """Expand unique id prefixes (as people type them) to full unit ids; unknown ids stay."""
    resolved: dict[str, UnitOverride] = {}
    for key, value in overrides.units.items():
        matches = _matches(key, unit_ids)
        resolved[matches[0] if len(matches) == 1 else key] = value
    return OverrideSet(units=resolved)


class _Twice(ValueError):
    """A JSON object names a key twice (``json`` would keep the last, losing the first)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    data: dict[str, object] = {}
    for key, value in pairs:
        if key in data:
            raise _Twice(key)
        data[key] = value
    return data


def load_overrides(path: str | Path) -> OverrideSet:
    """Read an ``OverrideSet`` JSON file; errors name the file and the key. A key given twice
    is refused: JSON would keep the last silently, and the person meant both."""
    target = Path(path)
    try:
        data = json.loads(target.read_text(encoding="utf-8"), object_pairs_hook=_unique_keys)
    except _Twice as exc:
        raise ConfigError(f"{target}: {exc.args[0]!r} is given twice; merge them into "
                          "one") from None
    except OSError as exc:
        raise ConfigError(f"{target}: cannot read: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{target}: not valid JSON: {exc}") from None
    if isinstance(data, dict) and "units" not in data:
        data = {"units": data}
    try:
        return OverrideSet.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        raise ConfigError(f"{target}: {key}: {error['msg']}") from None


def carried_ids(overrides: OverrideSet, before: Sequence[ReviewUnit],
                after: Sequence[ReviewUnit]) -> dict[str, str]:
    """Where each decided unit went when the change was collected again: ``old id -> new
    id`` for every decided unit whose id is gone (its content changed). It went to the unit it
    became (``units.identity.successor_of``: the nearest by lines, the most shared lines first)
    among the units of the same definition (``unit_key``) that the edit made -- never to one
    that was there before, untouched, with a decision of its own or not, nor to one that
    another decision went to. A decided unit with no such successor is not in the map."""
    old = {u.unit_id: u for u in before}
    made: dict[str, list[ReviewUnit]] = {}
    for fresh in after:
        if fresh.unit_id not in old:
            made.setdefault(unit_key(fresh), []).append(fresh)
    current = {u.unit_id for u in after}
    taken = set(overrides.units)
    moves: dict[str, str] = {}
    for unit_id in overrides.units:
        decided = old.get(unit_id)
        if unit_id in current or decided is None:
            continue
        became = successor_of(decided, [u for u in made.get(unit_key(decided), [])
                                        if u.unit_id not in taken])
        if became is not None:
            moves[unit_id] = became
            taken.add(became)
    return moves


def carry_overrides(overrides: OverrideSet, before: Sequence[ReviewUnit],
                    after: Sequence[ReviewUnit]) -> OverrideSet:
    """The person's overrides for the change collected again: a unit whose content changed
    gets a new id, and its decision follows it to the unit it became (``carried_ids``);
    decisions whose unit is gone are kept as they are (the code may come back)."""
    return moved_overrides(overrides, carried_ids(overrides, before, after))


def moved_overrides(overrides: OverrideSet, moves: Mapping[str, str]) -> OverrideSet:
    """``overrides`` with each decision of a ``moves`` old id under its new id."""
    return OverrideSet(units={moves.get(unit_id, unit_id): override
                              for unit_id, override in overrides.units.items()})
