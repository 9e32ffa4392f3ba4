"""A repository history for the self-learning loop, and a planner that keeps disagreeing with
the rules on one kind of unit.

Every change edits one line inside a test function (``tests/test_N.py``: tags
``in_single_function`` + ``test_file``, the rules say ``function``) and one line inside an
application function (``app/mod_N.py``). The scripted planner says ``diff_only`` for the test
units and agrees with the rules on everything else.
"""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import GitRepoBuilder
from tests.support.openai_server import Reply

TEST_REASON = "only an assertion changed"


def _test_file(n: int, extra: str = "") -> str:
    return (f"from app.mod_{n} import total\n\n\ndef test_total_{n}():\n"
            f"    assert total([1, 2]) == 3\n{extra}")


def _app_file(n: int, body: str = "sum(items)") -> str:
    return f"def total(items):\n    return {body}\n"


def base(repo: GitRepoBuilder, count: int) -> str:
    """The base commit: ``count`` test files and application modules."""
    for n in range(count):
        repo.write(f"tests/test_{n}.py", _test_file(n))
        repo.write(f"app/mod_{n}.py", _app_file(n))
    return repo.commit("base")


def change(repo: GitRepoBuilder, n: int, *, commit: bool = True) -> str:
    """Change ``n``: one more assertion in tests/test_N.py, another body in app/mod_N.py."""
    repo.write(f"tests/test_{n}.py", _test_file(n, "    assert total([]) == 0\n")
               .replace("    assert total([1, 2]) == 3\n",
                        "    assert total([1, 2]) == 3\n    assert total([5]) == 5\n"))
    repo.write(f"app/mod_{n}.py", _app_file(n, "sum(items, 0)"))
    return repo.commit(f"change {n}") if commit else ""


def planned_units(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The units of a planner request (one JSON object per line after "Units")."""
    text = next(m["content"] for m in request["messages"] if m["role"] == "user"
                and "Units" in m["content"])
    units = []
    for line in text.split("Units", 1)[1].splitlines():
        line = line.strip().lstrip("[").rstrip(",").rstrip("]")
        if line.startswith('{"unit_id"'):
            units.append(json.loads(line))
    return units


def planner(request: dict[str, Any]) -> Reply:
    """``diff_only`` for test files, the rules' own level for everything else."""
    plan = []
    for unit in planned_units(request):
        if unit["file_path"].startswith("tests/"):
            plan.append({"unit_id": unit["unit_id"], "llm_context_level": "diff_only",
                         "skip_review": False, "reason": TEST_REASON})
        else:
            plan.append({"unit_id": unit["unit_id"],
                         "llm_context_level": unit["rule_context_level"],
                         "skip_review": False, "reason": "logic changed"})
    return Reply.json({"plan": plan})
