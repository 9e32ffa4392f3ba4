"""The shape of the package: the core stays free of the TUI framework, the stages import each
other one way without loops, the top level holds only the stages, and the package ships its data.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import reviewtui
from reviewtui.config import data_dir

PACKAGE = Path(reviewtui.__file__).resolve().parent


def _core_modules() -> list[str]:
    """Every module of the package outside ``reviewtui.tui``, found on disk (new ones too)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] in ("tui", "__main__"):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(("reviewtui", *parts)))
    return names


def test_core_never_imports_textual_or_rich() -> None:
    modules = _core_modules()
    assert {"reviewtui.cli.main", "reviewtui.agent.tools", "reviewtui.sessions.store",
            "reviewtui.context.search.project", "reviewtui.conversation.engine"} <= set(modules)
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('textual', 'rich'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def _module_imports(path: Path, name: str) -> set[str]:
    """The reviewtui modules ``path`` imports at its top, for running or for typing (imports
    inside functions are deliberate lazy loads of a later stage, and not counted)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    top = list(tree.body)
    top += [inner for node in tree.body if isinstance(node, ast.If) for inner in node.body]
    for node in top:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            base = node.module
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("reviewtui.") and m != name}


def test_no_module_imports_itself_back() -> None:
    modules = set(_core_modules())
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("reviewtui", *(parts[:-1] if parts[-1] == "__init__" else parts)))
        if name in modules and path.name != "__init__.py":
            graph[name] = {m for m in _module_imports(path, name)
                           if m in modules and not (PACKAGE / m.split(".", 1)[1].replace(
                               ".", "/") / "__init__.py").is_file()}
    loops = []
    for start in graph:
        stack = [(start, [start])]
        seen: set[str] = set()
        while stack:
            node, route = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    loops.append(" -> ".join([*route, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*route, nxt]))
    assert loops == []


def test_top_level_holds_only_the_stages() -> None:
    packages = sorted(p.name for p in PACKAGE.iterdir()
                      if p.is_dir() and (p / "__init__.py").is_file())
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert packages == ["agent", "analysis", "app", "cli", "code", "context", "conversation",
                        "eval", "forge", "git", "history", "llm", "pipeline", "plan", "rules",
                        "sessions", "tui", "units"]
    assert modules == ["__init__", "__main__", "config", "errors", "models"]


def test_the_forge_client_loads_only_when_a_pull_request_is_used() -> None:
    """Start-up time: parsing a command line, loading a change and the workbench's modules
    never import the forge code or its HTTP client."""
    code = ("import sys\n"
            "import reviewtui.cli.main, reviewtui.cli.parser, reviewtui.cli.selectors\n"
            "from reviewtui.cli.parser import parse\n"
            "parse('index', ['--pr', '7'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'httpx2'))\n"
            "import reviewtui.cli.intent, reviewtui.pipeline, reviewtui.agent.deliverable\n"
            "print(sorted(m for m in sys.modules if m.startswith(('reviewtui.forge', "
            "'reviewtui.app.open_pr', 'reviewtui.app.publish'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "[]"]


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
    assert "reviewtui/cli/main.py" in names
    # tiktoken's encodings ship inside the package: token counting works offline.
    assert "reviewtui/_data/tiktoken/cl100k_base.tiktoken.gz" in names
    assert "reviewtui/_data/tiktoken/o200k_base.tiktoken.gz" in names
