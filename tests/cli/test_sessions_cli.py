"""``reviewtui sessions``: how many it lists."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_a_data_dir_that_is_a_file_is_named_as_such(repo: GitRepoBuilder, cli: CliRunner,
                                                    tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # 'cannot create the session store notes/sessions.sqlite3: File exists' -- what exists is
    # a file where the folder should be
    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    (tmp_path / "notes").write_text("mine\n")
    monkeypatch.setenv("REVIEWTUI_DATA_DIR", str(tmp_path / "notes" / "deeper"))
    result = cli("sessions", repo.root)
    assert result.code == 2
    last = result.err.splitlines()[-1]
    assert f"{tmp_path / 'notes'} is a file, not a folder" in last, last
    assert (tmp_path / "notes").read_text() == "mine\n"


def test_rounds_the_person_interrupted_are_counted(repo: GitRepoBuilder,
                                                   cli: CliRunner) -> None:
    # An answer stopped with Ctrl-C is kept as its round's answer, marked: the listing said
    # nothing of it, as if the session held only whole answers.
    from reviewtui.sessions.records import RoundRecord

    repo.write("a.py", "x = 1\n")
    repo.commit("base")
    with SessionStore() as store:
        session = store.session_for_change(str(repo.root), "range:a..b", "chat")
        store.end_round(session.session_id, RoundRecord(index=0, user_message="why?",
                                                        answer="because"))
        store.end_round(session.session_id, RoundRecord(index=1, user_message="and?",
                                                        answer="first, the", interrupted=True))
    listed = cli("sessions", repo.root)
    assert "  2 rounds, 1 interrupted  chat" in listed.out
    [info] = cli("sessions", "--json", repo.root).json()
    assert (info["rounds"], info["answered"], info["interrupted"]) == (2, 2, 1)
