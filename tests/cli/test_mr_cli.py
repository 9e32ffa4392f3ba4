"""``reviewtui --pr N|URL`` and ``reviewtui publish`` on a GitLab merge request: through the
real command line, the real ``git fetch`` (from a bare repository standing in for GitLab) and
the real HTTP client, against a local API whose every request and answer is checked against
GitLab's OpenAPI description (a pinned subset) and the discussions schema written from its
docs (``tests/data/forge/gitlab/``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewtui.sessions import SessionStore
from reviewtui.sessions.review_records import ReviewVerdict
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.forge_world import HEAD, contributor_fork, git, seed_review
from tests.support.gitlab_server import GitLabServer
from tests.support.gitlab_world import HOST, MR_URL, MergeRequestWorld, build_gitlab_world
from tests.support.openai_server import Reply, ScriptedOpenAIServer

PULL_REFS = f"refs/reviewtui/pr/{HOST}/group/sub/proj"  # where --pr N is fetched

API_MR = "/api/v4/projects/group%2Fsub%2Fproj/merge_requests/7"
TAIL_LINE = HEAD.splitlines().index("    return amount + 2") + 1


@pytest.fixture
def world(make_repo: type[GitRepoBuilder], tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[MergeRequestWorld]:
    with GitLabServer() as server:
        built = build_gitlab_world(make_repo, tmp_path, monkeypatch, server)
        built.open_mr(7, built.head_sha, title="Charge three times",
                      description="Customers pay triple now.\n\nCloses #12", labels=("billing",))
        yield built
        assert server.fake.violations == []  # every request and answer matched the contract


def _no_token(world: MergeRequestWorld, *texts: str) -> None:
    for text in texts:
        assert world.fake.token not in text


def _sent(out: str) -> list[tuple[str, Any]]:
    """The requests a dry run prints: (``METHOD /path``, JSON body or None)."""
    lines, found = out.splitlines(), []
    for index, line in enumerate(lines):
        if line.split(" ", 1)[0] in ("GET", "POST", "PUT", "DELETE") and "  # " in line:
            body = None
            if index + 1 < len(lines) and lines[index + 1] == "{":
                end = lines.index("}", index + 1)
                body = json.loads("\n".join(lines[index + 1:end + 1]))
            found.append((line.split("  # ")[0], body))
    return found


def test_open_by_number_on_a_self_hosted_gitlab(world: MergeRequestWorld,
                                                cli: CliRunner) -> None:
    before = git(world.local, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert "intent: Charge three times" in result.out
    assert "issues #12" in result.out
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == world.head_sha
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/base") == world.base_sha
    assert git(world.local, "for-each-ref", "--format=%(refname) %(objectname)",
               "refs/heads") == before
    assert git(world.local, "status", "--porcelain") == ""
    [get] = world.fake.ops("GET")
    assert get.path == API_MR  # the nested project by its URL-encoded path
    assert get.authorization == f"Bearer {world.fake.token}"  # PATs and glab's OAuth token alike
    _no_token(world, result.out, result.err)


def test_open_by_url_of_a_nested_group_project(world: MergeRequestWorld,
                                               cli: CliRunner) -> None:
    git(world.local, "remote", "set-url", "origin", str(world.remote))
    result = cli("index", "--json", "--pr", MR_URL.format(number=7), world.local)
    assert result.code == 0, result.err
    assert {u["file_path"] for u in result.json()["units"]} == {"app/service.py"}
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == world.head_sha
    assert [r.path for r in world.fake.ops("GET")] == [API_MR]


def test_merge_request_from_a_fork(world: MergeRequestWorld, cli: CliRunner,
                                   tmp_path: Path) -> None:
    fork, fork_head = contributor_fork(tmp_path, world.upstream.root, world.base_sha)
    world.push_mr(8, fork_head, source=fork)  # only the target project's MR ref has it
    world.fake.add_mr(8, head_sha=fork_head, base_sha=world.base_sha, source_project_id=77,
                      source_branch="contrib-branch", title="Add extra")
    result = cli("index", "--pr", "8", world.local)
    assert result.code == 0, result.err
    assert "app/extra.py" in result.out and "intent: Add extra" in result.out
    assert git(world.local, "rev-parse", f"{PULL_REFS}/8/head") == fork_head


def test_publish_dry_run_then_publish_then_again_without_duplicates(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.add_comment(7, path="app/service.py", line=2, body="Why 3?", username="colleague")

    dry = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert dry.code == 0, dry.err
    assert world.fake.ops("POST") == [] and world.fake.ops("PUT") == []
    assert "app/service.py L2 @colleague: Why 3?" in dry.out  # others' threads, read-only
    assert "in the summary: app/service.py L20: P3 · Helper returns a constant" in dry.out
    assert "token from GITLAB_TOKEN" in dry.out
    _no_token(world, dry.out, dry.err)
    planned = _sent(dry.out)
    assert [line for line, _ in planned] == [f"POST /{API_MR[8:]}/draft_notes"] * 3 + [
        f"POST /{API_MR[8:]}/draft_notes/bulk_publish"]

    first = cli("publish", "--pr", "7", world.local)
    assert first.code == 0, first.err
    posts = world.fake.ops("POST")
    assert [(f"POST /{r.path[8:]}", r.body) for r in posts] == planned  # exactly as shown
    line_notes, summary = [p.body for p in posts[:2]], posts[2].body["note"]
    by_line = {n["position"]["new_line"]: n for n in line_notes}
    assert set(by_line) == {2, 3}
    position = by_line[3]["position"]
    assert position["old_line"] == 3  # an unchanged line: both numbers, as GitLab needs
    assert "old_line" not in by_line[2]["position"]  # an added line: the new number only
    assert (position["base_sha"], position["head_sha"]) == (world.base_sha, world.head_sha)
    assert position["old_path"] == position["new_path"] == "app/service.py"
    assert "```suggestion\n    total = amount * 2\n```" in by_line[2]["note"]
    assert by_line[2]["note"].endswith("<!-- reviewtui:fingerprint=f-rate -->")
    assert summary.startswith("**Verdict: request changes**\n\nThe rate change needs a decision.")
    assert "Helper returns a constant" in summary and "Not a problem" not in summary
    assert world.fake.approved == {}
    assert "created: 2 line comments" in first.out
    assert len(world.fake.ours(7)) == 3 and world.fake.drafts[7] == []

    # again, unchanged: the summary is edited in place, nothing is posted twice
    second = cli("publish", "--pr", "7", world.local)
    assert second.code == 0, second.err
    assert len(world.fake.ops("POST")) == 4  # still the first run's
    [put] = world.fake.ops("PUT")
    assert "/discussions/" in put.path and put.body["body"] == summary
    assert "already published as they are: 2 comments" in second.out
    assert len(world.fake.ours(7)) == 3

    # a comment edited in the workbench: the published note is edited, not duplicated
    with SessionStore() as store:
        [session] = store.list_sessions()
        [comment] = store.comments(session.session_id)
        store.save_comment(session.session_id, comment.model_copy(
            update={"body": "Is this covered by a test? Please add one."}))
    third = cli("publish", "--pr", "7", world.local)
    assert third.code == 0, third.err
    edits = [r for r in world.fake.ops("PUT") if r.body["body"].startswith("Is this covered")]
    assert len(edits) == 1 and "Please add one." in edits[0].body["body"]
    assert len(world.fake.ours(7)) == 3 and len(world.fake.ops("POST")) == 4


def test_publish_never_takes_over_a_colleagues_reviewtui_notes(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    # what a colleague's own reviewtui left: a line note keyed as one of ours, and a summary
    line = world.fake.add_comment(
        7, path="app/service.py", line=3, username="colleague",
        body="Mine: please add a test.\n\n<!-- reviewtui:fingerprint=comment-1 -->")
    summary = world.fake.add_discussion(
        7, world.fake.note(7, "Her summary.\n\n<!-- reviewtui:review -->", "colleague"))
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert world.fake.ops("PUT") == []
    posts = [r.body for r in world.fake.ops("POST") if r.path.endswith("/draft_notes")]
    assert len(posts) == 3  # our two line notes and our own summary
    assert line["notes"][0]["body"].startswith("Mine:")
    assert summary["notes"][0]["body"].startswith("Her summary.")
    assert "app/service.py L3 @colleague: Mine: please add a test." in result.out


def test_an_approval_is_sent_once_with_the_reviewed_head(world: MergeRequestWorld,
                                                         cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="approve", summary="Fine."))
    assert cli("publish", "--pr", "7", world.local).code == 0
    [approve] = [r for r in world.fake.ops("POST") if r.path.endswith("/approve")]
    assert approve.body == {"sha": world.head_sha} and world.fake.approved == {7: True}
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len([r for r in world.fake.ops("POST") if r.path.endswith("/approve")]) == 1
    assert world.fake.ours(7)[-1]["body"].startswith(
        "**Verdict: approve** (already approved on GitLab)")
    # the person changes their mind: the approval is withdrawn, the summary says so
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="request_changes", summary="Not yet."))
    changed = cli("publish", "--pr", "7", world.local)
    assert changed.code == 0, changed.err
    assert [r.path.rsplit("/", 1)[1] for r in world.fake.ops("POST")][-1] == "unapprove"
    assert world.fake.approved == {7: False}
    assert world.fake.ours(7)[-1]["body"].startswith(
        "**Verdict: request changes** (the approval given before is withdrawn)")


def test_an_approval_gitlab_does_not_allow_is_not_sent_and_the_review_still_is(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    """The person's own merge request, in a project that prevents approval by its author:
    GitLab says so (``user_can_approve``) and answers ``POST /approve`` with HTTP 401. The
    review was published, then the command failed saying the token was rejected."""
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="approve", summary="Fine."))
    world.fake.can_approve = False
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert "rejected the token" not in result.err
    assert not [r for r in world.fake.ops("POST") if r.path.endswith("/approve")]
    [summary] = [n for n in world.fake.ours(7) if n["type"] is None]
    assert summary["body"].startswith("**Verdict: approve** (not approved on GitLab: it does "
                                      "not let the token's user approve this merge request)")
    assert len(world.fake.ours(7)) == 3  # the line notes and the summary: published


def test_an_approval_refused_after_publishing_says_the_review_was_published(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    """GitLab said the user could approve, then refused (HTTP 401: its approval rules changed
    meanwhile): one line saying what happened, not "the token was rejected"."""
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="approve", summary="Fine."))
    approvals = world.fake._approvals
    world.fake._approvals = lambda iid: {**approvals(iid), "user_can_approve": True}  # type: ignore[method-assign]
    world.fake.can_approve = False
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "the review is published, but GitLab (code.example.com) refused to approve" in line
    assert "rejected the token" not in line
    assert len(world.fake.ours(7)) == 3


def test_a_gitlab_without_the_draft_notes_api_says_so(world: MergeRequestWorld,
                                                       cli: CliRunner) -> None:
    """An older GitLab answers 404 on ``draft_notes``: the merge request was just read, so
    "not found, or the token cannot see it" sent the person after their token's scopes."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.missing_routes = (r"/draft_notes(/.*)?",)
    for args in (("--dry-run",), ()):
        result = cli("publish", *args, "--pr", "7", world.local)
        assert result.code == 2
        [line] = result.err.strip().splitlines()
        assert "GitLab (code.example.com) has no draft notes API" in line, line
        assert "cannot see it" not in line
    assert not [r for r in world.fake.ops() if r.method != "GET"]  # nothing sent


def test_a_gitlab_without_bulk_publish_says_where_the_drafts_are(world: MergeRequestWorld,
                                                                 cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.missing_routes = (r"/draft_notes/bulk_publish",)
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "GitLab (code.example.com) cannot publish draft notes through its API" in line, line
    assert "3 draft notes are pending" in line and "Submit review" in line
    assert len(world.fake.drafts[7]) == 3 and world.fake.ours(7) == []


def test_a_rejected_token_names_its_source_not_its_value(
        world: MergeRequestWorld, cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-wrong-secret-value")
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 2
    assert "rejected the token from GITLAB_TOKEN (HTTP 401)" in result.err
    assert "glpat-wrong-secret-value" not in result.err + result.out
    assert "Traceback" not in result.err


def test_an_unknown_merge_request(world: MergeRequestWorld, cli: CliRunner) -> None:
    result = cli("index", "--pr", "99", world.local)
    assert result.code == 2
    assert "merge request group/sub/proj!99 not found on code.example.com" in result.err
    assert git(world.local, "for-each-ref", "refs/reviewtui") == ""


def test_a_line_gitlab_does_not_keep_goes_into_the_summary(world: MergeRequestWorld,
                                                           cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.diff_lines[7] = {"app/service.py": {2, TAIL_LINE}}  # narrower than ours
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert "1 line comments moved into the summary" in result.out
    line_notes = [n for n in world.fake.ours(7) if n["type"] == "DiffNote"]
    assert [n["position"]["new_line"] for n in line_notes] == [2]
    [summary] = [n for n in world.fake.ours(7) if n["type"] is None]
    assert "Is this covered by a test?" in summary["body"]  # moved, not lost
    assert "not kept on its line by GitLab" in summary["body"]


def test_a_draft_note_gitlab_refuses_goes_into_the_summary(world: MergeRequestWorld,
                                                           cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.refuse_drafts = True
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert [r.status for r in world.fake.ops("POST")] == [400, 400, 201, 204]
    [summary] = world.fake.ours(7)
    assert "Is this covered by a test?" in summary["body"] and "Charge rate" in summary["body"]
    assert "refused by GitLab" in summary["body"]


def _line_drafts(world: MergeRequestWorld) -> list[dict[str, Any]]:
    """The draft notes sent on a line (with a position), refused or not."""
    return [r.body for r in world.fake.ops("POST")
            if r.path.endswith("/draft_notes") and "position" in (r.body or {})]


def test_a_line_gitlab_dropped_is_remembered_not_sent_again(world: MergeRequestWorld,
                                                            cli: CliRunner) -> None:
    """A line note GitLab did not keep is folded into the summary with a marker, as GitHub's
    refused lines are: publishing the same head again leaves it there (the summary edited in
    place) instead of drafting it again; a new head reviewed again offers it again."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.diff_lines[7] = {"app/service.py": {2, TAIL_LINE}}  # narrower than ours
    assert cli("publish", "--pr", "7", world.local).code == 0
    assert len(_line_drafts(world)) == 2  # one kept on line 2, one dropped (line 3)
    [summary] = [n for n in world.fake.ours(7) if n["type"] is None]
    assert "<!-- reviewtui:refused=comment-1 -->" in summary["body"]

    dry = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert dry.code == 0, dry.err
    assert all("position" not in (body or {}) for _, body in _sent(dry.out)), dry.out
    assert "Is this covered by a test? (not kept on its line by GitLab)" in dry.out
    posted = len(world.fake.ops("POST"))
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert world.fake.ops("POST")[posted:] == []  # nothing drafted or published again
    assert world.fake.ops("PUT")[-1].path.endswith(f"/notes/{summary['id']}")
    [summary] = [n for n in world.fake.ours(7) if n["type"] is None]
    assert "Is this covered by a test?" in summary["body"]
    assert "not kept on its line by GitLab" in summary["body"]
    assert "<!-- reviewtui:refused=comment-1 -->" in summary["body"]  # still remembered
    assert [n["position"]["new_line"] for n in world.fake.ours(7) if n["type"]] == [2]

    moved = _force_push(world)  # a new head, reviewed again: its lines are offered again
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.diff_lines[7] = {"app/service.py": {2, 3, TAIL_LINE}}
    third = cli("publish", "--pr", "7", world.local)
    assert third.code == 0, third.err
    on_new_head = [n for n in _line_drafts(world) if n["position"]["head_sha"] == moved]
    assert sorted(n["position"]["new_line"] for n in on_new_head) == [2, 3]


def test_a_draft_note_gitlab_refused_is_not_sent_again(world: MergeRequestWorld,
                                                        cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.refuse_drafts = True
    assert cli("publish", "--pr", "7", world.local).code == 0
    assert len(_line_drafts(world)) == 2
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len(_line_drafts(world)) == 2  # GitLab is not offered the refused lines again
    [summary] = world.fake.ours(7)
    assert "Is this covered by a test?" in summary["body"] and "Charge rate" in summary["body"]
    assert summary["body"].count("<!-- reviewtui:refused=") == 2


def test_rate_limits_are_waited_out(world: MergeRequestWorld, cli: CliRunner) -> None:
    world.fake.rate_limited, world.fake.retry_after = 2, "0"
    result = cli("index", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert [r.status for r in world.fake.ops("GET")] == [429, 429, 200]


def _force_push(world: MergeRequestWorld) -> str:
    """The contributor amends merge request 7's commit and force-pushes: its new head."""
    world.upstream.git("checkout", "-q", "feature")
    world.upstream.write("app/service.py", HEAD.replace("amount * 3", "amount * 4"))
    world.upstream.git("commit", "-q", "--amend", "-a", "-m", "Quadruple")
    moved = world.upstream.head()
    world.push_mr(7, moved)
    mr = world.fake.mrs[7]
    mr["sha"] = mr["diff_refs"]["head_sha"] = moved
    return moved


def test_a_head_force_pushed_since_the_review_gets_no_line_comments(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    sid = seed_review(world)
    with SessionStore() as store:
        store.set_verdict(sid, ReviewVerdict(verdict="approve", summary="Fine."))
    _force_push(world)
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert "moved since the review" in result.err
    [summary_draft, publish] = world.fake.ops("POST")  # no line notes, no approval
    assert publish.path.endswith("/bulk_publish") and world.fake.approved == {}
    body = summary_draft.body["note"]
    assert body.startswith("**Verdict: approve** (not approved on GitLab: the head moved")
    assert "the merge request's head moved since this review" in body
    assert "Is this covered by a test?" in body
    assert git(world.local, "rev-parse", f"{PULL_REFS}/7/head") == world.head_sha


def test_notes_published_before_the_head_moved_are_not_copied_into_the_summary(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    before = len(world.fake.ops("POST"))
    _force_push(world)
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    assert len(world.fake.ops("POST")) == before  # no line note drafted again
    [edit] = [op for op in world.fake.ops("PUT") if op.body and "body" in op.body]
    summary = edit.body["body"]  # the summary, edited in place
    assert "Is this covered by a test?" not in summary
    assert "2 published on their lines before are left there" in summary
    assert "already published as they are: 2 comments" in again.out


def test_a_new_head_reviewed_again_gets_its_line_notes_again(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    moved = _force_push(world)
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)  # the same findings, reviewed on the new head
    again = cli("publish", "--pr", "7", world.local)
    assert again.code == 0, again.err
    placed = [r.body for r in world.fake.ops("POST")
              if r.path.endswith("/draft_notes") and "position" in (r.body or {})]
    on_new_head = [n for n in placed if n["position"]["head_sha"] == moved]
    assert len(on_new_head) == 2, again.out  # not "already published" on the old head


def test_drafts_an_interrupted_publish_left_are_deleted_not_published_twice(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    world.fake.drafts[7] = [
        {"id": 1, "author_id": 7, "merge_request_id": 9007, "resolve_discussion": False,
         "note": "old\n\n<!-- reviewtui:fingerprint=f-rate -->"},
        {"id": 2, "author_id": 7, "merge_request_id": 9007, "resolve_discussion": False,
         "note": "a draft of the person's own, written on GitLab"}]
    dry = cli("publish", "--dry-run", "--pr", "7", world.local)
    assert f"DELETE /{API_MR[8:]}/draft_notes/1" in dry.out
    assert "draft_notes/2" not in dry.out
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    assert [r.path for r in world.fake.ops("DELETE")] == [f"{API_MR}/draft_notes/1"]
    bodies = [n["body"] for d in world.fake.discussions[7] for n in d["notes"]]
    assert sum("fingerprint=f-rate" in b for b in bodies) == 1
    assert "a draft of the person's own, written on GitLab" in bodies  # GitLab publishes it


def test_notes_drafted_again_on_a_new_head_are_not_drafted_a_third_time(
        world: MergeRequestWorld, cli: CliRunner) -> None:
    """The notes of the old head stay there, outdated, and the new head got its own; publishing
    that head again compares with the new head's notes, drafting nothing again."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    _force_push(world)
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    drafted = len(_line_drafts(world))
    assert drafted == 4
    third = cli("publish", "--pr", "7", world.local)
    assert third.code == 0, third.err
    assert len(_line_drafts(world)) == drafted, third.out  # no duplicates


def test_the_review_of_a_new_head_leaves_the_earlier_heads_summary_as_it_was(
        world: MergeRequestWorld, cli: CliRunner, fake_llm: ScriptedOpenAIServer) -> None:
    """The summary published for an earlier head holds the person's verdict and the comments
    that were never on a line: the review of a new head (a session of its own) gets a summary
    of its own, never written over it."""
    assert cli("index", "--pr", "7", world.local).code == 0
    seed_review(world)
    assert cli("publish", "--pr", "7", world.local).code == 0
    [first] = [n for n in world.fake.ours(7) if "reviewtui:review" in n["body"]]
    sent = first["body"]
    assert "The rate change needs a decision." in sent and "Helper returns a constant" in sent
    world.upstream.git("checkout", "-q", "feature")
    world.upstream.write("app/service.py", HEAD.replace("amount * 3", "amount * 4"))
    world.upstream.commit("Quadruple")
    moved = world.upstream.head()
    world.push_mr(7, moved)
    mr = world.fake.mrs[7]
    mr["sha"] = mr["diff_refs"]["head_sha"] = moved
    fake_llm.script(Reply.json({"verdict": "comment", "summary": "s", "findings": [
        {"title": "Quadruple now", "body": "b", "severity": "P2", "confidence": 0.9,
         "file_path": "app/service.py", "start_line": 2, "end_line": 2}]}))
    assert cli("review", "--rules-plan", "--pr", "7", world.local).code == 0
    result = cli("publish", "--pr", "7", world.local)
    assert result.code == 0, result.err
    summaries = [n for n in world.fake.ours(7) if "reviewtui:review" in n["body"]]
    assert len(summaries) == 2 and f"reviewtui:head={moved}" in summaries[1]["body"]
    assert first["body"] == sent  # the earlier head's summary is as it was sent
    assert cli("publish", "--pr", "7", world.local).code == 0  # the new one is edited in place
    assert len([n for n in world.fake.ours(7) if "reviewtui:review" in n["body"]]) == 2
    assert first["body"] == sent
