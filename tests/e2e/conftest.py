"""Real-terminal tests share one pytest-xdist worker (``--dist loadgroup``): each starts its own
tmux server and a full ``reviewtui`` process, and several at once on a 2-core machine would
starve each other past their timeouts."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.xdist_group("terminal"))
