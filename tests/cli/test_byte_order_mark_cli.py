"""TOML files a Windows editor saved with a UTF-8 byte-order mark are read like any other."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder

BOM = b"\xef\xbb\xbf"


def test_settings_and_rule_packs_with_a_byte_order_mark_are_read(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    # tomllib refuses the mark: every command failed with "Invalid statement (at line 1,
    # column 1)" although the file looked right in the editor
    repo.write("app/ledger.py", "def post(entry):\n    return entry\n")
    repo.commit("base")
    repo.write("app/ledger.py", "def post(entry):\n    return ledger.post(entry)\n")
    repo.write(".reviewtui.toml", BOM + b"[units]\nmerge_gap = 3\n")
    repo.write(".reviewtui/rules.toml", BOM + b"[languages.python.keywords.ledger]\n"
               b"patterns = ['ledger\\.post\\(']\nrisk = \"critical\"\n")
    result = cli("index", "--json", repo.root)
    assert result.code == 0, result.err
    [unit] = [u for u in result.json()["units"] if u["file_path"] == "app/ledger.py"]
    assert "matched: python.keywords.ledger(ledger.post()" in unit["rule_notes"]
    check = cli("rules", "check", "--repo", repo.root)
    assert check.code == 0 and "rules.toml" in check.out, check.out + check.err
