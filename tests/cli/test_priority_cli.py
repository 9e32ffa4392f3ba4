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
