"""What publishing again plans on GitHub for comments already on the pull request."""

from __future__ import annotations

from reviewtui.forge.auth import Token
from reviewtui.forge.draft import DraftComment, ReviewDraft, marker, marker_key
from reviewtui.forge.github import GitHubClient, GitHubReviewComment, GitHubUser
from reviewtui.forge.sync import plan_sync
from reviewtui.forge.target import PullTarget, RepoAddress

HEAD = "b" * 40


def _client() -> GitHubClient:
    target = PullTarget(RepoAddress("github", "github.com", "octo/proj"), 7, None)
    return GitHubClient(target, Token("GH_TOKEN", "t"))


def _published(line: int | None) -> GitHubReviewComment:
    return GitHubReviewComment(id=11, path="app/service.py", line=line, user=GitHubUser(
        login="me"), body=f"**P1 · Rate tripled**\n\n{marker('f-rate')}")


def _draft(line: int) -> ReviewDraft:
    comment = DraftComment("f-rate", "app/service.py", line, line, "RIGHT",
                           f"**P1 · Rate tripled**\n\n{marker('f-rate')}", "P1 · Rate tripled")
    return ReviewDraft("COMMENT", "", "reviewtui: 1 finding", (comment,))


def test_a_comment_still_on_its_line_is_left_alone() -> None:
    plan = plan_sync(_client(), _draft(2), HEAD, [_published(2)], [], "me")
    assert plan.unchanged == ["f-rate"] and plan.review is not None
    assert plan.review.body is not None and plan.review.body["comments"] == []


def test_a_comment_a_force_push_left_outdated_is_put_on_its_new_line() -> None:
    # the finding's code moved from L2 to L5; GitHub says the old comment has no line now
    for old_line in (None, 2):
        plan = plan_sync(_client(), _draft(5), HEAD, [_published(old_line)], [], "me")
        assert plan.unchanged == []
        assert plan.review is not None and plan.review.body is not None
        assert [c["line"] for c in plan.review.body["comments"]] == [5]


def test_a_comment_quoting_a_marker_is_known_by_its_own() -> None:
    """A finding on reviewtui's own ``draft.py`` quotes the marker's code in its text: the
    comment was taken for key ``{key}`` and posted again on every publish."""
    quoted = ("**P1 · Rate tripled**\n\n`return f\"<!-- reviewtui:fingerprint={key} -->\"`"
              f"\n\n{marker('f-rate')}")
    published = _published(2).model_copy(update={"body": quoted})
    draft = ReviewDraft("COMMENT", "", "reviewtui: 1 finding", (DraftComment(
        "f-rate", "app/service.py", 2, 2, "RIGHT", quoted, "P1 · Rate tripled"),))
    assert marker_key(quoted) == "f-rate"
    plan = plan_sync(_client(), draft, HEAD, [published], [], "me")
    assert plan.unchanged == ["f-rate"]
    assert plan.review is not None and plan.review.body is not None
    assert plan.review.body["comments"] == []
