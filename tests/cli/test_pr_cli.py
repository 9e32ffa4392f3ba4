"""``reviewtui --pr N|URL`` and ``reviewtui publish``: a GitHub pull request reviewed and the
person's review published, through the real command line, the real ``git fetch`` (from a bare
repository standing in for GitHub) and the real HTTP client against a local API whose every
request and answer is checked against GitHub's OpenAPI description (a pinned subset)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewtui.sessions import SessionStore
from reviewtui.sessions.review_records import (
    ReviewComment,
    ReviewVerdict,
    StoredFinding,
    StoredFix,
)
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.forge_world import (
    HEAD,
    PULL_URL,
    PullWorld,
    build_world,
    contributor_fork,
    git,
    seed_review,
)
from tests.support.github_server import GitHubServer
from tests.support.openai_server import Reply, ScriptedOpenAIServer

PULL_REFS = "refs/reviewtui/pr/github.com/octo/proj"  # where --pr N is fetched

TAIL_LINE = HEAD.splitlines().index("    return amount + 2") + 1


@pytest.fixture
def world(make_repo: type[GitRepoBuilder], tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[PullWorld]:
    with GitHubServer() as server:
        built = build_world(make_repo, tmp_path, monkeypatch, server)
        built.open_pull(7, built.head_sha, title="Charge three times",
                        body="Customers pay triple now.\n\nCloses #12", labels=("billing",))
        yield built
        assert server.fake.violations == []  # every request and answer matched the contract


def _no_token(world: PullWorld, *texts: str) -> None:
    for text in texts:
        assert world.fake.token not in text


def test_open_by_number_fetches_head_and_base_and_takes_the_intent(
        world: PullWorld, cli: CliRunner) -> None:
    before = git(world.local, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")
    head_before = git(world.local, "rev-parse", "HEAD")
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert "intent: Charge three times" in result.out
    assert "issues #12" in result.out  # "Closes #12" in the body: a linked issue
    assert "app/service.py" in result.out
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == world.head_sha
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/base") == world.base_sha
    # nothing of the person's changed: branches, HEAD, the working tree
    assert git(world.local, "for-each-ref", "--format=%(refname) %(objectname)",
               "refs/heads") == before
    assert git(world.local, "rev-parse", "HEAD") == head_before
    assert git(world.local, "status", "--porcelain") == ""
    [get] = world.fake.ops("GET")
    assert get.path == "/repos/octo/proj/pulls/7"
    assert get.authorization == f"Bearer {world.fake.token}"
    _no_token(world, result.out, result.err)


def test_open_by_url_without_a_forge_remote(world: PullWorld, cli: CliRunner) -> None:
    # origin is a plain path: the URL names the repository; git's insteadOf finds the bare one
    git(world.local, "remote", "set-url", "origin", str(world.remote))
    result = cli("index", "--json", "--pr", PULL_URL.format(number=7), world.local)
    assert result.code == 0, result.err
    index = result.json()
    assert [u["file_path"] for u in index["units"]] == ["app/service.py"] * len(index["units"])
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == world.head_sha


def test_pull_request_from_a_fork(world: PullWorld, cli: CliRunner, tmp_path: Path) -> None:
    fork, fork_head = contributor_fork(tmp_path, world.upstream.root, world.base_sha)
    world.push_pull(8, fork_head, source=fork)  # only the base repository's pull ref has it
    world.fake.add_pull(8, head_sha=fork_head, base_sha=world.base_sha, head_owner="contrib",
                        head_ref="contrib-branch", title="Add extra")
    result = cli("index", "--pr", "8", world.local)
    assert result.code == 0, result.err
    assert "app/extra.py" in result.out and "intent: Add extra" in result.out
    assert git(world.local, "rev-parse", f"{PULL_REFS}/8/head") == fork_head


def test_a_pull_request_merged_with_a_merge_commit_still_shows_its_change(
        world: PullWorld, cli: CliRunner) -> None:
    """Once merged, the head is in the base branch's history: merge-base(base, head) is the head
    itself, and the change would look empty. The base is the branch as the merge found it."""
    upstream = world.upstream
    upstream.write("README.md", "later on main\n")
    upstream.commit("main moved on")
    upstream.git("merge", "-q", "--no-ff", "-m", "Merge pull request #7", world.head_sha)
    upstream.write("README.md", "after the merge\n")
    upstream.commit("main after the merge")
    git(upstream.root, "push", "-q", str(world.remote), "main:main")
    world.fake.pulls[7].update(state="closed", merged=True)
    result = cli("index", "--json", "--pr", "7", world.local)
    assert result.code == 0, result.err
    units = result.json()["units"]
    assert {u["file_path"] for u in units} == {"app/service.py"}
    assert sum(u["metrics"]["added_lines"] for u in units) == 2
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == world.head_sha


def test_publish_dry_run_then_publish_then_again_without_duplicates(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.add_comment(7, path="app/service.py", line=2, body="Why 3?", user="colleague")

    dry = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert dry.code == 0, dry.err
    assert world.fake.ops("POST") == [] and world.fake.ops("PUT") == []
    assert "app/service.py L2 @colleague: Why 3?" in dry.out  # others' threads, read-only
    assert "POST /repos/octo/proj/pulls/7/reviews" in dry.out
    assert "in the summary: app/service.py L20: P3 · Helper returns a constant" in dry.out
    assert "token from GH_TOKEN" in dry.out
    _no_token(world, dry.out, dry.err)
    sent_json = dry.out.split("POST /repos/octo/proj/pulls/7/reviews", 1)[1]
    dry_body = json.loads(sent_json[sent_json.index("\n{"):].split("\nin the summary")[0])

    first = cli("publish", "--pr", "7", world.local)
    assert first.code == 0, first.err
    [post] = world.fake.ops("POST")
    assert post.body == dry_body  # the dry run showed exactly what was sent
    body = post.body
    assert body["event"] == "REQUEST_CHANGES" and body["commit_id"] == world.head_sha
    assert body["body"].startswith("The rate change needs a decision.")
    assert "Helper returns a constant" in body["body"]  # line 20 is outside the diff
    assert "Not a problem" not in json.dumps(body)  # dismissed
    by_line = {c["line"]: c for c in body["comments"]}
    assert set(by_line) == {2, 3}
    assert by_line[2]["side"] == "RIGHT"
    assert "```suggestion\n    total = amount * 2\n```" in by_line[2]["body"]
    assert by_line[2]["body"].endswith("<!-- reviewtui:fingerprint=f-rate -->")
    assert "Is this covered by a test?" in by_line[3]["body"]
    assert "review 1" in first.out and "created: 2 line comments" in first.out

    # again, unchanged: the summary is edited in place, no comment is posted twice
    second = cli("publish", "--pr", "7", world.local)
    assert second.code == 0, second.err
    assert len(world.fake.ops("POST")) == 1
    assert [r.path for r in world.fake.ops("PUT")] == [
        f"/repos/octo/proj/pulls/7/reviews/{world.fake.reviews[7][0]['id']}"]
    assert "already published as they are: 2 comments" in second.out

    # a comment edited in the workbench: the published one is edited, not duplicated
    with SessionStore() as store:
        [session] = store.list_sessions()
        [comment] = store.comments(session.session_id)
        store.save_comment(session.session_id, comment.model_copy(
            update={"body": "Is this covered by a test? Please add one."}))
    third = cli("publish", "--pr", "7", world.local)
    assert third.code == 0, third.err
    [patch] = world.fake.ops("PATCH")
    assert patch.body["body"].startswith("Is this covered by a test? Please add one.")
    ours = [c for c in world.fake.comments[7] if "reviewtui:fingerprint" in c["body"]]
    assert len(ours) == 2 and len(world.fake.ops("POST")) == 1


def test_a_finding_whose_fix_was_applied_here_is_still_published(
        world: PullWorld, cli: CliRunner) -> None:
    # applied in this clone ("fixed"), but the pull request's head still has it
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_finding_state(sid, "f-rate", "fixed")
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    [post] = world.fake.ops("POST")
    [rate] = [c for c in post.body["comments"] if "Charge rate tripled" in c["body"]]
    assert "```suggestion\n    total = amount * 2\n```" in rate["body"]


def test_applying_a_fix_with_another_commit_checked_out_says_to_check_out_the_head(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    listed = cli("findings", "--json", "--pr", "7", world.local).json()["findings"]
    [rate] = [f["id"] for f in listed if f["fingerprint"] == "f-rate"]
    before = (world.local / "app/service.py").read_bytes()
    refused = cli("findings", "apply", rate, "--pr", "7", world.local)  # main is checked out
    assert refused.code == 2 and (world.local / "app/service.py").read_bytes() == before
    [line] = refused.err.splitlines()
    assert "the working tree is not octo/proj#7's head" in line
    assert f"git checkout --detach {PULL_REFS}/7/head" in line
    git(world.local, "checkout", "-q", "--detach", f"{PULL_REFS}/7/head")
    checked_out = cli("findings", "apply", rate, "--pr", "7", world.local)
    assert "is not octo/proj#7's head" not in checked_out.err  # the head is there now


def test_a_finding_without_an_applicable_fix_says_so_whatever_is_checked_out(
        world: PullWorld, cli: CliRunner) -> None:
    """With another commit checked out, every refusal said to check out the head, also for a
    finding with no fix or a text-only one, which no checkout makes apply."""
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        [helper] = [f for f in store.findings(sid) if f.fingerprint == "f-helper"]
        text_only = helper.model_copy(update={"fingerprint": "f-text", "fix": StoredFix(
            start_line=20, end_line=20, replacement="x\n", applicable=False,
            reason="the result does not parse as python (line 1)")})
        store.merge_findings(sid, [text_only], lambda _f: True)
    listed = cli("findings", "--json", "--pr", "7", world.local).json()["findings"]
    ids = {f["fingerprint"]: f["id"] for f in listed}
    for key, words in (("f-helper", "has no fix"), ("f-text", "fix is text only: the result "
                                                              "does not parse")):
        for dry in ((), ("--dry-run",)):
            refused = cli("findings", "apply", ids[key], *dry, "--pr", "7", world.local)
            assert refused.code == 2
            [line] = refused.err.splitlines()
            assert words in line and "is not octo/proj#7's head" not in line, line


def _colleagues_publish(world: PullWorld) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a colleague's own reviewtui left on pull request 7: a line comment whose key is
    one our store also has (``comment-1``) and a summary, both marked as reviewtui marks."""
    comment = world.fake.add_comment(
        7, path="app/service.py", line=3, user="colleague",
        body="Mine: please add a test.\n\n<!-- reviewtui:fingerprint=comment-1 -->")
    review = world.fake.contract.example("pull-request-review")
    review.update(id=world.fake.new_id(), state="CHANGES_REQUESTED", commit_id=world.head_sha,
                  body="Her summary.\n\n<!-- reviewtui:review -->")
    review["user"]["login"] = "colleague"
    world.fake.reviews[7].append(review)
    return comment, review


def test_publish_never_takes_over_a_colleagues_reviewtui_comments(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    comment, review = _colleagues_publish(world)
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert world.fake.ops("PATCH") == [] and world.fake.ops("PUT") == []
    [post] = world.fake.ops("POST")
    assert {c["line"] for c in post.body["comments"]} == {2, 3}  # ours, both posted
    assert comment["body"].startswith("Mine:") and review["body"].startswith("Her summary")
    assert "app/service.py L3 @colleague: Mine: please add a test." in result.out


def test_a_token_that_is_no_users_edits_what_its_bot_published(
        world: PullWorld, cli: CliRunner) -> None:
    # Actions' GITHUB_TOKEN: GET /user is refused, and what it publishes is a bot's
    world.fake.user_refused, world.fake.login = True, "github-actions[bot]"
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    comment, review = _colleagues_publish(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len(world.fake.ops("POST")) == 1  # the second one edited its own summary
    [put] = world.fake.ops("PUT")
    assert put.path.endswith(f"/reviews/{world.fake.reviews[7][-1]['id']}")
    assert review["body"].startswith("Her summary") and comment["body"].startswith("Mine:")


def test_a_rejected_token_names_its_source_not_its_value(
        world: PullWorld, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp_wrong_secret_value")
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 2
    assert result.err.strip().count("\n") == 0
    assert "rejected the token from GH_TOKEN (HTTP 401)" in result.err
    assert "ghp_wrong_secret_value" not in result.err + result.out
    assert "Traceback" not in result.err


@pytest.mark.parametrize("value", ["ghp_abc123\u2026", "ghp_abc123\nghp_second_line",
                                   "ghp_abc 123"])
def test_a_token_no_header_can_carry_is_one_line_that_never_shows_it(
        world: PullWorld, cli: CliRunner, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """A token copied with an ellipsis (as a page shows it cut) was a traceback; one with a
    line break in it was "cannot be reached: Illegal header value b'Bearer ...'": the token."""
    monkeypatch.setenv("GH_TOKEN", value)
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "the token from GH_TOKEN holds a character no HTTP header may carry" in line
    assert "ghp_abc" not in result.err + result.out
    assert world.fake.requests == []


def test_no_token_at_all(world: PullWorld, cli: CliRunner,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GH_TOKEN")
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 2
    assert "no GitHub token for github.com" in result.err and "gh auth login" in result.err


def test_an_unknown_pull_request(world: PullWorld, cli: CliRunner) -> None:
    result = cli("index", "--pr", "99", world.local)
    assert result.code == 2
    assert "pull request octo/proj#99 not found on github.com" in result.err
    assert git(world.local, "for-each-ref", "refs/reviewtui") == ""


def test_a_line_github_does_not_count_as_diff_goes_into_the_summary(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.diff_lines[7] = {"app/service.py": {2, TAIL_LINE}}  # narrower than ours
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    refused, accepted = world.fake.ops("POST")
    assert refused.status == 422 and accepted.status == 200
    assert [c["line"] for c in accepted.body["comments"]] == [2]
    summary = accepted.body["body"]
    assert "Is this covered by a test?" in summary  # moved, not lost
    assert "not on a changed line, refused by GitHub" in summary
    assert "1 line comments moved into the summary" in result.out

    # again, nothing changed: the refused line is not offered to GitHub again in a new
    # review (refused again, a new review each time): the summary is edited in place
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len(world.fake.ops("POST")) == 2 and len(world.fake.reviews[7]) == 1
    [put] = world.fake.ops("PUT")
    assert "Is this covered by a test?" in put.body["body"]


def test_a_refused_context_line_does_not_take_the_removed_lines_comments_with_it(
        world: PullWorld, cli: CliRunner) -> None:
    """GitHub's 422 names no comment: the comments on context lines go first, and those on
    removed lines stay on their lines when GitHub takes the review without the former."""
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.save_comment(sid, ReviewComment(file_path="app/service.py", side="old",
                                              start_line=2, end_line=2, body="Why was it 2?"))
    world.fake.diff_lines[7] = {"app/service.py": {2, TAIL_LINE}}  # line 3 refused
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    refused, accepted = world.fake.ops("POST")
    assert refused.status == 422 and accepted.status == 200
    placed = {c["body"].split("\n")[0]: c["side"] for c in accepted.body["comments"]}
    assert placed == {"**P1 · Charge rate tripled**": "RIGHT", "Why was it 2?": "LEFT"}
    assert "Is this covered by a test?" in accepted.body["body"]  # the context line's


def test_a_summary_longer_than_github_takes_is_shortened_not_refused(
        world: PullWorld, cli: CliRunner) -> None:
    """Many long findings off the diff's lines (or every comment, once the head moved) fold
    into the summary: past GitHub's 65,536 characters the review was refused (HTTP 422),
    whatever was moved, and nothing was published."""
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    long = [StoredFinding(fingerprint=f"f-long-{n}", title=f"Helper {n} is slow",
                          severity="P3", body=f"Helper {n} repeats work. " * 150,
                          file_path="app/service.py", start_line=20, end_line=20)
            for n in range(40)]
    with SessionStore() as store:
        store.merge_findings(sid, long, lambda _f: True)
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    [post] = world.fake.ops("POST")
    summary = post.body["body"]
    assert len(summary) <= 65_536 and summary.endswith("<!-- reviewtui:review -->")
    assert all(f"P3 · Helper {n} is slow" in summary for n in range(40))  # each one named
    assert "reviewtui export" in summary  # where their whole text is
    assert {c["line"] for c in post.body["comments"]} == {2, 3}  # the line comments as ever


@pytest.mark.parametrize("status", [429, 403])
def test_rate_limits_are_waited_out(world: PullWorld, cli: CliRunner, status: int) -> None:
    world.fake.rate_limited, world.fake.rate_status = 2, status
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert [r.status for r in world.fake.ops("GET")] == [status, status, 200]


def test_a_rate_limit_that_lasts_is_one_clear_line(world: PullWorld, cli: CliRunner) -> None:
    world.fake.rate_limited = 10
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 2
    assert "rate limit: still limited after 3 waits" in result.err
    assert len(world.fake.ops("GET")) == 4  # bounded


def _force_push(world: PullWorld) -> str:
    """The contributor amends pull request 7's commit and force-pushes: its new head."""
    world.upstream.git("checkout", "-q", "feature")
    world.upstream.write("app/service.py", HEAD.replace("amount * 3", "amount * 4"))
    world.upstream.git("commit", "-q", "--amend", "-a", "-m", "Quadruple")
    moved = world.upstream.head()
    world.push_pull(7, moved)
    world.fake.pulls[7]["head"]["sha"] = moved
    return moved


def test_a_head_force_pushed_since_the_review_gets_no_line_comments(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    _force_push(world)
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert "moved since the review" in result.err
    [post] = world.fake.ops("POST")
    assert post.body["comments"] == []
    assert post.body["commit_id"] == world.head_sha  # the head that was reviewed
    assert "the pull request's head moved since this review" in post.body["body"]
    assert "Is this covered by a test?" in post.body["body"]
    # the reviewed refs were not moved by publishing
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == world.head_sha


def test_comments_published_before_the_head_moved_are_not_copied_into_the_summary(
        world: PullWorld, cli: CliRunner) -> None:
    """Published on their lines, then the head moved and the review was published again: its
    comments were copied into the new summary too, said twice."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    on_lines = len(world.fake.comments[7])
    assert on_lines == 2
    _force_push(world)
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len(world.fake.comments[7]) == on_lines  # none posted again
    latest = world.fake.reviews[7][-1]["body"]
    assert "Is this covered by a test?" not in latest and "Charge rate tripled" not in latest
    assert "2 published on their lines before are left there" in latest
    assert "Helper returns a constant" in latest  # never on a line: still in the summary
    assert "already published as they are: 2 comments" in again.out


def test_the_review_of_an_earlier_head_is_kept_after_the_pull_request_is_fetched_again(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    moved = _force_push(world)
    # any --pr command fetches it again: the change is a new one, the review is the old one's
    listed = cli("findings", "--json", "--pr", "7", world.local)
    assert listed.code == 0, listed.err
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == moved
    assert {f["fingerprint"] for f in listed.json()["findings"]} >= {"f-rate", "f-helper"}
    assert f"at {world.head_sha[:10]}; its head is {moved[:10]} now" in listed.err
    published = cli("publish", "--pr", "7", world.local)
    assert published.code == 0, published.err
    [post] = world.fake.ops("POST")
    assert post.body["commit_id"] == world.head_sha and post.body["comments"] == []
    assert "the pull request's head moved since this review" in post.body["body"]


def test_export_after_the_pull_request_moved_exports_the_review_that_publish_sends(
        world: PullWorld, cli: CliRunner) -> None:
    """``findings`` and ``publish`` use the review of an earlier head once the pull request
    moved on; ``export`` said "no review kept" and wrote an empty review."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    moved = _force_push(world)
    exported = cli("export", "--format", "json", "--pr", "7", world.local)
    assert exported.code == 0, exported.err
    assert "no review kept" not in exported.err
    assert f"at {world.head_sha[:10]}; its head is {moved[:10]} now" in exported.err
    review = exported.json()
    assert review["verdict"] == "request_changes"
    assert "Is this covered by a test?" in [c["body"] for c in review["comments"]]
    assert "f-rate" in {f["fingerprint"] for f in review["findings"]}


def test_publish_before_opening_says_how(world: PullWorld, cli: CliRunner) -> None:
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 2
    assert "octo/proj#7 has not been opened here" in result.err
    assert "reviewtui --pr 7" in result.err


def test_review_of_a_pull_request_tells_the_model_its_stated_purpose(
        world: PullWorld, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "ok", "findings": [
        {"title": "Triple rate", "body": "Says triple; is triple.", "severity": "P3",
         "confidence": 0.5, "file_path": "app/service.py", "start_line": 2, "end_line": 2}]}))
    result = cli("review", "--rules-plan", "--pr", PULL_URL.format(number=7), world.local)
    assert result.code == 0, result.err
    [request] = fake_llm.chat_requests
    prompt = json.dumps(request.body["messages"])
    assert "Charge three times" in prompt and "Customers pay triple now." in prompt
    assert "Labels: billing" in prompt
    _no_token(world, prompt, result.out, result.err)
    # the findings are kept in the pull request's session: publish finds them
    dry = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert dry.code == 0, dry.err
    assert "P3 · Triple rate" in dry.out and '"event": "COMMENT"' in dry.out


def test_a_changed_verdict_is_a_new_review_and_the_old_summary_points_to_it(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    first_review = world.fake.reviews[7][0]["id"]
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="approve", summary="Fine after all."))
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    _first, second = world.fake.ops("POST")
    assert second.body["event"] == "APPROVE" and second.body["comments"] == []
    assert second.body["body"].startswith("Fine after all.")
    [put] = world.fake.ops("PUT")
    assert put.path.endswith(f"/reviews/{first_review}")
    assert "Superseded by a later review" in put.body["body"]
    assert "reviewtui:review -->" not in put.body["body"]  # no longer the summary to edit
    # and again: the new summary is edited in place, the old one stays a pointer
    assert cli("publish", "--pr", "7", world.local).code == 0
    assert len(world.fake.ops("POST")) == 2
    assert world.fake.ops("PUT")[-1].path.endswith(f"/reviews/{world.fake.reviews[7][1]['id']}")


def test_nothing_to_publish(world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 2
    assert "no review kept for octo/proj#7" in result.err


def test_publish_places_comments_and_findings_where_their_text_is(
        world: PullWorld, cli: CliRunner) -> None:
    """A comment and a finding kept on a line that no longer holds their text (the session
    kept them before the lines moved) are published on the line that does."""
    from reviewtui.agent.record import line_hash

    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    lines = HEAD.split("\n")
    anchor = line_hash("app/service.py", 2, 2, lambda _p, n: lines[n - 1])  # amount * 3
    with SessionStore() as store:
        [comment] = store.comments(sid)
        store.save_comment(sid, comment.model_copy(update={"line_hash": anchor}))
        rate = next(f for f in store.findings(sid) if f.fingerprint == "f-rate")
        store.update_findings(sid, [rate.model_copy(update={
            "start_line": 3, "end_line": 3, "line_hash": anchor, "fix": None})])
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    [post] = world.fake.ops("POST")
    by_body = {c["body"].split("\n")[0]: (c["line"], c["side"]) for c in post.body["comments"]}
    assert by_body == {"Is this covered by a test?": (2, "RIGHT"),
                       "**P1 · Charge rate tripled**": (2, "RIGHT")}


def test_comments_posted_again_on_a_new_head_are_not_posted_a_third_time(
        world: PullWorld, cli: CliRunner) -> None:
    """After a force-push GitHub leaves the first comments outdated (no line) and reviewtui
    posts them again on the new head; publishing that head again edits nothing and posts
    nothing: the comments on their lines now are the ones to compare with."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    _force_push(world)
    for comment in world.fake.comments[7]:
        comment.pop("line")  # outdated: the force-push took its hunk away
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)  # the same findings, reviewed on the new head
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    posted = len(world.fake.comments[7])
    assert posted == 4  # two outdated, two on the new head's lines
    third = cli("publish", "--pr", "7", world.local)
    assert third.code == 0, third.err
    assert len(world.fake.comments[7]) == posted, third.out  # no duplicates
    assert "already published as they are: 2 comments" in third.out


def test_the_review_of_a_new_head_leaves_the_earlier_heads_summary_as_it_was(
        world: PullWorld, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """The summary published for an earlier head holds the person's verdict and the comments
    that were never on a line: the review of a new head (a session of its own) is posted
    beside it, never written over it."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    [first] = world.fake.reviews[7]
    sent = first["body"]
    assert "The rate change needs a decision." in sent and "Helper returns a constant" in sent
    world.upstream.git("checkout", "-q", "feature")
    world.upstream.write("app/service.py", HEAD.replace("amount * 3", "amount * 4"))
    world.upstream.commit("Quadruple")
    moved = world.upstream.head()
    world.push_pull(7, moved)
    world.fake.pulls[7]["head"]["sha"] = moved
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": [
        {"title": "Quadruple now", "body": "b", "severity": "P2", "confidence": 0.9,
         "file_path": "app/service.py", "start_line": 2, "end_line": 2}]}))
    assert cli("review", "--rules-plan", "--pr", "7", world.local).code == 0
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    _first, second = world.fake.reviews[7]
    assert second["commit_id"] == moved and "Quadruple now" not in second["body"]
    assert first["body"] == sent  # the earlier head's review is as it was sent
    assert cli("publish", "--pr", "7", world.local).code == 0  # the new one is edited in place
    assert len(world.fake.reviews[7]) == 2 and first["body"] == sent


def test_an_approval_is_not_sent_for_a_head_that_moved_since_the_review(
        world: PullWorld, cli: CliRunner) -> None:
    """Approving the reviewed commit of a pull request whose head moved would approve the pull
    request with commits the person never saw: the review is a comment, and says why."""
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="approve", summary="Fine."))
    _force_push(world)
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    [post] = world.fake.ops("POST")
    assert post.body["event"] == "COMMENT"
    assert "not approved on GitHub: the head moved since the review" in post.body["body"]
    assert post.body["body"].count("Fine.") == 1
    assert [r["state"] for r in world.fake.reviews[7]] == ["COMMENTED"]
    assert "not approved on GitHub: the head moved" in result.out
    again = cli("publish", "--pr", "7", world.local)  # the same: its summary edited in place
    assert again.code == 0, again.err
    assert len(world.fake.ops("POST")) == 1 and len(world.fake.reviews[7]) == 1


@pytest.mark.parametrize("verdict", ["approve", "request_changes"])
def test_a_verdict_on_ones_own_pull_request_is_sent_as_a_comment(
        world: PullWorld, cli: CliRunner, verdict: str) -> None:
    """GitHub answers an approval or a request for changes from the pull request's author
    with HTTP 422: the line fallback moved every comment into the summary, retried three
    times, and nothing was published."""
    world.fake.pulls[7]["user"]["login"] = world.fake.login
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict=verdict, summary="My own change."))
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    [post] = world.fake.ops("POST")
    assert post.body["event"] == "COMMENT" and post.body["comments"]  # lines kept on lines
    assert "GitHub does not let the author of a pull request" in post.body["body"]
    assert "GitHub does not let the author of a pull request" in result.out
    assert [r["state"] for r in world.fake.reviews[7]] == ["COMMENTED"]


def test_a_dismissed_request_for_changes_is_not_sent_again_on_the_same_commit(
        world: PullWorld, cli: CliRunner) -> None:
    """A maintainer dismissed reviewtui's "request changes": publishing the same head again
    blocked the pull request once more, over the maintainer's decision."""
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="request_changes", summary="Not yet."))
    assert cli("publish", "--pr", "7", world.local).code == 0
    [review] = world.fake.reviews[7]
    assert review["state"] == "CHANGES_REQUESTED"
    review["state"] = "DISMISSED"
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len(world.fake.ops("POST")) == 1  # no second request for changes
    assert [r["state"] for r in world.fake.reviews[7]] == ["DISMISSED"]
    assert "a maintainer dismissed reviewtui's request for changes" in review["body"]
    assert "Not yet." in review["body"]
    assert "changes not requested again on GitHub" in again.out
    _force_push(world)  # a new commit: the dismissal was of the old one
    assert cli("index", "--pr", "7", world.local).code == 0
    moved = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(moved, ReviewVerdict(verdict="request_changes", summary="Still not."))
    third = cli("publish", "--pr", "7", world.local)
    assert third.code == 0, third.err
    assert [r["state"] for r in world.fake.reviews[7]] == ["DISMISSED", "CHANGES_REQUESTED"]


def test_an_approval_sent_before_the_head_moved_is_left_as_it_is(
        world: PullWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="approve", summary="Fine."))
    assert cli("publish", "--pr", "7", world.local).code == 0
    _force_push(world)
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len(world.fake.ops("POST")) == 1  # no new review, no second approval
    assert [r["state"] for r in world.fake.reviews[7]] == ["APPROVED"]


def test_the_configured_model_key_is_never_published(
        world: PullWorld, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    """As in an export: the configured key, whatever its shape, is blanked in what is sent."""
    key = "corp-llm-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(
            verdict="comment", summary=f"The model answered with {key} in its text."))
    dry = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert dry.code == 0, dry.err
    assert key not in dry.out and "[REDACTED]" in dry.out
    assert cli("publish", "--pr", "7", world.local).code == 0
    [post] = world.fake.ops("POST")
    assert key not in json.dumps(post.body) and "[REDACTED]" in post.body["body"]
