"""The change's stated purpose: commit messages (trailers, issues, odd encodings, merges), the
branch and the description, gathered from real repositories and rendered under the cap."""

from __future__ import annotations

import time

from reviewtui.git import ChangeSelector, SelectorMode, collect_change, open_repository
from reviewtui.git.intent import ChangeIntent, CommitMessage, gather_intent, split_message
from reviewtui.git.intent_text import (
    INTENT_MAX_TOKENS,
    INTENT_MIN_TOKENS,
    intent_budget,
    intent_markdown,
)
from reviewtui.llm import token_counter
from tests.conftest import GitRepoBuilder
from tests.support.history import long_range

OPENAI_KEY = "sk-proj-Abcdefghijklmnop0123456789"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def _base(repo: GitRepoBuilder) -> GitRepoBuilder:
    repo.write("app/service.py", "def charge(amount):\n    return amount * 2\n")
    repo.write("app/views.py", "def pay():\n    return 1\n")
    repo.commit("base")
    return repo


def _intent(repo: GitRepoBuilder, selector: ChangeSelector,
            description: str | None = None) -> ChangeIntent:
    git = open_repository(repo.root)
    return gather_intent(git, collect_change(git, selector), description=description,
                         description_source="--description")


def test_trailers_and_closing_keywords_are_parsed_out() -> None:
    subject, body, trailers = split_message(
        "Round totals half-up\n\nThe invoice total was truncated.\n\nFixes #12\n"
        "Closes: acme/shop#3\nCo-authored-by: Ana <ana@example.com>\n")
    assert subject == "Round totals half-up"
    assert body == "The invoice total was truncated."
    assert [(t.key, t.value) for t in trailers] == [
        ("Fixes", "#12"), ("Closes", "acme/shop#3"), ("Co-authored-by", "Ana <ana@example.com>")]
    # a last paragraph that is prose stays the body
    assert split_message("Subject\n\nSee: the docs explain it. And more prose here.\nline")[2] == ()
    assert split_message("") == ("", "", ())


def test_range_with_merge_non_utf8_empty_message_and_a_planted_key(
        repo: GitRepoBuilder) -> None:
    _base(repo)
    start = repo.head()
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("app/topic.py", "x = 1\n")
    repo.commit("Add the topic module\n\nResolves #7")
    repo.git("checkout", "-q", "main")
    repo.write("app/views.py", "def pay():\n    return 2\n")
    repo.commit(f"Pay two\n\nUses the key {OPENAI_KEY} and {AWS_KEY} by mistake.\n\nFixes #12")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'topic'", "topic")
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    latin = repo.git("commit-tree", tree, "-p", "HEAD", input=b"Caf\xe9 au lait\n").strip()
    empty = repo.git("commit-tree", tree, "-p", latin, input=b"").strip()
    repo.git("update-ref", "refs/heads/main", empty)

    intent = _intent(repo, ChangeSelector(SelectorMode.RANGE, ref=f"{start}..main"),
                     "Pays two instead of one.")
    assert intent.total_commits == 5
    subjects = [c.subject for c in intent.commits]
    # git reads a message that is not UTF-8 as Latin-1 for %B; bytes it still cannot decode
    # would be replaced, never raise
    assert subjects[1] in ("Caf\u00e9 au lait", "Caf\ufffd au lait")
    assert subjects[:1] + subjects[2:] == ["", "Merge branch 'topic'", "Pay two",
                                           "Add the topic module"]
    assert [c.merge for c in intent.commits] == [False, False, True, False, False]
    assert intent.branch == "main"
    assert intent.issues == ("#12", "#7")
    pay = intent.commits[3]
    assert OPENAI_KEY not in pay.body and AWS_KEY not in pay.body
    assert pay.body == "Uses the key [REDACTED] and [REDACTED] by mistake."
    text = intent_markdown(intent, token_counter(None).count, 3_000)
    assert "(empty commit message)" in text and "(merge): Merge branch 'topic'" in text
    assert "### Description\nPays two instead of one." in text
    assert "Linked issues: #12, #7" in text and "Branch: main" in text
    assert intent.headline() == ("Pays two instead of one. · 5 commits · branch main · "
                                 "issues #12, #7")


def test_a_working_tree_change_has_only_its_description(repo: GitRepoBuilder) -> None:
    _base(repo)
    repo.write("app/views.py", "def pay():\n    return 3\n")
    intent = _intent(repo, ChangeSelector(SelectorMode.WORKING))
    assert (intent.commits, intent.total_commits, intent.branch) == ((), 0, "main")
    assert intent.headline() == "branch main"
    described = _intent(repo, ChangeSelector(SelectorMode.STAGED), f"key {OPENAI_KEY}")
    assert described.description == "key [REDACTED]"


def test_five_thousand_commits_are_capped_most_recent_first(repo: GitRepoBuilder) -> None:
    _base(repo)
    started = time.monotonic()
    base, tip = long_range(repo, 5_000)
    assert time.monotonic() - started < 20  # fast-import: no 5,000 git processes
    intent = _intent(repo, ChangeSelector(SelectorMode.RANGE, ref=f"{base}..{tip}"))
    assert intent.total_commits == 5_000
    assert len(intent.commits) == 1_000  # read; the rest is counted
    counter = token_counter(None)
    budget = intent_budget(32_000)
    assert (INTENT_MIN_TOKENS, budget, INTENT_MAX_TOKENS) == (200, 3_200, 4_000)
    text = intent_markdown(intent, counter.count, budget)
    assert counter.count(text) <= budget
    lines = text.splitlines()
    shown = [line for line in lines if line.startswith("- ") and "Step" in line]
    assert shown[0].endswith("Step 5000 of the migration")  # most recent first
    assert all(line.endswith(f"Step {5000 - n} of the migration") for n, line in enumerate(shown))
    assert 50 < len(shown) < 1_000
    assert lines[-1] == f"- … and {5_000 - len(shown)} older commits not shown"
    assert "Part 5000" not in text  # first lines only


def test_huge_subjects_and_descriptions_stay_within_the_budget() -> None:
    words = " ".join(f"word{n}" for n in range(2_000))
    intent = ChangeIntent(
        commits=tuple(CommitMessage(f"{n:040x}", f"{n} {words}", words) for n in range(3)),
        total_commits=3, description=f"{words}\n{words}\nlast line")
    counter = token_counter(None)
    text = intent_markdown(intent, counter.count, 600)
    assert counter.count(text) <= 600
    assert "[… description cut to fit the model's budget]" in text
    shown = [line for line in text.splitlines() if line.startswith("- 00")]
    assert shown and all(len(line) < 240 and line.endswith("…") for line in shown)
