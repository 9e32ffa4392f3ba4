"""``reviewtui sessions``: how many it lists."""

from __future__ import annotations

from reviewtui.cli.parser import build_sessions_parser
from reviewtui.sessions import SessionStore
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder


def test_limit_bounds_the_listing_and_zero_lists_every_session(repo: GitRepoBuilder,
                                                                cli: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    with SessionStore() as store:
        for n in range(3):
            store.session_for_change(str(repo.root), f"range:a{n}..b{n}", "chat")
    assert len(cli("sessions", "--json", repo.root).json()) == 3
    assert len(cli("sessions", "--json", "--limit", "2", repo.root).json()) == 2
    assert len(cli("sessions", "--json", "--limit", "0", repo.root).json()) == 3
    assert "0 or less: all of them" in " ".join(build_sessions_parser().format_help().split())
