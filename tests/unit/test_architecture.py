"""The core stays free of the TUI framework, and the package ships its data."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from reviewtui.resources import data_dir

CORE_MODULES = [
    "reviewtui.cli", "reviewtui.pipeline", "reviewtui.git", "reviewtui.units", "reviewtui.code",
    "reviewtui.models", "reviewtui.config", "reviewtui.rules", "reviewtui.llm",
    "reviewtui.llm.client", "reviewtui.plan", "reviewtui.context", "reviewtui.cli_plan",
    "reviewtui.conversation", "reviewtui.cli_chat",
]


def test_core_never_imports_textual_or_rich() -> None:
    code = (
        "import json, sys\n"
        + "".join(f"import {name}\n" for name in CORE_MODULES)
        + "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('textual', 'rich'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_rule_packs_and_themes_are_found() -> None:
    assert (data_dir("rules") / "base.toml").is_file()
    assert (data_dir("themes") / "reviewtui-dark.toml").is_file()
    assert (data_dir("themes") / "reviewtui-light.toml").is_file()


def test_wheel_ships_rules_and_themes(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file():
        pytest.skip("not running from a source checkout")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(root)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    [wheel] = tmp_path.glob("reviewtui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "reviewtui/_data/rules/base.toml" in names
    assert "reviewtui/_data/themes/reviewtui-dark.toml" in names
    assert "reviewtui/cli.py" in names
    # tiktoken's encodings ship inside the package: token counting works offline.
    assert "reviewtui/_data/tiktoken/cl100k_base.tiktoken.gz" in names
    assert "reviewtui/_data/tiktoken/o200k_base.tiktoken.gz" in names
