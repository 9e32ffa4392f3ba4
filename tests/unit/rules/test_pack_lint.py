"""The tags a pack may name are the tags units get, and the shipped packs name nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import reviewtui
from reviewtui.rules.pack_lint import file_warnings, layer_warnings
from reviewtui.rules.packs import shipped_pack_files
from reviewtui.units.tag_names import KNOWN_TAGS


def test_the_known_tags_are_the_tags_units_are_given() -> None:
    source = "".join(path.read_text(encoding="utf-8")
                     for path in Path(reviewtui.__file__).parent.rglob("*.py"))
    added = set(re.findall(r'tags\.add\("([a-z_0-9]+)"\)', source))
    assert added == KNOWN_TAGS


def test_the_shipped_packs_name_only_what_exists() -> None:
    assert file_warnings(shipped_pack_files()) == []


def test_a_new_rule_with_its_trigger_is_a_rule_not_a_misspelling() -> None:
    beneath = {"patterns": {"logging_only": {"tags": ["only_logging"]}}}
    assert layer_warnings({"patterns": {"vendored": {"tags": ["generated_or_vendored"]}}},
                          beneath) == []
    assert layer_warnings({"patterns": {"logging_only": {"enabled": False}}}, beneath) == []
    # a language pack given another name by ``applies_to`` is read by that name
    assert layer_warnings({"languages": {"team": {"applies_to": ["python"]}}}, {}) == []
    [warning] = layer_warnings({"languages": {"team": {"applies_to": ["pyton"]}}}, {})
    assert warning.startswith("languages.team.applies_to: no file is read as 'pyton'")
