"""SZZ on generated histories: the fix is found, the blame lands on the commit that planted
the bug, and commits that only say "fix" about a typo are not fixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.eval.cases import MiningProgress, MiningSettings, examine, mine_cases
from reviewtui.eval.mining import CommitRecord, FixLimits, fix_sources, is_source, stream_commits
from reviewtui.eval.szz import meaningful
from reviewtui.git import open_repository
from reviewtui.history.fixes import (
    DEFAULT_EXCLUDE_PATTERNS,
    DEFAULT_FIX_PATTERNS,
    FixMatcher,
    issue_refs,
)
from tests.conftest import GitRepoBuilder
from tests.support.histories import bug_fixed_in, planted_bug

SETTINGS = MiningSettings(DEFAULT_FIX_PATTERNS, DEFAULT_EXCLUDE_PATTERNS, FixLimits())


def test_fix_messages_are_told_from_typos_docs_bumps_and_reverts() -> None:
    matcher = FixMatcher.build()
    for message in ("Fix off-by-one in pager", "fix(router): crash on empty path",
                    "Handle empty input\n\nFixes #123", "Closes: org/repo#9 wrong total",
                    "Correct a regression in parsing", "bugfix: stale cache"):
        assert matcher.is_fix(message), message
    for message in ("fix typo in README", "Fix docs for install", "fix formatting",
                    "Fix lint errors", "fix type hints", "Bump version to 1.2", "Revert \"Fix x\"",
                    "Merge branch 'fix-x'", "Add a prefix option", "fix mypy errors",
                    # a pull request's number on every merged commit (curl's convention)
                    "GHA: update dependency fil-c to v0.684\n\nCloses #19512",
                    "lib: new easy option string storage\n\nResolves: acme/shop#7"):
        assert not matcher.is_fix(message), message
    assert issue_refs("x\n\nFixes #12\nCloses GH-7") == ["#12", "GH-7"]


def test_a_revert_is_no_fix_whatever_its_subject_or_the_exclusions_say() -> None:
    """A revert removes what the reverted commit added: its blame lands on that commit, and
    every unit of it "held the bug" (axios's "fix: revert named exports" made a case in which
    every unit of source of the commit it undid held the bug). Not the subject's ``^revert``
    exclusion alone: a project's own ``exclude_patterns`` replace it, and "fix: revert ..."
    never started with it. A squashed pull request listing a commit it reverted along the way
    is still what its subject says."""
    marker = "This reverts commit 0123456789abcdef0123456789abcdef01234567."
    for matcher in (FixMatcher.build(), FixMatcher.build(DEFAULT_FIX_PATTERNS, [r"\btypo"])):
        for message in (f'Revert "Fix pager"\n\n{marker}\n', "fix: revert named exports",
                        "Fixed FormData posting in browsers by reverting #3785",
                        "Improve BadRequest logic. Partially reverts 8f8df53, fixes #1211",
                        "Opps.  Wrong repo.  Reverting.",
                        f"Fix the pager\n\n{marker}\n\nIt broke paging.",
                        "Backed out changeset 3f2a1b0c9d8e: crash on start"):
            assert not matcher.is_fix(message), message
        for message in ("Fix error prone warnings (#2316)\n\n* Fix `JdkObsolete` warn\n\n"
                        f'* Revert "Adds annotations"\n\n{marker}\n',
                        "accidentally reverted previous fix", "Fix reverse order of pages"):
            assert matcher.is_fix(message), message


def test_a_revert_makes_no_case(repo: GitRepoBuilder) -> None:
    """git's own revert (its subject a project's exclusions may not cover) and one told in
    other words: both blamed the commit they undid, every line of it a "target"."""
    repo.write("shop/pricing.py", "def discounted(price, percent):\n    return price\n")
    repo.commit("initial shop", date="2024-01-01T00:00:00Z")
    repo.write("shop/pricing.py", "def discounted(price, percent):\n    return price - percent\n")
    repo.commit("discounts", date="2024-01-02T00:00:00Z")
    repo.write("shop/pricing.py", "def discounted(price, percent):\n    return price\n")
    repo.commit("fix: revert discounts", date="2024-01-03T00:00:00Z")
    repo.write("shop/report.py", "def title(report):\n    return report.name.title()\n")
    repo.commit("fix the report's title", date="2024-01-04T00:00:00Z")
    repo.git("revert", "--no-edit", "HEAD")
    own = MiningSettings(DEFAULT_FIX_PATTERNS, (r"\btypos?\b",), FixLimits())
    for settings in (SETTINGS, own):
        assert mine_cases(open_repository(repo.root), settings) == []


def test_source_files_are_code_not_tests_docs_or_vendored() -> None:
    assert is_source("src/app/models.py") and is_source("lib/router.go")
    for path in ("tests/test_models.py", "docs/conf.py", "vendor/lib/x.go", "README.md",
                 "config.yaml", "node_modules/a/index.js", "router_test.go", "logo.png"):
        assert not is_source(path), path


def test_blank_comment_and_punctuation_lines_are_not_blamed() -> None:
    assert meaningful("    return price - percent")
    for text in ("", "   ", "# a comment", "// note", " * doc", "}", "  ),", '"""'):
        assert not meaningful(text), text


def test_the_fix_is_found_and_its_blame_lands_on_the_bug_commit(
        repo: GitRepoBuilder) -> None:
    planted = planted_bug(repo)
    cases = mine_cases(open_repository(repo.root), SETTINGS)
    assert [c.bug for c in cases] == [planted.bug]
    case = cases[0]
    assert [f.sha for f in case.fixes] == [planted.fix]  # the README typo "fix" is not a fix
    assert case.targets == [("shop/pricing.py", planted.bug_line)]
    assert case.subject == "add discounts and scaling helpers"


def test_a_fix_of_a_binary_or_vendored_file_alone_is_no_candidate(
        repo: GitRepoBuilder) -> None:
    repo.write("vendor/lib.py", "x = 1\ny = 2\n")
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x01")
    repo.commit("initial")
    repo.write("vendor/lib.py", "x = 1\ny = 3\n")
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x02")
    repo.commit("fix vendored lib and logo")
    matcher = FixMatcher.build()
    commits = list(stream_commits(open_repository(repo.root)))
    assert commits[0].subject == "fix vendored lib and logo"
    assert any(f.binary for f in commits[0].files)
    assert fix_sources(commits[0], matcher, FixLimits()) is None


def test_a_fix_removing_too_many_lines_is_no_candidate(repo: GitRepoBuilder) -> None:
    repo.write("app.py", "".join(f"x{i} = {i}\n" for i in range(60)))
    repo.commit("initial")
    repo.write("app.py", "".join(f"x{i} = {i + 1}\n" for i in range(60)))
    repo.commit("fix every constant")
    commit = next(stream_commits(open_repository(repo.root)))
    assert fix_sources(commit, FixMatcher.build(), FixLimits(max_removed=40)) is None
    assert fix_sources(commit, FixMatcher.build(), FixLimits(max_removed=60)) == ("app.py",)


def test_a_fix_whose_parent_is_missing_is_skipped_with_the_reason(
        repo: GitRepoBuilder) -> None:
    repo.write("app.py", "x = 1\n")
    head = repo.commit("initial")
    commit = CommitRecord(head, ("0" * 40,), 0, "a", "fix x", ())
    record = examine(open_repository(repo.root), commit, SETTINGS)
    assert record.bug is None and "parent is missing" in (record.reason or "")


def test_mining_stops_reading_the_history_once_it_has_its_cases(
        repo: GitRepoBuilder) -> None:
    repo.write("app.py", "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(30)))
    repo.commit("initial")
    for i in range(30):
        text = (repo.root / "app.py").read_text().replace(f"return {i}\n", f"return {i} + 0\n")
        repo.write("app.py", text)
        repo.commit(f"change f{i}")
        text = text.replace(f"return {i} + 0\n", f"return {i} + 1\n")
        repo.write("app.py", text)
        repo.commit(f"fix f{i} off by one")
    seen: list[int] = []
    cases = mine_cases(open_repository(repo.root), SETTINGS, max_cases=2,
                       on_progress=lambda p: seen.append(p.commits))
    assert len(cases) == 2
    assert max(seen) < 20  # of 61 commits


@pytest.mark.parametrize("name", ["my file.py", 'say "hi" now.py', "caf\u00e9 menu.py"])
def test_a_fix_in_a_file_named_with_a_space_or_quote_is_traced(
        repo: GitRepoBuilder, name: str) -> None:
    """git ends a ``--- a/my file.py`` line with a TAB and quotes a name with a quote: the
    blame still reads the file (it was lost, the reason counted nowhere)."""
    bug, line = bug_fixed_in(repo, name)
    [case] = mine_cases(open_repository(repo.root), SETTINGS)
    assert case.bug == bug and case.targets == [(name, line)]


def test_a_fix_in_a_file_whose_name_is_not_utf8_is_traced(repo: GitRepoBuilder) -> None:
    """A Latin-1 name (``caf\xe9.py``): git is asked about the name's own bytes (the fix was
    reported as removing "only blank or comment lines"), and the targets name the file as the
    index's units do, with a replacement character."""
    name = "caf\udce9.py"  # the byte 0xE9, as the file system has it
    repo.write(name, "def total(items):\n    return 0\n")
    repo.commit("initial")
    repo.write(name, "def total(items):\n    return sum(items) - 1\n")
    bug = repo.commit("totals")
    repo.write(name, "def total(items):\n    return sum(items)\n")
    repo.commit("fix total: off by one")
    [case] = mine_cases(open_repository(repo.root), SETTINGS)
    assert case.bug == bug and case.targets == [("caf\ufffd.py", 2)]


def test_a_fix_git_cannot_blame_is_counted_not_silent(repo: GitRepoBuilder) -> None:
    """A fix whose before-side blob is missing (a broken clone): git fails on it, and the
    mining says so (and does not keep the failure: it is examined again next time)."""
    bug, _ = bug_fixed_in(repo, "good.py")
    bug_fixed_in(repo, "lost.py")
    blob = repo.git("rev-parse", "HEAD~1:lost.py").strip()
    (repo.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    seen: list[MiningProgress] = []
    cases = mine_cases(open_repository(repo.root), SETTINGS, on_progress=seen.append)
    assert [c.bug for c in cases] == [bug]
    assert seen[-1].failed == 1 and seen[-1].fixes == 2


def test_a_configured_blame_ignore_list_neither_stops_nor_steers_the_blame(
        repo: GitRepoBuilder, isolated_git: Path) -> None:
    """``blame.ignoreRevsFile`` is often set globally for the projects that have such a file;
    git blame stops on a repository without it, and where it exists it would move the blame
    off the commits it lists. Neither may change what is mined."""
    repo.write("shop/pricing.py", "def discounted(price, percent):\n    return price\n")
    repo.commit("initial shop")
    repo.write("shop/pricing.py", "def discounted(price, percent):\n    return price - percent\n")
    bug = repo.commit("discounts")
    repo.write("shop/pricing.py",
               "def discounted(price, percent):\n    return price * (100 - percent) / 100\n")
    repo.commit("fix discounted price: a percentage is a share of the price")
    with isolated_git.open("a") as config:
        config.write("[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n")
    cases = mine_cases(open_repository(repo.root), SETTINGS)
    assert [(c.bug, c.targets) for c in cases] == [(bug, [("shop/pricing.py", 2)])]
    (repo.root / ".git-blame-ignore-revs").write_text(bug + "\n")  # would blame the root
    cases = mine_cases(open_repository(repo.root), SETTINGS)
    assert [(c.bug, c.targets) for c in cases] == [(bug, [("shop/pricing.py", 2)])]


def test_the_repositorys_blame_ignore_list_takes_the_blame_off_a_reformat(
        repo: GitRepoBuilder, isolated_git: Path, tmp_path: Path) -> None:
    """A mass reformat listed in the project's committed ``.git-blame-ignore-revs`` was
    blamed as the bug commit. The list as the repository's HEAD has it applies (kept cases are
    mined again when it changes); lines git would die on (a short or unknown id, a blob, junk)
    are left out, and the person's ``blame.ignoreRevsFile`` changes nothing."""
    repo.write("shop/pricing.py", "def discounted(price, percent):\n    return price\n\n\n"
                                  "def taxed(price, rate):\n    return price\n")
    repo.commit("initial shop", date="2024-01-01T00:00:00Z")
    repo.write("shop/pricing.py", "def discounted(price, percent):\n    return price - percent\n"
                                  "\n\ndef taxed(price, rate):\n    return price\n")
    bug = repo.commit("discounts", date="2024-01-02T00:00:00Z")
    repo.write("shop/pricing.py", "def discounted(price, percent):\n"
                                  "    return (price - percent)\n\n\n"
                                  "def taxed(price, rate):\n    return (price)\n")
    reformat = repo.commit("reformat the shop", date="2024-01-03T00:00:00Z")
    repo.write("shop/pricing.py", "def discounted(price, percent):\n"
                                  "    return (price * (100 - percent) / 100)\n\n\n"
                                  "def taxed(price, rate):\n    return (price)\n")
    repo.commit("fix discounted price: a percentage is a share of the price",
                date="2024-01-04T00:00:00Z")
    cache = tmp_path / "cache"
    [case] = mine_cases(open_repository(repo.root), SETTINGS, cache_dir=cache)
    assert case.bug == reformat  # nothing lists it yet
    blob = repo.git("rev-parse", "HEAD:shop/pricing.py").strip()
    repo.write(".git-blame-ignore-revs", f"# black\n{reformat}  # the shop, reformatted\n"
                                         f"{reformat[:12]}\n{'ab' * 20}\n{blob}\nnot an id\n")
    repo.commit("ignore the reformat in blame", date="2024-01-05T00:00:00Z")
    (repo.root / ".git-blame-ignore-revs").unlink()  # HEAD's list, not the working tree's
    for _ in range(2):
        [case] = mine_cases(open_repository(repo.root), SETTINGS, cache_dir=cache)
        assert (case.bug, case.targets) == (bug, [("shop/pricing.py", 2)])
        with isolated_git.open("a") as config:
            config.write("[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n")


def test_a_fix_of_whitespace_alone_is_no_fix_but_a_wrapped_line_is_blamed(
        repo: GitRepoBuilder) -> None:
    """A "fix cs" that only re-indents a line and adds the newline missing at the end of the
    file blamed whoever wrote that line for a bug (blame ignores whitespace, the fix's diff did
    not). A fix that wraps lines in a new ``if`` re-indents them too, and they are the bug."""
    repo.write("shop/report.py", "def report(items):\n    first = items[0]\n"
                                 "    return first.name\n")
    repo.commit("initial", date="2024-01-01T00:00:00Z")
    repo.write("shop/pricing.py", "def total(items):\n   return sum(items)\n")
    repo.commit("totals", date="2024-01-03T00:00:00Z")
    repo.write("shop/pricing.py", "def total(items):\n    return sum(items)")
    repo.commit("fix cs", date="2024-01-04T00:00:00Z")  # re-indented, no newline at the end
    assert mine_cases(open_repository(repo.root), SETTINGS) == []
    repo.write("shop/report.py", "def report(items):\n    first = items[0] if items else None\n"
                                 "    return first.name.upper()\n")
    bug = repo.commit("report without items", date="2024-01-05T00:00:00Z")
    repo.write("shop/report.py", "def report(items):\n    first = items[0] if items else None\n"
                                 "    if first is not None:\n        return first.name.upper()\n"
                                 "    return ''\n")
    repo.commit("fix crash in report without items", date="2024-01-06T00:00:00Z")
    [case] = mine_cases(open_repository(repo.root), SETTINGS)
    assert (case.bug, case.targets) == (bug, [("shop/report.py", 3)])


def test_a_fix_that_also_moves_its_file_blames_only_the_lines_it_changed(
        repo: GitRepoBuilder) -> None:
    """A fix that renames the file it fixes: read without renames, the whole old file was
    "removed", so every line of it was blamed and the commit that wrote most of the file (here
    the root) won over the one that planted the bug."""
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(6))
    repo.write("shop/old.py", body)
    repo.commit("initial")
    buggy = body.replace("return x + 3\n", "return x - 3\n")
    repo.write("shop/old.py", buggy)
    bug = repo.commit("rework f3")
    (repo.root / "shop" / "old.py").unlink()
    repo.write("shop/new.py", buggy.replace("return x - 3\n", "return x * 3\n"))
    repo.commit("fix f3 and move it to new.py")
    [case] = mine_cases(open_repository(repo.root), SETTINGS)
    assert (case.bug, case.targets) == (bug, [("shop/old.py", 14)])


def test_a_removed_comment_line_that_looks_like_a_header_does_not_hide_the_rest(
        repo: GitRepoBuilder) -> None:
    """A removed Lua (or Haskell) comment ``-- note`` is the diff line ``--- note``: read as a
    file header, it ended the file, and the fix's other removed lines there were not blamed."""
    repo.write("shop/price.lua", "-- prices\nlocal function total(x)\n  return x\nend\n")
    repo.commit("initial")
    repo.write("shop/price.lua", "-- prices\nlocal function total(x)\n  return x - 1\nend\n")
    bug = repo.commit("totals")
    repo.write("shop/price.lua", "local function total(x)\n  return x\nend\n")
    repo.commit("fix total: off by one")
    [case] = mine_cases(open_repository(repo.root), SETTINGS)
    assert (case.bug, case.targets) == (bug, [("shop/price.lua", 3)])
