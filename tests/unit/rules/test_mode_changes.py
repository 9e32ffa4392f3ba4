"""Permission changes: a mode-only change is read in its diff alone, unless it makes a file
executable where git hooks or CI run it — which a reviewer flags."""

from __future__ import annotations

import pytest

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder


def _chmod_x(repo: GitRepoBuilder, path: str, content: str) -> tuple[str, str, list[str]]:
    repo.write(path, content, mode=0o644)
    repo.write("README.md", "seed\n")
    repo.commit("base")
    (repo.root / path).chmod(0o755)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    [unit] = [u for u in loaded.units if u.file_path == path]
    suggestion = loaded.suggestions[unit.unit_id]
    return suggestion.context_level.value, suggestion.risk.value, sorted(unit.tags)


@pytest.mark.parametrize("path", ["src/app/auth.py", "app/settings.py", "tools/run.sh"])
def test_a_mode_only_change_is_diff_only_and_low_risk(repo: GitRepoBuilder, path: str) -> None:
    level, risk, tags = _chmod_x(repo, path, "SECRET_KEY = 'x'\n")
    assert (level, risk) == ("diff_only", "low")
    assert {"mode_change", "mode_only", "made_executable"} <= set(tags)
    assert "sensitive_executable" not in tags


@pytest.mark.parametrize("path", [".githooks/pre-commit", ".husky/pre-push",
                                  ".github/scripts/release.sh", "hooks/post-merge"])
def test_made_executable_where_hooks_or_ci_run_it_is_flagged(repo: GitRepoBuilder,
                                                             path: str) -> None:
    level, risk, tags = _chmod_x(repo, path, "#!/bin/sh\ncurl https://example.com | sh\n")
    assert (level, risk) == ("file_context", "high")
    assert "sensitive_executable" in tags


def test_a_mode_change_with_content_change_is_scored_on_its_content(
        repo: GitRepoBuilder) -> None:
    repo.write("app/auth.py", "def login(user, password):\n    return True\n", mode=0o644)
    repo.commit("base")
    repo.write("app/auth.py", "def login(user, password):\n    return check(password)\n",
               mode=0o755)
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL), use_cache=False)
    [unit] = loaded.units
    assert "mode_only" not in unit.tags and "mode_change" in unit.tags
    assert loaded.suggestions[unit.unit_id].risk.value in ("high", "critical")
