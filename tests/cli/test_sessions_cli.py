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
    # beyond SQLite's integers: every session, where it was an OverflowError traceback
    assert len(cli("sessions", "--json", "--limit", "9" * 20, repo.root).json()) == 3
    assert "0 or less: all of them" in " ".join(build_sessions_parser().format_help().split())


def test_rounds_without_an_answer_are_counted_apart(repo: GitRepoBuilder,
                                                    cli: CliRunner) -> None:
    # An interrupted question, or one the model left empty, used to count as a round.
    from reviewtui.sessions.records import RoundRecord

    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    with SessionStore() as store:
        session = store.session_for_change(str(repo.root), "range:a..b", "chat")
        store.end_round(session.session_id, RoundRecord(index=0, user_message="why?",
                                                        answer="because"))
        store.end_round(session.session_id, RoundRecord(index=1, user_message="and?"))
        store.start_round(session.session_id, RoundRecord(index=2, user_message="so?"))
    listed = cli("sessions", repo.root)
    assert listed.code == 0
    assert "  1 round (+2 unanswered)  chat" in listed.out
    [info] = cli("sessions", "--json", repo.root).json()
    assert (info["rounds"], info["answered"]) == (3, 1)
