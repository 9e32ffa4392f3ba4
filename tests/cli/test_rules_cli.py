"""``reviewtui index`` with rule fields, ``reviewtui rules check`` and ``rules explain``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reviewtui.config import data_dir
from reviewtui.rules.confidence import final_confidence
from tests.cli.conftest import CliRunner
from tests.cli.test_bad_input import _assert_clean_error
from tests.conftest import GitRepoBuilder


def _change(repo: GitRepoBuilder) -> None:
    repo.write("app/auth.py", "def login(user):\n    return user.ok\n\n\ndef other():\n"
               "    return 1\n")
    repo.write("app/util.py", "import os\n\n\ndef f():\n    return 1\n")
    repo.commit("base")
    repo.write("app/auth.py", "def login(user):\n    return user.ok and user.active\n\n\n"
               "def other():\n    return 1\n")
    repo.write("app/util.py", "import os\nimport sys\n\n\ndef f():\n    return 1\n")


def test_index_fills_every_rule_field(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _change(repo)
    result = cli("index", "--json", repo.root)
    assert result.code == 0, result.err
    units = {u["file_path"]: u for u in result.json()["units"]}
    auth, util = units["app/auth.py"], units["app/util.py"]
    assert auth["rule_context_level"] == "file_context"
    assert auth["rule_confidence"] >= 0.8
    assert auth["agent_decision"] == {"context_level": "file_context", "priority": "high"}
    assert {"type": "previous_version"} in auth["rule_extra_requests"]
    assert "pattern:security_sensitive" in auth["rule_notes"]
    assert util["rule_context_level"] == "diff_only"
    assert util["agent_decision"]["priority"] == "low"
    assert "pattern:import_only" in util["rule_notes"]
    planner = cli("index", "--planner", repo.root).json()
    slim = {u["file_path"]: u for u in planner["units"]}
    assert slim["app/auth.py"]["rule_confidence"] == auth["rule_confidence"]
    assert "rule_notes" not in slim["app/auth.py"]
    table = cli("index", repo.root).out
    assert "file_context" in table and "CONF" in table and "RISK" in table


def test_rules_explain_shows_rules_risk_and_formula(repo: GitRepoBuilder,
                                                   cli: CliRunner) -> None:
    _change(repo)
    units = {u["file_path"]: u for u in cli("index", "--json", repo.root).json()["units"]}
    unit_id = units["app/auth.py"]["unit_id"]
    result = cli("rules", "explain", unit_id[:8], repo.root)
    assert result.code == 0, result.err
    out = result.out
    assert f"unit {unit_id}" in out
    assert "[pattern] patterns.security_sensitive" in out
    assert "risk score: security-sensitive" in out
    assert "match certainty = 0.3 + min(" in out
    confidence = units["app/auth.py"]["rule_confidence"]
    assert f"= {confidence:.2f}" in out
    assert "PythonRuleHandler" in out


def test_rules_explain_unknown_unit(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _change(repo)
    _assert_clean_error(cli("rules", "explain", "u_000000000000", repo.root), "no unit")
    units = cli("index", "--json", repo.root).json()["units"]
    assert len(units) > 1
    _assert_clean_error(cli("rules", "explain", "u_", repo.root),
                        f"{len(units)} units start with 'u_'")


def test_rules_check_default_and_file(repo: GitRepoBuilder, cli: CliRunner,
                                      tmp_path: Path) -> None:
    result = cli("rules", "check", "--repo", repo.root)
    assert result.code == 0, result.err
    assert "python.toml" in result.out and "merged:" in result.out
    good = tmp_path / "team.toml"
    good.write_text('language = "python"\n[keywords.money]\npatterns = ["Decimal\\\\("]\n'
                    'risk = "high"\n')
    ok = cli("rules", "check", good)
    assert ok.code == 0 and "ok:" in ok.out and "python 1" in ok.out
    bad = tmp_path / "bad.toml"
    bad.write_text('language = "python"\n[keywords.money]\npatterns = ["Decimal("]\n')
    _assert_clean_error(cli("rules", "check", bad), "bad.toml", "keywords.money.patterns[0]")
    _assert_clean_error(cli("rules", "check", tmp_path / "none.toml"), "no such rule pack")
    # a folder is named as one, and the option that checks a repository's packs offered
    _assert_clean_error(cli("rules", "check", tmp_path), "a folder, not a rule pack file",
                        "--repo")


def test_rules_check_repo_alone_is_the_current_directory(
        repo: GitRepoBuilder, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    # The help said "default: current directory", but a bare --repo was an argparse error.
    (repo.root / ".reviewtui").mkdir()
    (repo.root / ".reviewtui" / "rules.toml").write_text(
        'language = "python"\n[keywords.money]\npatterns = ["Decimal\\\\("]\nrisk = "high"\n')
    monkeypatch.chdir(repo.root / ".reviewtui")
    result = cli("rules", "check", "--repo")
    assert result.code == 0, result.err
    assert "rules.toml" in result.out


def test_rules_check_names_what_a_repo_pack_misspells(repo: GitRepoBuilder,
                                                      cli: CliRunner) -> None:
    # Each of these loads, and did nothing, silently: a disabled rule that is not one, rules
    # for a language no file is read as, a rule that needs a tag no unit gets.
    repo.write(".reviewtui/rules.toml",
               "[patterns.logging_onyl]\nenabled = false\n"
               "[languages.pyhton.keywords.money]\nwords = ['Decimal']\n"
               "[languages.python.keywords.money]\nwords = ['Decimal']\n"
               "requires_tags = ['security_sensitve']\n")
    result = cli("rules", "check", "--repo", repo.root)
    assert result.code == 1, result.out
    warnings = [line for line in result.out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 3, result.out
    assert "patterns.logging_onyl: no such rule to change" in warnings[0]
    assert "did you mean 'logging_only'?" in warnings[0]
    assert "languages.pyhton: no file is read as 'pyhton'" in warnings[1]
    assert "did you mean 'python'?" in warnings[1]
    assert "requires_tags: no unit is tagged 'security_sensitve'" in warnings[2]
    assert "did you mean 'security_sensitive'?" in warnings[2]
    assert "3 warnings" in result.out
    # the pack still loads: index is not refused over it
    _change(repo)
    assert cli("index", repo.root).code == 0
    # spelled right, the same pack is clean
    repo.write(".reviewtui/rules.toml",
               "[patterns.logging_only]\nenabled = false\n"
               "[languages.python.keywords.money]\nwords = ['Decimal']\n"
               "requires_tags = ['security_sensitive']\n")
    clean = cli("rules", "check", "--repo", repo.root)
    assert clean.code == 0 and "warning" not in clean.out, clean.out
    # one file given is read over the shipped pack the same way
    loose = repo.root / "team.toml"
    loose.write_text('language = "javscript"\n[keywords.money]\nwords = ["Decimal"]\n')
    alone = cli("rules", "check", loose)
    assert alone.code == 1 and "did you mean 'javascript'?" in alone.out


def test_broken_repo_pack_fails_index_cleanly(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _change(repo)
    repo.write(".reviewtui/rules.toml", "[patterns.import_only]\ncontext_level = 'tiny'\n")
    _assert_clean_error(cli("index", repo.root), "rules.toml", "patterns.import_only")


def test_a_catastrophic_regex_in_the_repo_pack_is_refused(repo: GitRepoBuilder,
                                                          cli: CliRunner) -> None:
    """A repository's pack with ``(a+)+$`` kept ``index`` busy for hours on one changed line
    of a's, and ``rules check`` said "ok": both now refuse it, naming the file and the key."""
    _change(repo)
    repo.write(".reviewtui/rules.toml", '[languages.python.keywords.ledger]\n'
               'patterns = ["(a+)+$"]\nrisk = "critical"\n')
    _assert_clean_error(cli("rules", "check", "--repo", repo.root), "rules.toml",
                        "keywords.ledger.patterns[0]", "repeats a repeat without bound")
    repo.write("app/util.py", "import os\n\n\ndef f():\n    return '" + "a" * 40 + "!'\n")
    _assert_clean_error(cli("index", repo.root), "rules.toml", "keywords.ledger.patterns[0]")


def test_confidence_follows_the_seed_formula(repo: GitRepoBuilder) -> None:
    """Every non-fallback suggestion is exactly match_certainty x 0.6 + risk bonus + 0.15."""
    from reviewtui.git import ChangeSelector, SelectorMode
    from reviewtui.pipeline import load_change

    _change(repo)
    repo.write("big.py", "".join(f"x{i} = {i}\n" for i in range(90)))
    repo.write("notes.xyz", "plain data\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL))
    by_path = {u.file_path: loaded.suggestions[u.unit_id] for u in loaded.units}
    for suggestion in by_path.values():
        if suggestion.matches and suggestion.learned is None:
            assert suggestion.confidence == final_confidence(
                suggestion.factors.match_certainty(), suggestion.risk)
    assert by_path["big.py"].context_level.value == "file_context"  # size is never hidden
    assert "size:large(" in by_path["big.py"].notes
    fallback = by_path["notes.xyz"]
    assert fallback.decided_by == "fallback"
    assert fallback.context_level.value == "function"
    assert 0.3 <= fallback.confidence <= 0.45


def test_index_scan_runs_ruff_for_real_and_raises_the_level(repo: GitRepoBuilder,
                                                            cli: CliRunner) -> None:
    repo.write("lib/calc.py", "def add(a, b):\n    return a + b\n\n\ndef keep():\n"
               "    return 1\n")
    repo.commit("base")
    repo.write("lib/calc.py", "def add(a, b):\n    return a + b + undefined_total\n\n\n"
               "def keep():\n    return 1\n")
    plain = cli("index", "--json", repo.root).json()["units"][0]
    assert plain["rule_context_level"] == "function"
    assert plain["scanner_issues"] is None
    result = cli("index", "--json", "--scan-tools", "ruff", repo.root)
    assert result.code == 0, result.err
    unit = result.json()["units"][0]
    assert [(f["tool"], f["rule_id"], f["line"], f["severity"])
            for f in unit["scanner_issues"]] == [("ruff", "F821", 2, "error")]
    assert unit["rule_context_level"] == "file_context"  # raised one level (seed)
    assert unit["rule_confidence"] == round(plain["rule_confidence"] + 0.1, 2)
    assert {"type": "scanner_issues"} in unit["rule_extra_requests"]
    assert "scanner_errors=1: raised function -> file_context" in unit["rule_notes"]
    assert "scanners: ran ruff; 1 errors" in result.err
    again = cli("index", "--json", "--scan-tools", "ruff", repo.root)
    assert "(1 cached results)" in again.err


def test_index_scan_reads_the_commit_not_the_work_tree(repo: GitRepoBuilder,
                                                       cli: CliRunner) -> None:
    repo.write("lib/calc.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.write("lib/calc.py", "def add(a, b):\n    return a + b + missing_name\n")
    repo.commit("bug")
    repo.write("lib/calc.py", "def add(a, b):\n    return a + b + 0\n")  # fixed on disk only
    unit = cli("index", "--json", "--commit", "HEAD", "--scan-tools", "ruff",
               repo.root).json()["units"][0]
    assert [f["rule_id"] for f in unit["scanner_issues"]] == ["F821"]


NEW_PACKS = ["rust", "c", "cpp", "csharp", "php", "kotlin"]


@pytest.mark.parametrize("language", NEW_PACKS)
def test_rules_check_accepts_each_new_language_pack(cli: CliRunner, language: str) -> None:
    path = data_dir("rules") / f"{language}.toml"
    result = cli("rules", "check", path)
    assert result.code == 0, result.err
    assert f"ok: {path}" in result.out and f" {language} " in result.out


@pytest.mark.parametrize(("language", "rule", "key"), [
    ("rust", "keywords.unsafe_code", "risk"),
    ("csharp", "decorators.allow_anonymous", "context_level"),
    ("kotlin", "paths.security", "match"),
])
def test_a_broken_new_pack_names_the_file_and_the_key(cli: CliRunner, tmp_path: Path,
                                                      language: str, rule: str,
                                                      key: str) -> None:
    text = (data_dir("rules") / f"{language}.toml").read_text(encoding="utf-8")
    start = text.index(f"[{rule}]\n")
    line_start = text.index(f"\n{key} = ", start) + 1
    line_end = text.index("\n", line_start)
    broken = tmp_path / f"{language}.toml"
    broken.write_text(text[:line_start] + f"{key} = 42" + text[line_end:], encoding="utf-8")
    _assert_clean_error(cli("rules", "check", broken), str(broken), f"{rule}.{key}")


def test_index_scan_runs_cppcheck_for_real_on_c_code(repo: GitRepoBuilder,
                                                    cli: CliRunner) -> None:
    if shutil.which("cppcheck") is None:
        pytest.skip("cppcheck is not installed")
    before = "#include <stdlib.h>\n\nvoid drop(char *p) {\n    free(p);\n}\n"
    repo.write("src/drop.c", before)
    repo.commit("base")
    repo.write("src/drop.c", before.replace("    free(p);\n", "    free(p);\n    free(p);\n"))
    plain = cli("index", "--json", repo.root).json()["units"][0]
    result = cli("index", "--json", "--scan-tools", "cppcheck", repo.root)
    assert result.code == 0, result.err
    unit = result.json()["units"][0]
    assert [(f["tool"], f["rule_id"], f["line"], f["severity"])
            for f in unit["scanner_issues"]] == [("cppcheck", "doubleFree", 5, "error")]
    assert "c:allocation(free()" in unit["rule_notes"]
    assert unit["rule_context_level"] != plain["rule_context_level"]  # raised one level
    assert "scanners: ran cppcheck; 1 errors" in result.err
