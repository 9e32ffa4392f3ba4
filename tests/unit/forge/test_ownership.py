"""Whose published reviewtui comments a publish may edit: the token's user's, and no one else's
(a colleague's reviewtui marks its comments the same way)."""

from __future__ import annotations

from reviewtui.forge import gitlab_sync, sync
from reviewtui.forge.github import GitHubUser
from reviewtui.forge.gitlab import GitLabUser


def test_github_the_token_user_by_login_else_a_bot() -> None:
    assert sync.by_viewer(GitHubUser(login="Reviewer"), "reviewer")
    assert not sync.by_viewer(GitHubUser(login="colleague"), "reviewer")
    assert not sync.by_viewer(None, "reviewer")
    # GET /user refused (Actions' GITHUB_TOKEN, an App's token): such a token writes as a bot
    assert sync.by_viewer(GitHubUser(login="github-actions[bot]"), None)
    assert not sync.by_viewer(GitHubUser(login="colleague"), None)


def test_gitlab_the_token_user_by_username_else_an_access_token_bot() -> None:
    assert gitlab_sync.by_viewer(GitLabUser(username="reviewer"), "Reviewer")
    assert not gitlab_sync.by_viewer(GitLabUser(username="colleague"), "reviewer")
    assert gitlab_sync.by_viewer(GitLabUser(username="project_42_bot_3f2a"), None)
    assert gitlab_sync.by_viewer(GitLabUser(username="group_7_bot"), None)
    assert not gitlab_sync.by_viewer(GitLabUser(username="colleague"), None)
