"""A scored suggestion built through its instance dictionary is the constructor's."""

from __future__ import annotations

from reviewtui.git.model import DiffLine, Hunk
from reviewtui.rules import RuleEngine
from reviewtui.rules.packs import load_rule_pack
from reviewtui.rules.suggestion import SUGGESTION_FIELDS, RuleSuggestion, suggestion_of
from reviewtui.units.model import review_unit


def test_a_scored_suggestion_is_what_its_constructor_builds() -> None:
    """``score`` builds its suggestion with ``suggestion_of`` (values in field order): built
    again by keyword, field by field, it is equal and its dictionary in the same order (the
    order records pickle it in). A value in the wrong place would not survive the keywords:
    each is checked against what the field holds."""
    engine = RuleEngine(load_rule_pack(None).pack)
    lines = (DiffLine("-", "    if user.password == given:", 3, None),
             DiffLine("+", "    if check_password(given, user.password):", None, 3),
             DiffLine("+", "        log.info('ok')", None, 4))
    unit = review_unit("u", "app/auth.py", None, "python", "modify", ("security_sensitive",),
                       (Hunk(3, 1, 3, 2, "", lines),), 2, 1, "3-4", "3", "app/auth.py:3",
                       (), (), (), False, frozenset(), frozenset(), None)
    made = engine.evaluate(unit)
    again = RuleSuggestion(**{name: getattr(made, name) for name in SUGGESTION_FIELDS})
    assert made == again
    assert list(made.__dict__) == list(again.__dict__) == list(SUGGESTION_FIELDS)
    assert isinstance(made.notes, str) and made.notes.startswith("risk=")
    assert made.scanner_notes == () and made.reach is None
    assert made.role == "code" and isinstance(made.tokens, str) and "+log" in made.tokens
    assert len(made.line_signals) == 17 and made.decided_by
    assert suggestion_of(tuple(getattr(made, n) for n in SUGGESTION_FIELDS)) == made
