"""Every change selector, through the real command line, over real repositories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder


def _files(result: Any) -> dict[str, dict[str, Any]]:
    return {u["file_path"]: u for u in result["units"]}


def _setup(repo: GitRepoBuilder) -> None:
    repo.write("app.py", "def a():\n    return 1\n")
    repo.write("lib.py", "X = 1\n")
    repo.commit("base")
    repo.write("app.py", "def a():\n    return 2\n")  # staged
    repo.git("add", "app.py")
    repo.write("lib.py", "X = 2\n")  # unstaged
    repo.write("new/dir/untracked.py", "print('hi')\n")  # untracked, inside untracked folder


def test_staged_only_sees_the_index(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _setup(repo)
    result = cli("index", "--staged", "--json", repo.root)
    assert result.code == 0, result.err
    data = result.json()
    assert data["review_metadata"]["mode"] == "staged"
    assert set(_files(data)) == {"app.py"}


def test_working_sees_unstaged_and_untracked_in_folders(repo: GitRepoBuilder,
                                                        cli: CliRunner) -> None:
    _setup(repo)
    data = cli("index", "--working", "--json", repo.root).json()
    files = _files(data)
    assert set(files) == {"lib.py", "new/dir/untracked.py"}
    assert "new_file" in files["new/dir/untracked.py"]["tags"]
    assert files["new/dir/untracked.py"]["line_numbers"]["new_compact"] == "L1"


def test_working_without_untracked(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _setup(repo)
    data = cli("index", "--working", "--no-untracked", "--json", repo.root).json()
    assert set(_files(data)) == {"lib.py"}


def test_all_and_auto_see_everything_against_head(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _setup(repo)
    for args in (("--all",), ()):
        data = cli("index", *args, "--json", repo.root).json()
        assert set(_files(data)) == {"app.py", "lib.py", "new/dir/untracked.py"}
        assert data["review_metadata"]["old"] == "HEAD"
        assert data["review_metadata"]["new"] == "worktree"


def test_ignored_files_are_not_reviewed(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write(".gitignore", "*.log\n")
    repo.commit("base")
    repo.write("debug.log", "noise\n")
    repo.write("keep.txt", "signal\n")
    data = cli("index", "--json", repo.root).json()
    assert set(_files(data)) == {"keep.txt"}


def _branch_repo(repo: GitRepoBuilder) -> tuple[str, str]:
    repo.write("a.py", "x = 1\n")
    base = repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("a.py", "x = 1\ny = 2\n")
    repo.commit("feature work")
    repo.git("checkout", "-q", "main")
    repo.write("main_only.py", "z = 3\n")
    repo.commit("main moves on")
    repo.git("checkout", "-q", "feature")
    return base, repo.head()


def test_base_uses_the_merge_base(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _branch_repo(repo)
    data = cli("index", "--base", "main", "--json", repo.root).json()
    assert data["review_metadata"]["mode"] == "pr"
    assert data["review_metadata"]["base_branch"] == "main"
    assert set(_files(data)) == {"a.py"}  # not main_only.py: that is main's change


def test_base_without_ref_detects_default_branch(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _branch_repo(repo)
    data = cli("index", "--base", "--json", repo.root).json()
    assert data["review_metadata"]["base_branch"] == "main"
    assert set(_files(data)) == {"a.py"}


def test_auto_on_clean_branch_reviews_branch_against_default(repo: GitRepoBuilder,
                                                            cli: CliRunner) -> None:
    _branch_repo(repo)
    data = cli("index", "--json", repo.root).json()
    assert data["review_metadata"]["mode"] == "pr"
    assert set(_files(data)) == {"a.py"}


def test_auto_on_clean_default_branch_reviews_last_commit(repo: GitRepoBuilder,
                                                         cli: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    repo.write("b.py", "y = 1\n")
    repo.commit("two")
    data = cli("index", "--json", repo.root).json()
    assert data["review_metadata"]["mode"] == "commit"
    assert set(_files(data)) == {"b.py"}


def test_master_is_a_default_branch_too(make_repo: type[GitRepoBuilder], cli: CliRunner) -> None:
    repo = make_repo()
    repo.git("branch", "-m", "master")
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("a.py", "x = 2\n")
    repo.commit("topic")
    data = cli("index", "--base", "--json", repo.root).json()
    assert data["review_metadata"]["base_branch"] == "master"


def test_configured_default_branch_wins(repo: GitRepoBuilder, cli: CliRunner,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "develop")
    repo.write("d.py", "d = 1\n")
    repo.commit("develop work")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("f.py", "f = 1\n")
    repo.commit("feature work")
    assert set(_files(cli("index", "--base", "--json", repo.root).json())) == {"d.py", "f.py"}
    (repo.root.parent / "cfg").mkdir()
    config = repo.root.parent / "cfg" / "reviewtui"
    config.mkdir()
    (config / "config.toml").write_text('[git]\ndefault_branch = "develop"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(repo.root.parent / "cfg"))
    for args in (("--base",), ()):
        data = cli("index", *args, "--json", repo.root).json()
        assert data["review_metadata"]["base_branch"] == "develop"
        assert set(_files(data)) == {"f.py"}


def test_commit_reads_after_side_from_the_commit(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("m.py", "def f():\n    return 1\n")
    repo.commit("one")
    repo.write("m.py", "def f():\n    return 2\n")
    sha = repo.commit("two")
    # The working tree now differs completely; the commit's own content must be used.
    repo.write("m.py", "# rewritten\n\n\n\nclass Other:\n    pass\n")
    data = cli("index", "--commit", sha, "--json", repo.root).json()
    unit = _files(data)["m.py"]
    assert unit["line_numbers"] == {"new_compact": "L2", "old_compact": "L2"}
    assert "in_single_function" in unit["tags"]
    assert unit["symbols"] == [] or "f" in unit["symbols"][0]


def test_root_commit_is_reviewable(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("first.py", "a = 1\n")
    sha = repo.commit("root")
    data = cli("index", "--commit", sha, "--json", repo.root).json()
    assert set(_files(data)) == {"first.py"}
    assert "new_file" in _files(data)["first.py"]["tags"]


def test_range_two_and_three_dots(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _base, feature = _branch_repo(repo)
    two = cli("index", "--range", f"main..{feature}", "--json", repo.root).json()
    # main..feature compares the two tips: main's own file shows up as deleted
    assert set(_files(two)) == {"a.py", "main_only.py"}
    assert "deleted_file" in _files(two)["main_only.py"]["tags"]
    three = cli("index", "--range", f"main...{feature}", "--json", repo.root).json()
    assert set(_files(three)) == {"a.py"}
    assert two["review_metadata"]["mode"] == "range"


def test_patch_file_and_stdin(repo: GitRepoBuilder, cli: CliRunner, installed: CliRunner) -> None:
    repo.write("p.py", "a = 1\nb = 2\n")
    repo.commit("base")
    repo.write("p.py", "a = 1\nb = 3\n")
    patch = repo.git("diff")
    patch_file = repo.root.parent / "change.patch"
    patch_file.write_text(patch)
    repo.git("checkout", "--", "p.py")
    data = cli("index", "--patch", patch_file, "--json", repo.root).json()
    assert data["review_metadata"]["mode"] == "patch"
    assert _files(data)["p.py"]["line_numbers"] == {"new_compact": "L2", "old_compact": "L2"}
    piped = installed("index", "--patch", "-", "--json", repo.root, stdin=patch.encode())
    assert piped.code == 0, piped.err
    assert [u["unit_id"] for u in piped.json()["units"]] == [u["unit_id"] for u in data["units"]]


def test_path_is_searched_upwards(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("pkg/sub/x.py", "a = 1\n")
    repo.commit("base")
    repo.write("pkg/sub/x.py", "a = 2\n")
    data = cli("index", "--json", repo.root / "pkg" / "sub").json()
    assert set(_files(data)) == {"pkg/sub/x.py"}


def test_default_command_prints_a_table(repo: GitRepoBuilder, installed: CliRunner) -> None:
    repo.write("x.py", "a = 1\n")
    repo.commit("base")
    repo.write("x.py", "a = 2\n")
    result = installed(cwd=repo.root)
    assert result.code == 0, result.err
    assert "x.py:L1" in result.out
    assert "UNIT" in result.out


def test_planner_index_is_slim(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("x.py", "a = 1\n")
    repo.commit("base")
    repo.write("x.py", "a = 2\n")
    data = cli("index", "--planner", repo.root).json()
    unit = data["units"][0]
    assert set(unit) == {"unit_id", "file_path", "patch_type", "tags", "metrics",
                         "rule_context_level", "rule_confidence", "line_numbers",
                         "rule_extra_requests", "risk", "priority"}
    assert set(data) == {"review_metadata", "summary", "units"}
    assert data["summary"]["changes_by_type"]["modify"] == 1
    assert data["summary"]["total_lines"] == {"added": 1, "removed": 1}


def test_empty_change_prints_empty_index(repo: GitRepoBuilder, cli: CliRunner) -> None:
    repo.write("x.py", "a = 1\n")
    repo.commit("base")
    result = cli("index", "--staged", "--json", repo.root)
    assert result.code == 0
    assert result.json()["units"] == []
    table = cli("index", "--staged", repo.root)
    assert table.code == 0
    assert "no changes to review" in table.out


@pytest.mark.parametrize("command", [("index", "--json"), ("index", "--working", "--json"),
                                     ("plan", "--no-llm", "--json")])
def test_an_unreadable_untracked_file_is_listed_not_fatal(
        repo: GitRepoBuilder, cli: CliRunner, monkeypatch: pytest.MonkeyPatch,
        command: tuple[str, ...]) -> None:
    """An untracked file git lists but nobody may read (chmod 000; root reads anything, so
    the read is refused here) is part of the change, tagged unreadable, without lines."""
    repo.write("seed.py", "X = 1\n")
    repo.commit("base")
    secret = repo.write("secret.py", "TOKEN = 'x'\n")
    repo.write("ok.py", "Y = 2\n")
    read_bytes = Path.read_bytes

    def refuse(self: Path) -> bytes:
        if self.name == secret.name:
            raise PermissionError(13, "Permission denied", str(self))
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    result = cli(*command, repo.root)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    if command[0] == "index":
        files = _files(result.json())
        assert {"unreadable", "untracked", "new_file"} <= set(files["secret.py"]["tags"])
        assert files["secret.py"]["metrics"]["added_lines"] == 0
        assert "unreadable" not in files["ok.py"]["tags"]
        assert files["ok.py"]["line_numbers"]["new_compact"] == "L1"
    else:
        assert "secret.py" in result.out


def test_an_unborn_branch_still_reviews_named_commits(repo: GitRepoBuilder,
                                                      cli: CliRunner) -> None:
    """On a branch with no commit yet (``git checkout --orphan``), a selector naming commits
    works; --base, which needs HEAD, says HEAD is unborn, not that there are no commits."""
    repo.write("a.py", "x = 1\n")
    repo.commit("one")
    repo.write("a.py", "x = 2\n")
    repo.commit("two")
    repo.git("checkout", "-q", "--orphan", "gh-pages")
    for selector in (("--commit", "main"), ("--range", "main~1..main")):
        result = cli("index", *selector, "--json", repo.root)
        assert result.code == 0, result.err
        assert _files(result.json())["a.py"]["line_numbers"]["new_compact"] == "L1"
    base = cli("index", "--base", "main", repo.root)
    assert base.code == 2 and "no commits yet" in base.err
    assert base.err.startswith("reviewtui: error: HEAD is an unborn branch ('gh-pages'")
    assert "Traceback" not in base.err
    unknown = cli("index", "--commit", "nope", repo.root)
    assert unknown.code == 2 and "unknown revision 'nope'" in unknown.err


def test_the_first_commit_is_reviewed_before_it_is_made(make_repo: type[GitRepoBuilder],
                                                       cli: CliRunner) -> None:
    """A repository with no commit yet: --staged reads the index against the empty tree,
    --working and --all the files on disk; with no selector it is still refused, naming them."""
    repo = make_repo()
    repo.write("app.py", "def main():\n    return 1\n")
    repo.git("add", "app.py")
    repo.write("notes.py", "x = 1\n")
    staged = cli("index", "--staged", "--json", repo.root)
    assert staged.code == 0, staged.err
    assert list(_files(staged.json())) == ["app.py"]
    assert staged.json()["review_metadata"]["old"] == "empty tree"
    assert _files(staged.json())["app.py"]["change_type"] == "add"
    everything = cli("index", "--all", "--json", repo.root)
    assert everything.code == 0, everything.err
    assert sorted(_files(everything.json())) == ["app.py", "notes.py"]
    assert everything.json()["review_metadata"]["old"] == "empty tree"
    working = cli("index", "--working", repo.root)
    assert working.code == 0 and "notes.py" in working.out, working.err
    bare = cli("index", repo.root)
    assert bare.code == 2 and "no commits yet" in bare.err and "--staged" in bare.err
    # the same on a branch with no commit of its own
    repo.commit("one")
    repo.git("checkout", "-q", "--orphan", "fresh")
    repo.write("app.py", "def main():\n    return 2\n")
    repo.git("add", "app.py")
    orphan = cli("index", "--staged", "--json", repo.root)
    assert orphan.code == 0, orphan.err
    assert _files(orphan.json())["app.py"]["line_numbers"]["new_compact"] == "L1-2"


def test_a_patch_series_changing_a_file_twice_is_refused(repo: GitRepoBuilder,
                                                         cli: CliRunner) -> None:
    """A ``git format-patch`` mbox: patch 1 changes line 14, patch 2 inserts a line above it.
    Read patch by patch, the unit said L14 where the final file has it at L15: refused with
    one line; a series changing each file once is read as before."""
    repo.write("a.py", "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(5)))
    repo.write("b.py", "B = 1\n")
    repo.commit("base")
    repo.write("a.py", (repo.root / "a.py").read_text().replace("x + 3", "x - 3"))
    repo.commit("p1")
    repo.write("a.py", "import sys\n" + (repo.root / "a.py").read_text())
    repo.commit("p2")
    repo.write("b.py", "B = 2\n")
    repo.commit("p3")
    series = repo.root / "series.mbox"
    series.write_text(repo.git("format-patch", "-3", "--stdout"))
    refused = cli("index", "--patch", series, repo.root)
    assert refused.code == 2 and refused.out == ""
    assert refused.err.startswith("reviewtui: error: ") and refused.err.count("\n") == 1
    assert "patches 1 and 2 both change a.py" in refused.err and "squash" in refused.err
    series.write_text(repo.git("format-patch", "-2", "--stdout"))  # p2 (a.py), p3 (b.py)
    result = cli("index", "--patch", series, "--json", repo.root)
    assert result.code == 0, result.err
    files = _files(result.json())
    assert files["a.py"]["line_numbers"]["new_compact"] == "L1"
    assert files["b.py"]["line_numbers"]["new_compact"] == "L1"


def test_a_tree_or_blob_id_is_named_as_not_a_commit(repo: GitRepoBuilder, cli: CliRunner) -> None:
    # It said "unknown revision", as if the id were mistyped.
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    blob = repo.git("rev-parse", "HEAD:a.py").strip()
    for oid, kind in ((tree, "tree"), (blob, "blob")):
        result = cli("index", "--commit", oid, repo.root)
        assert result.code == 2
        assert result.err.startswith(f"reviewtui: error: '{oid}' names a {kind}, not a commit")
    unknown = cli("index", "--commit", "nosuchref", repo.root)
    assert unknown.code == 2 and "unknown revision 'nosuchref'" in unknown.err
