"""``reviewtui index --sort priority`` and ``rules explain``: the review order and its parts."""

from __future__ import annotations

from tests.cli.conftest import CliRunner
from tests.conftest import GitRepoBuilder

API = "def charge(amount):\n    return round(amount * 100)\n"


def _release(repo: GitRepoBuilder) -> None:
    repo.write("lib/billing.py", API)
    for name in ("orders", "refunds", "invoices"):
        repo.write(f"lib/{name}.py", f"from lib.billing import charge\n\n\n"
                                     f"def {name}(x):\n    return charge(x)\n")
    repo.write("lib/helpers.py", "def tidy(text):\n    return text.strip()\n")
    repo.write("docs/changelog.md", "# Changes\n")
    repo.write("tests/test_billing.py", "def test_charge():\n    assert True\n")
    repo.commit("base")
    repo.write("lib/billing.py", API.replace("round(amount * 100)", "int(amount * 100)"))
    repo.write("lib/helpers.py", "def tidy(text):\n    return text.strip().lower()\n")
    repo.write("docs/changelog.md", "# Changes\n\n" + "- a long list of changes\n" * 120)
    repo.write("tests/test_billing.py", "def test_charge():\n    assert 1\n")


def test_sort_priority_puts_code_others_use_first(repo: GitRepoBuilder, cli: CliRunner) -> None:
    _release(repo)
    result = cli("index", "--json", "--sort", "priority", repo.root)
    assert result.code == 0, result.err
    data = result.json()
    units = data["units"]
    scores = [u["priority_score"] for u in units]
    assert scores == sorted(scores, reverse=True)
    assert units[0]["file_path"] == "lib/billing.py"  # three files call charge()
    assert units[-1]["role"] == "docs" and units[-1]["agent_decision"]["priority"] == "low"
    assert sum(data["summary"]["risk_distribution"].values()) == len(units)
    table = cli("index", "--sort", "risk", repo.root).out
    assert "risk: " in table.splitlines()[1] and "high or critical" in table.splitlines()[1]


def test_explain_lists_the_priority_parts_and_the_reach(repo: GitRepoBuilder,
                                                       cli: CliRunner) -> None:
    _release(repo)
    units = cli("index", "--json", repo.root).json()["units"]
    billing = next(u["unit_id"] for u in units if u["file_path"] == "lib/billing.py")
    out = cli("rules", "explain", billing, repo.root).out
    assert "priority (the review order, higher first):" in out
    assert "  role: code" in out
    assert " + reach 6 + learned " in out  # 3 files: 3 x log2(1 + 3) points
    assert "learned (weights: " in out
    assert "reach: 3 other files use its definitions" in out
    # each feature's value as a person reads it: 0.664, not 0.664386
    values = [line.split(" -> ", 1)[0].split()[-1] for line in out.splitlines()
              if line.startswith("    ") and " -> " in line]
    shown = [v for v in values if v.replace(".", "", 1).isdigit()]
    assert shown, out
    assert all(len(v.lstrip("0.").replace(".", "")) <= 3 for v in shown), shown


def test_a_test_file_sinks_further_than_the_learned_part_can_lift(
        repo: GitRepoBuilder, cli: CliRunner) -> None:
    """The learned part lifts a unit by 12 points at most, but what its lines are may sink it
    further: the shipped weights put a test file's edit far below the code beside it."""
    _release(repo)
    units = cli("index", "--json", "--sort", "priority", repo.root).json()["units"]
    test = next(u for u in units if u["file_path"] == "tests/test_billing.py")
    out = cli("rules", "explain", test["unit_id"], repo.root).out
    learned = float(out.split(" + learned ", 1)[1].split(" ", 1)[0])
    assert learned < -12, out
    parts = [float(line.split(" -> ", 1)[1].split()[0]) for line in out.splitlines()
             if line.startswith("    ") and " -> " in line]
    assert abs(sum(parts) - learned) <= 0.5, out  # the shown parts add up to it
    assert max(u["priority_score"] for u in units if u["file_path"].startswith("lib/")) > (
        test["priority_score"])


AUTH = ("def check_{n}(user, password):\n    if user.token {op} password:\n"
        "        return True\n    return False\n")


def test_a_risk_class_most_of_the_change_shares_counts_less(repo: GitRepoBuilder,
                                                          cli: CliRunner) -> None:
    """Four of five units are high: their class tells little about which to read first, so
    their risk points are cut (and ``rules explain`` says why); one high unit among ten keeps
    its points."""
    names = ("login", "session", "token", "password")
    for n in names:
        repo.write(f"auth_{n}.py", AUTH.format(n=n, op="=="))
    for i in range(9):
        repo.write(f"util_{i}.py", f"def tidy_{i}(text):\n    return text.strip()\n")
    repo.commit("base")
    for n in names:
        repo.write(f"auth_{n}.py", AUTH.format(n=n, op="!="))
    repo.write("util_0.py", "def tidy_0(text):\n    return text.strip().lower()\n")

    units = cli("index", "--json", "--sort", "priority", repo.root).json()["units"]
    high = [u for u in units if u["agent_decision"]["priority"] == "high"]
    assert len(high) == 4 and len(units) == 5
    out = cli("rules", "explain", high[0]["unit_id"], repo.root).out
    assert " + shared_risk -30 + " in out
    assert ("shared_risk: 60% or more of this change's units are high or critical, so its high "
            "class says less about what to read first (-30 of its 30 risk points)") in out

    repo.commit("tighten the checks")
    repo.write("auth_login.py", AUTH.format(n="login", op="is"))
    for i in range(9):
        repo.write(f"util_{i}.py", f"def tidy_{i}(text):\n    return text.strip().upper()\n")
    units = cli("index", "--json", "--sort", "priority", repo.root).json()["units"]
    (alone,) = [u for u in units if u["agent_decision"]["priority"] == "high"]
    assert len(units) == 10 and units[0] == alone  # 10% high: no cut, still read first
    assert "shared_risk" not in cli("rules", "explain", alone["unit_id"], repo.root).out
