"""The review unit's fast constructor."""

from __future__ import annotations

import dataclasses

from reviewtui.units.model import ReviewUnit, review_unit


def test_review_unit_is_the_constructor_with_every_field() -> None:
    """``review_unit`` sets the slots one by one: each field gets its own value (distinct
    ones here, so that two swapped fields would show), as ``ReviewUnit(...)`` does."""
    names = [field.name for field in dataclasses.fields(ReviewUnit)]
    values = {name: (name, index) for index, name in enumerate(names)}
    made = review_unit(**values)  # type: ignore[arg-type]
    assert made == ReviewUnit(**values)  # type: ignore[arg-type]
    assert [getattr(made, name) for name in names] == list(values.values())
