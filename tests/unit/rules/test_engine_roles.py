"""The engine keeps each set of tags' role: every unit gets the role ``role_of`` gives it."""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.rules.engine import RuleEngine
from reviewtui.rules.packs import load_rule_pack
from reviewtui.rules.priority import role_of
from tests.conftest import GitRepoBuilder


def test_units_sharing_tags_or_not_get_the_role_of_their_own_tags(
        repo: GitRepoBuilder) -> None:
    files = {"app/views.py": "def a():\n    return 1\n", "tests/test_a.py": "def test_a():\n"
             "    assert True\n", "docs/guide.md": "# Guide\n", "app/models.py": "x = 1\n"}
    for path, text in files.items():
        repo.write(path, text)
    repo.commit("base")
    for path, text in files.items():
        repo.write(path, text.replace("1", "2").replace("True", "False") + "# more\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    pack = load_rule_pack(repo.root).pack
    engine = RuleEngine(pack)
    roles = set()
    for unit in [*loaded.units, *loaded.units]:  # each set of tags asked twice
        expected = role_of(frozenset(unit.tags), pack.roles)
        assert engine.evaluate(unit).role == expected.name, unit.file_path
        roles.add(expected.name)
    assert len(roles) >= 3
