"""``reviewtui eval`` through the real command line, on generated histories."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import reviewtui
from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder
from tests.support.histories import bug_fixed_in, many_bugs, planted_bug


def test_eval_json_has_every_case_with_fix_bug_targets_and_ranks(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted = planted_bug(repo)
    result = cli("eval", "--json", "--jobs", "1", repo.root)
    assert result.code == 0, result.err
    report = result.json()
    [case] = report["cases"]
    assert case["case"]["bug"] == planted.bug
    assert [f["sha"] for f in case["case"]["fixes"]] == [planted.fix]
    assert case["case"]["targets"] == [["shop/pricing.py", planted.bug_line]]
    assert case["status"] == "ok" and case["units"] >= 10
    assert case["holders"][0]["location"].startswith("shop/pricing.py")
    assert set(case["rankings"]) == {"reviewtui", "file", "largest"}
    rank = case["rankings"]["reviewtui"]["rank"]
    assert report["metrics"]["large"]["orders"]["reviewtui"]["mrr"] == 1 / rank
    assert set(report["metrics"]["all"]["orders"]) == {"reviewtui", "file", "largest", "random"}


def test_eval_table_and_markdown_show_each_order_beside_its_baselines(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted_bug(repo)
    table = cli("eval", "--jobs", "1", repo.root)
    assert table.code == 0, table.err
    for text in ("reviewtui priority", "file order", "largest first", "random (expected)",
                 "changes of 10+ units (1 cases)", "add discounts and scaling helpers"):
        assert text in table.out, text
    markdown = cli("eval", "--markdown", repo.root)
    assert "| order | R@1 | R@3 | R@5 | MRR | effort |" in markdown.out
    assert markdown.out.startswith("# eval: ")


def test_a_second_run_continues_from_the_kept_results(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted_bug(repo)
    first = cli("eval", "--json", "--jobs", "2", repo.root).json()
    assert first["reused_results"] == 0
    kept = list((repo.root / ".git" / "reviewtui" / "eval").glob("*.jsonl"))
    assert {p.name.split("-")[0] for p in kept} == {"mined", "results"}
    second = cli("eval", "--json", repo.root).json()
    assert second["reused_results"] == 1
    assert second["cases"] == first["cases"] or [
        {k: v for k, v in c.items() if k != "seconds"} for c in second["cases"]] == [
        {k: v for k, v in c.items() if k != "seconds"} for c in first["cases"]]
    fresh = cli("eval", "--json", "--no-cache", repo.root).json()
    assert fresh["reused_results"] == 0


def test_a_torn_results_line_is_skipped_and_that_case_ranked_again(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted_bug(repo)
    assert cli("eval", "--jobs", "1", repo.root).code == 0
    [results] = (repo.root / ".git" / "reviewtui" / "eval").glob("results-*.jsonl")
    results.write_text(results.read_text()[:-40])  # killed mid-write
    again = cli("eval", "--json", repo.root)
    assert again.code == 0 and again.json()["reused_results"] == 0


def test_eval_works_in_a_bare_repository(repo: GitRepoBuilder, cli: CliRunner,
                                         tmp_path: Path) -> None:
    planted = planted_bug(repo)
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    result = cli("eval", "--json", "--jobs", "1", bare)
    assert result.code == 0, result.err
    assert result.json()["cases"][0]["case"]["bug"] == planted.bug


def test_a_shallow_clone_says_how_to_deepen(repo: GitRepoBuilder, cli: CliRunner,
                                            tmp_path: Path) -> None:
    planted_bug(repo)
    shallow = tmp_path / "shallow"
    repo.git("clone", "-q", "--depth", "2", f"file://{repo.root}", str(shallow))
    result = cli("eval", shallow)
    assert result.code == 2
    assert "shallow clone" in result.err and "git fetch --unshallow" in result.err
    assert "Traceback" not in result.err and result.out == ""


def test_a_history_without_fixes_is_a_clear_error(repo: GitRepoBuilder,
                                                  cli: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("add a")
    repo.write("a.py", "x = 2\n")
    repo.commit("fix typo in a")
    result = cli("eval", repo.root)
    assert result.code == 2
    assert result.err.startswith("reviewtui: error: no bug-fix commits with a traceable origin")
    assert len(result.err.strip().splitlines()) == 1


def test_a_history_without_fix_messages_says_how_many_commits_it_read(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    # No commit says it fixes anything: the error used to say "in 0 commits", as if the
    # history had not been read at all.
    for number in range(3):
        repo.write("a.py", f"x = {number}\n")
        repo.commit(f"change {number}")
    result = cli("eval", "--no-cache", repo.root)
    assert result.code == 2
    assert "in 3 commits (0 fixes examined)" in result.err, result.err


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_the_commits_read_do_not_depend_on_jobs(repo: GitRepoBuilder, cli: CliRunner,
                                                jobs: str) -> None:
    """The workers look ahead for more fixes than the cases asked for; those commits were
    counted too, so the same run said "in 4 commits" with --jobs 1 and "in 12" with 3."""
    many_bugs(repo, 8)  # newest first: fix f7 .. fix f0, then the bugs
    result = cli("eval", "--json", "--no-cache", "--max-cases", "2", "--jobs", jobs,
                 repo.root)
    assert result.code == 0, result.err
    report = result.json()
    assert (report["commits_read"], report["fixes_examined"], len(report["cases"])) == (2, 2, 2)


def test_bad_input_is_one_line(repo: GitRepoBuilder, cli: CliRunner, tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    result = cli("eval", outside)
    assert result.code == 2 and "not a git repository" in result.err
    empty = tmp_path / "empty"
    empty.mkdir()
    repo.git("init", "-q", str(empty))
    assert "no commits yet" in cli("eval", empty).err
    planted_bug(repo)
    (repo.root / ".reviewtui.toml").write_text('[eval]\nfix_patterns = ["(unclosed"]\n')
    broken = cli("eval", repo.root)
    assert broken.code == 2 and "eval.fix_patterns" in broken.err
    assert len(broken.err.strip().splitlines()) == 1
    assert cli("eval", "--max-cases", "0", repo.root).code == 2


def test_samples_without_json_is_refused_not_ignored(repo: GitRepoBuilder,
                                                     cli: CliRunner) -> None:
    """``--samples`` adds every unit's features to the JSON; without ``--json`` it printed the
    table, after the whole run, as if it had not been given."""
    planted_bug(repo)
    for extra in ([], ["--markdown"]):
        result = cli("eval", "--samples", *extra, repo.root)
        assert result.code == 2 and "--samples" in result.err and "--json" in result.err
        assert result.out == ""


def test_fix_patterns_come_from_the_settings(repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted = planted_bug(repo)
    (repo.root / ".reviewtui.toml").write_text(
        '[eval]\nfix_patterns = ["percentage"]\nexclude_patterns = []\n')
    report = cli("eval", "--json", "--jobs", "1", repo.root).json()
    assert [c["case"]["bug"] for c in report["cases"]] == [planted.bug]


def test_fit_reports_on_newer_cases_and_accepting_writes_the_repository_weights(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    from tests.support.histories import many_bugs

    bugs = many_bugs(repo, bug_in="constant")  # where the weights in use do not look first
    result = cli("eval", "--fit", "--json", "--jobs", "2", repo.root)
    assert result.code == 0, result.err
    report = result.json()
    assert {c["case"]["bug"] for c in report["cases"]} == set(bugs)
    fit = report["fit"]
    assert fit["trained_on"] + fit["evaluated_on"] == len(bugs)
    assert fit["evaluated_on"] == 4  # the newest 30 %
    # 10 training cases leave too few to choose how far to move on: the default penalty
    assert fit["validated_on"] == 0 and fit["l2"] == 0.5 and not fit["kept_weights_in_use"]
    assert fit["proposed"]
    assert fit["after"]["all"]["orders"]["reviewtui"]["mrr"] > (
        fit["before"]["all"]["orders"]["reviewtui"]["mrr"])
    proposal = Path(fit["proposal"])
    assert proposal.is_file() and not (repo.root / ".reviewtui").exists()
    table = cli("eval", "--fit", repo.root)
    assert "fit: 10 older cases, reported on the 4 cases since 2024-01-12" in table.out
    assert "accept with 'reviewtui eval --accept-weights'" in table.out
    accepted = cli("eval", "--accept-weights", repo.root)
    assert accepted.code == 0, accepted.err
    written = repo.root / ".reviewtui" / "triage_weights.toml"
    assert written.read_text() == proposal.read_text()
    unit = cli("index", "--json", "--commit", bugs[-1], repo.root).json()["units"][0]
    explained = cli("rules", "explain", unit["unit_id"], "--commit", bugs[-1], repo.root)
    assert f"learned (weights: {written})" in explained.out


def test_a_fit_no_better_than_the_weights_in_use_proposes_nothing(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    """The weights in use already rank every bug first: the fit on the older cases cannot do
    better on the newer ones, so nothing is proposed (and an earlier proposal goes), and
    accepting says so instead of copying weights that tested no better."""
    from tests.support.histories import many_bugs

    many_bugs(repo)
    stale = repo.root / ".git" / "reviewtui" / "eval" / "triage_weights.toml"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text("version = 1\n")
    result = cli("eval", "--fit", "--json", "--jobs", "2", repo.root)
    assert result.code == 0, result.err
    fit = result.json()["fit"]
    assert not fit["proposed"] and fit["proposal"] is None and not stale.exists()
    table = cli("eval", "--fit", repo.root)
    assert "nothing proposed: on the 4 newer cases the fit ranks no better than the weights " \
           "in use (MRR 1.00 against 1.00); keep them" in table.out
    assert "accept with" not in table.out
    accepted = cli("eval", "--accept-weights", repo.root)
    assert accepted.code == 2 and "no fitted weights to accept" in accepted.err
    assert not (repo.root / ".reviewtui").exists()


def test_accepting_weights_before_any_fit_is_a_clear_error(repo: GitRepoBuilder,
                                                           cli: CliRunner) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit("a")
    result = cli("eval", "--accept-weights", repo.root)
    assert result.code == 2 and "no fitted weights to accept" in result.err


def test_a_shallow_clone_orders_without_line_history_and_says_so_once(
        repo: GitRepoBuilder, cli: CliRunner, tmp_path: Path) -> None:
    planted_bug(repo)
    shallow = tmp_path / "shallow"
    repo.git("clone", "-q", "--depth", "2", f"file://{repo.root}", str(shallow))
    result = cli("index", "--sort", "priority", "--json", "--commit", "HEAD", shallow)
    assert result.code == 0, result.err
    assert result.err.count("shallow clone") == 1
    assert result.json()["units"]


def test_the_progress_line_shows_on_a_terminal_only() -> None:
    import io

    from reviewtui.app.evaluate import EvalProgress
    from reviewtui.cli.evaluate import _ProgressLine

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    line = _ProgressLine(terminal)
    line._line._start -= 2  # a run past its first second
    line(EvalProgress("mine", 3, None, "120 commits, 9 fixes"))
    line(EvalProgress("rank", 5, 10, "abc"))
    assert "eval: mining history: 120 commits, 9 fixes, 3 cases" in terminal.getvalue()
    assert terminal.getvalue().endswith("eval: ranking [##########..........] 5/10 abc")
    line.close()
    assert terminal.getvalue().endswith("\r\x1b[K")
    piped = io.StringIO()
    quiet = _ProgressLine(piped)
    quiet._line._start -= 2
    quiet(EvalProgress("rank", 5, 10, "abc"))
    quiet.close()
    assert piped.getvalue() == ""


def test_accepted_weights_rank_the_cases_again(repo: GitRepoBuilder, cli: CliRunner) -> None:
    planted_bug(repo)
    assert cli("eval", "--json", "--jobs", "1", repo.root).json()["reused_results"] == 0
    assert cli("eval", "--json", "--jobs", "1", repo.root).json()["reused_results"] == 1
    (repo.root / ".reviewtui").mkdir()
    (repo.root / ".reviewtui" / "triage_weights.toml").write_text(
        "[weights]\ncontrol_flow = 3.0\n")
    assert cli("eval", "--json", "--jobs", "1", repo.root).json()["reused_results"] == 0


def test_a_fix_git_cannot_blame_is_counted_in_the_statuses(repo: GitRepoBuilder,
                                                           cli: CliRunner) -> None:
    bug_fixed_in(repo, "good.py")
    bug_fixed_in(repo, "lost.py")
    blob = repo.git("rev-parse", "HEAD~1:lost.py").strip()
    (repo.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    report = cli("eval", "--json", "--jobs", "1", repo.root).json()
    assert report["statuses"]["fix_blame_failed"] == 1 and len(report["cases"]) == 1
    assert "(1 fix blame failed)" in cli("eval", "--jobs", "1", repo.root).out


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _interruptible() -> None:
    """In the child before it runs: Ctrl-C as a terminal gives it. A process inherits an
    ignored or blocked SIGINT from whoever starts it (a test worker that ran other tests in
    it), and Python then never raises KeyboardInterrupt: the run went to its end, exit 0."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _signal_masks(pid: int) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return ""
    return " ".join(line for line in status.splitlines() if line.startswith(("SigBlk", "SigIgn")))


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")
def test_ctrl_c_while_the_workers_start_prints_one_line(repo: GitRepoBuilder) -> None:
    """Ctrl-C reaches the whole process group: the spawned ranking workers, still importing,
    used to print a KeyboardInterrupt traceback each. Now only the parent speaks."""
    many_bugs(repo, 8)
    source = Path(reviewtui.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(source), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "reviewtui", "eval", "--no-cache", "--jobs", "3", str(repo.root)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True,
        preexec_fn=_interruptible)
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # ranking starts: the workers are being spawned
    time.sleep(0.3)  # they are importing reviewtui
    assert proc.poll() is None, "eval ended before its workers started"
    masks = _signal_masks(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (err.decode(), masks)
    assert err.decode() == "reviewtui: interrupted\n"


@pytest.mark.parametrize(("since", "says"), [
    ("2999-01-01", "that date is still to come"),  # git read it as a date of this year
    ("2024-13-45", "there is no such date"),  # git read it as some other day
])
def test_a_since_date_git_would_misread_is_refused(repo: GitRepoBuilder, cli: CliRunner,
                                                    since: str, says: str) -> None:
    many_bugs(repo, 2)
    result = cli("eval", "--no-cache", "--since", since, repo.root)
    assert result.code == 2
    assert result.err.startswith(f"reviewtui: error: --since {since}: {says}")
    assert "Traceback" not in result.err and result.out == ""
    assert not (Path(repo.root) / ".git" / "reviewtui" / "eval").exists()


def test_a_past_or_relative_since_is_read_by_git(repo: GitRepoBuilder, cli: CliRunner) -> None:
    many_bugs(repo, 2)
    for since in ("2001-02-03", "20 years ago"):
        result = cli("eval", "--no-cache", "--json", "--since", since, repo.root)
        assert result.code == 0, result.err


_FAKE_GPG = """#!/bin/sh
case "$*" in
  *-bsau*) cat >/dev/null
           printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n'
           echo '[GNUPG:] SIG_CREATED D 1 8 00 1 X' >&2;;
  *) cat >/dev/null; echo 'gpg: Signature made today' >&2
     echo 'gpg: Cannot check signature: No public key' >&2; exit 1;;
esac
"""


def test_signed_commits_shown_with_signatures_by_the_settings_are_read_as_commits(
        repo: GitRepoBuilder, cli: CliRunner, tmp_path: Path) -> None:
    """``log.showSignature = true`` (set by people who sign their commits) puts gpg's lines
    into ``git log``'s own output: the bug commit's parents read as many (every case "blamed
    on a merge commit") and the line history's base time crashed ``index --sort priority``
    and ``eval`` with a traceback."""
    gpg = tmp_path / "fake-gpg"
    gpg.write_text(_FAKE_GPG)
    gpg.chmod(0o755)
    for key, value in (("gpg.program", str(gpg)), ("user.signingkey", "X"),
                       ("commit.gpgSign", "true")):
        repo.git("config", key, value)
    planted = planted_bug(repo)
    repo.git("config", "log.showSignature", "true")
    assert "gpg: Signature made" in repo.git("log", "-1", "--format=%H")
    result = cli("eval", "--json", "--jobs", "1", repo.root)
    assert result.code == 0, result.err
    [case] = result.json()["cases"]
    assert case["case"]["bug"] == planted.bug and case["status"] == "ok"
    index = cli("index", "--commit", planted.bug, "--sort", "priority", repo.root)
    assert index.code == 0 and "gpg" not in index.out + index.err
