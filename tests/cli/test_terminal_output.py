"""Headless commands on a terminal show a change's controls as pictures; a pipe gets them exact.

A file named with ``ESC [2J`` cleared the screen of ``reviewtui index`` (and recoloured it
after); an unknown ref typed with one did the same through the error message.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from reviewtui.cli import main
from reviewtui.cli.table import display_width
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder

ODD = "a\x1b[2J\x1b[31mred.py"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _change(repo: GitRepoBuilder) -> None:
    repo.write(ODD, "def f():\n    return 1\n")
    repo.commit("base")
    repo.write(ODD, "def f():\n    return 2\n")


def test_the_index_on_a_terminal_shows_the_path_escape_as_its_picture(
        repo: GitRepoBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    _change(repo)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["index", str(repo.root)]) == 0
    assert sys.stdout is terminal  # put back after the command
    out = terminal.getvalue()
    assert "a\u241b[2J\u241b[31mred.py:L2" in out and "\x1b" not in out


def test_piped_the_json_is_exact_and_the_table_still_one_line_a_unit(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    _change(repo)
    assert cli("index", "--json", repo.root).json()["units"][0]["file_path"] == ODD
    table = cli("index", repo.root).out
    assert "a\u241b[2J\u241b[31mred.py:L2" in table and "\x1b" not in table


def test_an_error_naming_what_was_typed_shows_its_controls(tmp_path: Path,
                                                             cli: CliRunner) -> None:
    result = cli("index", tmp_path / "no\x1b]0;title\x07such")
    assert result.code == 2
    assert "no\u241b]0;title\u2407such" in result.err and "\x1b" not in result.err


def test_a_path_with_a_newline_and_a_tab_keeps_the_table_one_row_a_unit(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    odd = "a\nb\tc.py"
    repo.write(odd, "def f():\n    return 1\n")
    repo.commit("base")
    repo.write(odd, "def f():\n    return 2\n")
    result = cli("index", repo.root)
    [row] = [line for line in result.out.splitlines() if line.startswith("u_")]
    assert "a\u240ab\u2409c.py:L2" in row and row.endswith("in_single_function")
    assert cli("index", "--json", repo.root).json()["units"][0]["file_path"] == odd  # exact


@pytest.mark.parametrize("command", [("plan", "--no-llm"), ("bundle", "--no-llm")])
def test_plan_and_bundle_tables_keep_such_a_path_on_its_row(
        repo: GitRepoBuilder, cli: CliRunner, command: tuple[str, ...]) -> None:
    """The plan's and the bundles' tables printed the newline and the tab as they are: the
    row broke in two and the columns after the path shifted."""
    odd = "a\nb\tc.py"
    repo.write(odd, "def f():\n    return 1\n")
    repo.commit("base")
    repo.write(odd, "def f():\n    return 2\n")
    result = cli(*command, repo.root)
    assert result.code == 0, result.err
    [row] = [line for line in result.out.splitlines() if line.startswith("u_")]
    assert "a\u240ab\u2409c.py:L2  " in row and "function" in row


def test_a_wide_named_file_keeps_the_columns_aligned(repo: GitRepoBuilder,
                                                     cli: CliRunner) -> None:
    """Columns were padded by characters: a CJK name (two cells a character) pushed the rest
    of its row seven cells to the right of the header's columns."""
    names = ("日本語ファイル.py", "plain.py", "e\u0301te.py")  # wide, narrow, combining
    for name in names:
        repo.write(name, "def f():\n    return 1\n")
    repo.commit("base")
    for name in names:
        repo.write(name, "def f():\n    return 2\n")
    for command in (("index",), ("plan", "--no-llm"), ("bundle", "--no-llm")):
        out = cli(*command, repo.root).out.splitlines()
        [header] = [line for line in out if line.startswith("UNIT")]
        third = header.split()[2]
        starts = {display_width(header[:header.index(third)])}
        for row in (line for line in out if line.startswith("u_")):
            location = next(f"{name}:L2" for name in names if f"{name}:L2" in row)
            end = row.index(location) + len(location)
            starts.add(display_width(row[:end]) + len(row[end:]) - len(row[end:].lstrip()))
        assert len(starts) == 1, (command, out)
