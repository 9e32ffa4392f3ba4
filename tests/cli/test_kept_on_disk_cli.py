"""``git rm --cached``, through ``index`` and ``bundle``: the file is named in a line of its own
saying it leaves the repository and stays on disk, and the review agent's bundle says so."""

from __future__ import annotations

import pytest

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder

NOTE = ("deleted from the repository, kept on disk untracked ('git rm --cached'): clones lose "
        "the file, this working tree keeps it")


@pytest.mark.parametrize("selector", [(), ("--all",), ("--working",), ("--staged",)])
def test_a_file_untracked_in_place_is_said_to_stay_on_disk(
        repo: GitRepoBuilder, cli: CliRunner, selector: tuple[str, ...]) -> None:
    repo.write("settings.py", "DEBUG = True\nSECRET = 'x'\n")
    repo.write("app.py", "def run():\n    return 1\n")
    repo.commit("base")
    repo.git("rm", "-q", "--cached", "settings.py")
    table = cli("index", *selector, repo.root)
    assert table.code == 0, table.err
    assert f"kept on disk: settings.py - {NOTE}" in table.out.splitlines(), table.out
    [unit] = cli("index", "--json", *selector, repo.root).json()["units"]
    assert unit["change_type"] == "delete" and "kept_on_disk" in unit["tags"]
    bundles = cli("bundle", "--json", "--no-llm", *selector, repo.root).json()["bundles"]
    assert NOTE in bundles[0]["notes"]
    plain = cli("index", "--commit", "HEAD", repo.root)
    assert "kept on disk" not in plain.out
