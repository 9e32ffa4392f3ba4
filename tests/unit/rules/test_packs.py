"""Rule packs: shipped data, validation that names file and key, repository overrides, learning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewtui.errors import ConfigError
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.rules import RuleSuggestion, check_pack_file, load_rule_pack
from reviewtui.rules.packs import shipped_pack_files
from tests.conftest import GitRepoBuilder


def test_shipped_packs_have_base_patterns_and_one_file_per_language() -> None:
    names = [p.stem for p in shipped_pack_files()]
    assert names[:2] == ["base", "patterns"]
    assert {"python", "java", "go", "typescript", "ruby"} <= set(names)
    pack = load_rule_pack(None).pack
    assert {"import_only", "signature_change", "error_handling", "security_sensitive",
            "config_change", "data_access", "logging_only", "comment_only",
            "test_code"} <= set(pack.patterns)
    assert set(pack.languages["typescript"].applies_to) == {"typescript", "tsx", "javascript"}


@pytest.mark.parametrize("path", shipped_pack_files(), ids=lambda p: p.name)
def test_every_shipped_pattern_compiles(path: Path) -> None:
    """Loading skips compiling the shipped patterns to check them (0.17 s a run): this is where
    they are checked, every one, as `reviewtui rules check` checks a repository's."""
    check_pack_file(path)


@pytest.mark.parametrize(("text", "suffix", "message"), [
    ('[patterns.x]\nrisk = "extreme"\n', ".toml", "patterns.x.risk: Input should be"),
    ('language = "python"\n[decorators.d]\npatterns = ["@(unclosed"]\n', ".toml",
     "decorators.d.patterns[0]: bad regular expression"),
    ('{"patterns": {"y": {"tags": ["a"], "context_level": "huge"}}}', ".json",
     "patterns.y.context_level"),
    ("learned:\n  - tags: []\n    context_level: local\n    confidence: 0.9\n    samples: 3\n",
     ".yaml", "learned[0].tags"),
    ('[base]\nlarge_change_lines = "many"\n', ".toml", "base.large_change_lines"),
    ('[patterns.x\n', ".toml", "not a valid TOML file"),
    # an empty pattern made every unit of the language match (the rule's risk on all)
    ('language = "python"\n[keywords.k]\npatterns = [""]\nrisk = "critical"\n', ".toml",
     "keywords.k.patterns[0]: an empty regular expression matches every line"),
    ('[unknown_section]\na = 1\n', ".toml", "unknown_section: Extra inputs"),
])
def test_bad_pack_names_file_and_key(tmp_path: Path, text: str, suffix: str,
                                     message: str) -> None:
    path = tmp_path / f"rules{suffix}"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        check_pack_file(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def _auth_change(repo: GitRepoBuilder) -> None:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n")


def _only_suggestion(repo: GitRepoBuilder) -> RuleSuggestion:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL, include_untracked=False))
    assert len(loaded.units) == 1
    return loaded.suggestions[loaded.units[0].unit_id]


def test_repository_pack_overrides_and_disables_rules(repo: GitRepoBuilder) -> None:
    _auth_change(repo)
    before = _only_suggestion(repo)
    assert before.context_level.value == "file_context"
    assert "pattern:security_sensitive(" in before.notes
    repo.write(".reviewtui/rules.toml",
               "[patterns.security_sensitive]\ncontext_level = 'full_file'\n")
    assert _only_suggestion(repo).context_level.value == "full_file"
    repo.write(".reviewtui/rules.toml",
               "[patterns.security_sensitive]\nenabled = false\n"
               "[base]\nsecurity_keywords = []\n")
    after = _only_suggestion(repo)
    assert "pattern:security_sensitive(" not in after.notes
    assert "keyword:security(" not in after.notes


def test_repository_pack_adds_a_language_rule_and_tagging(repo: GitRepoBuilder) -> None:
    repo.write("svc/billing.py", "def charge(x):\n    return x\n")
    repo.commit("base")
    repo.write("svc/billing.py", "def charge(x):\n    return ledger.post(x)\n")
    repo.write("svc/other.py", "untracked files are left out in these tests\n")
    repo.write(".reviewtui/rules.yaml", """
languages:
  python:
    keywords:
      ledger:
        patterns: ['\\bledger\\.post\\(']
        risk: critical
        context_level: full_file
        notes: "acme:ledger"
""")
    suggestion = _only_suggestion(repo)
    assert "acme:ledger(ledger.post()" in suggestion.notes
    assert suggestion.context_level.value == "full_file"


def test_broken_repository_pack_is_a_clear_error(repo: GitRepoBuilder) -> None:
    _auth_change(repo)
    repo.write(".reviewtui/rules.toml", "[patterns.security_sensitive]\nrisk = 3\n")
    with pytest.raises(ConfigError, match=r"rules\.toml: patterns\.security_sensitive\.risk"):
        load_change(repo.root, ChangeSelector(SelectorMode.ALL))


def test_learned_rules_load_from_the_repository_and_take_part(repo: GitRepoBuilder) -> None:
    repo.write("lib/calc.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.write("lib/calc.py", "def add(a, b):\n    return b + a\n")
    assert _only_suggestion(repo).context_level.value == "function"
    repo.write(".reviewtui/learned_rules.json", json.dumps([
        {"tags": ["in_single_function"], "context_level": "local", "confidence": 0.9,
         "samples": 12, "language": "python"},
        {"tags": ["in_single_function"], "context_level": "full_file", "confidence": 0.99,
         "samples": 1},  # below learning.min_samples: ignored
    ]))
    learned = _only_suggestion(repo)
    assert learned.context_level.value == "diff_only"
    assert learned.confidence >= 0.9
    assert "learned in_single_function -> diff_only (confidence 0.90, 12 samples)" in (
        learned.notes)


def test_learned_rule_cannot_lower_a_high_risk_unit(repo: GitRepoBuilder) -> None:
    _auth_change(repo)
    repo.write(".reviewtui/learned_rules.toml",
               "[[learned]]\ntags = ['security_sensitive']\ncontext_level = 'local'\n"
               "confidence = 0.95\nsamples = 40\n")
    suggestion = _only_suggestion(repo)
    assert suggestion.context_level.value == "file_context"
    assert "ignored" in (suggestion.learned or "")


def test_learned_rule_paths_and_the_tags_it_never_lowers(repo: GitRepoBuilder) -> None:
    repo.write("conf/settings.py", "def limit():\n    return 10\n")
    repo.commit("base")
    repo.write("conf/settings.py", "def limit():\n    return 20\n")
    before = _only_suggestion(repo)
    assert before.risk.value == "medium" and before.context_level.value != "diff_only"
    learned = ("[[learned]]\ntags = ['in_single_function']\ncontext_level = 'diff_only'\n"
               "confidence = 0.9\nsamples = 5\npaths = ['{glob}']\n")
    repo.write(".reviewtui/learned_rules.toml", learned.format(glob="elsewhere/**"))
    assert _only_suggestion(repo).learned is None  # its path glob does not match
    repo.write(".reviewtui/learned_rules.toml", learned.format(glob="conf/**"))
    guarded = _only_suggestion(repo)
    assert guarded.context_level is before.context_level
    assert guarded.learned is not None and "ignored:" in guarded.learned
    assert "config_file keeps" in guarded.learned
