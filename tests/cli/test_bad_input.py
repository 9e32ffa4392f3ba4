"""Bad input: one clear line on stderr, exit status 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import CliRunner, Result
from tests.conftest import GitRepoBuilder


def _assert_clean_error(result: Result, *fragments: str) -> None:
    assert result.code == 2, (result.out, result.err)
    assert "Traceback" not in result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("reviewtui: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_not_a_repository(tmp_path: Path, installed: CliRunner) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    _assert_clean_error(installed("index", plain), "not a git repository")


def test_path_does_not_exist(tmp_path: Path, cli: CliRunner) -> None:
    _assert_clean_error(cli("index", tmp_path / "missing"), "path does not exist")


def test_empty_repository(make_repo: type[GitRepoBuilder], installed: CliRunner) -> None:
    repo = make_repo()
    repo.write("a.py", "x = 1\n")
    _assert_clean_error(installed("index", repo.root), "has no commits yet")


@pytest.mark.parametrize("args", [("--commit", "nope"), ("--range", "nope..HEAD"),
                                  ("--base", "nope"), ("--commit", "--output=/tmp/x")])
def test_unknown_ref(repo: GitRepoBuilder, cli: CliRunner, args: tuple[str, str]) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    result = cli("index", args[0] + "=" + args[1], repo.root)
    _assert_clean_error(result, "revision")


def test_patch_that_does_not_parse(repo: GitRepoBuilder, tmp_path: Path,
                                   installed: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    bad = tmp_path / "bad.patch"
    bad.write_text("this is not a diff\njust words\n")
    _assert_clean_error(installed("index", "--patch", bad, repo.root), "contains no diff")
    truncated = tmp_path / "trunc.patch"
    truncated.write_text("--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n x = 1\n")
    _assert_clean_error(installed("index", "--patch", truncated, repo.root), "not a valid diff")
    _assert_clean_error(installed("index", "--patch", tmp_path / "none.patch", repo.root),
                        "patch file not found")


def test_broken_config(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    (repo.root / ".reviewtui.toml").write_text("[units]\nmerge_gap = 'wide'\n")
    _assert_clean_error(cli("index", repo.root), ".reviewtui.toml", "units.merge_gap")
    (repo.root / ".reviewtui.toml").write_text("[units\n")
    _assert_clean_error(cli("index", repo.root), "not valid TOML")
    (repo.root / ".reviewtui.toml").write_text("[unitz]\nmerge_gap = 1\n")
    _assert_clean_error(cli("index", repo.root), "unitz")
    # A range starts git before the settings are read: the error must still be the same line.
    repo.write("a.py", "x = 2\n")
    repo.commit("two")
    for selector in (("--range", "HEAD~1..HEAD"), ("--commit", "HEAD"), ("--staged",)):
        _assert_clean_error(cli("index", *selector, repo.root), "unitz")


def test_settings_files_that_are_not_utf8(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    repo.write("a.py", "x = 2\n")
    (repo.root / ".reviewtui.toml").write_bytes(b"# r\xe9glages\n[units]\nmerge_gap = 6\n")
    _assert_clean_error(cli("index", repo.root), ".reviewtui.toml",
                        "not UTF-8 text (TOML is): byte 0xe9 at line 1")
    (repo.root / ".reviewtui.toml").unlink()
    (repo.root / ".reviewtui").mkdir()
    (repo.root / ".reviewtui" / "triage_weights.toml").write_bytes(
        b"[weights]\n# appris \xe9\n")
    _assert_clean_error(cli("index", "--sort", "priority", repo.root), "triage_weights.toml",
                        "byte 0xe9 at line 2")


def test_conflicting_selectors_are_a_usage_error(repo: GitRepoBuilder, cli: CliRunner) -> None:
    with pytest.raises(SystemExit) as exc:
        cli("index", "--staged", "--working", repo.root)
    assert exc.value.code == 2


def test_version_and_help(installed: CliRunner) -> None:
    version = installed("--version")
    assert version.code == 0 and version.out.startswith("reviewtui ")
    help_text = installed("--help")
    assert help_text.code == 0 and "--staged" in help_text.out and "index" in help_text.out
    index_help = installed("index", "--help")
    assert index_help.code == 0 and "--planner" in index_help.out
