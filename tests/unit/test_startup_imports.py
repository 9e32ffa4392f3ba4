"""What starting up imports: the first screen and ``--version`` load only what they show.

Each check runs in a clean interpreter (a subprocess), so what this test process has imported
already cannot hide an eager import. The model client (``openai`` and its HTTP stack), the
tokenizer, grammars of languages not in the change, the scanners, the review agent, the chat,
the LLM planner, the learning stage and the exporters load when first used; an import added at
the top of a module on the way to ``reviewtui.tui.app`` that pulls one of them in fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import reviewtui
from reviewtui.code.language_specs import SPECS
from tests.conftest import GitRepoBuilder

PACKAGE = Path(reviewtui.__file__).resolve().parent

# Third-party packages: the model client and the tokenizer.
LLM_PACKAGES = ("openai", "httpx", "httpx2", "tiktoken", "tiktoken_ext")
# Textual's Markdown widget parses with markdown-it: it loads with the first chat answer.
FIRST_ANSWER = ("markdown_it",)
# Every grammar wheel of the language table (a new language's wheel is in this list too).
GRAMMARS = tuple(sorted({s.grammar.module for s in SPECS if s.grammar is not None}))
# Whole subpackages that run only on a key press or a subcommand.
LAZY_PACKAGES = ("reviewtui.agent", "reviewtui.conversation", "reviewtui.rules.learning")
# Single modules: the model client, the LLM planner, the exporters.
LAZY_MODULES = (
    "reviewtui.llm.client", "reviewtui.llm.transport", "reviewtui.llm.failures",
    "reviewtui.plan.planner", "reviewtui.plan.prompt", "reviewtui.plan.extract",
    "reviewtui.plan.cache",
    "reviewtui.sessions.export", "reviewtui.sessions.export_intent", "reviewtui.cli.export",
    "reviewtui.agent.deliverable", "reviewtui.agent.report",
    # the forge client: only --pr and publish load it (the workbench names PullThread only)
    "reviewtui.forge.http", "reviewtui.forge.github", "reviewtui.forge.sync",
    "reviewtui.forge.auth",
)
# The scanners: every module of the package but the rule pack's settings and the issue model.
SCANNERS = tuple(sorted(
    f"reviewtui.rules.scanners.{path.stem}"
    for path in (PACKAGE / "rules" / "scanners").glob("*.py")
    if path.stem not in ("__init__", "config", "model")))


# What loading a change needs (the repository through GitPython, diffing, cutting units with
# tree-sitter, the rule engine, the per-file analysis): imported by ``load_change``, never by
# the workbench module itself, so the workbench can be on screen before any of it loads.
PIPELINE_STAGES = ("git", "gitdb", "reviewtui.git.runner", "reviewtui.git.collect",
                   "reviewtui.units.build", "reviewtui.code", "reviewtui.rules",
                   "reviewtui.analysis")


# The workbench's own models (the plan, the session and its store, the triage, the model
# settings, the pull request's threads, the stated purpose) and pydantic under them: imported
# by the loading worker, so the loading view paints after importing Textual and little else.
WORKBENCH_MODELS = ("reviewtui.plan", "reviewtui.sessions", "reviewtui.pipeline",
                    "reviewtui.models", "reviewtui.llm", "reviewtui.forge",
                    "reviewtui.git.intent", "reviewtui.git.intent_text", "reviewtui.tui.session",
                    "reviewtui.tui.triage", "pydantic", "pydantic_core")
# The chat's widgets (a TextArea, grapheme clusters through ``regex``; the input's layout and
# editing by cluster load with it): composed with the workbench, after loading.
CHAT_WIDGETS = ("reviewtui.tui.widgets.chat_pane", "reviewtui.tui.widgets.chat_input",
                "reviewtui.tui.widgets.grapheme_layout",
                "reviewtui.tui.widgets.grapheme_text_area", "reviewtui.tui.text_cursor",
                "reviewtui.tui.text_wrap", "regex")


def _is_stage(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in PIPELINE_STAGES)


def _is_workbench_model(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in WORKBENCH_MODELS)


def _is_lazy(name: str) -> bool:
    top = name.split(".")[0]
    return (top in LLM_PACKAGES or top in FIRST_ANSWER or top in GRAMMARS
            or top.startswith("tree_sitter_") or name in LAZY_MODULES or name in SCANNERS
            or any(name == p or name.startswith(p + ".") for p in LAZY_PACKAGES))


def _modules_after(code: str, *, cwd: Path | None = None) -> tuple[list[str], str]:
    """The modules a fresh interpreter holds after running ``code``, and what it printed."""
    script = (f"{code}\nimport json, sys\n"
              "print('\\n' + json.dumps(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    printed, _, modules = proc.stdout.rstrip("\n").rpartition("\n")
    return json.loads(modules), printed.strip()


def test_the_lists_name_real_modules() -> None:
    """The names below are the package's own: a renamed module must not empty a check."""
    assert len(GRAMMARS) >= 10 and "tree_sitter_python" in GRAMMARS
    assert {"reviewtui.rules.scanners.runner", "reviewtui.rules.scanners.registry",
            "reviewtui.rules.scanners.python_tools", "reviewtui.rules.scanners.semgrep_tool",
            } <= set(SCANNERS)
    for name in (LAZY_MODULES + LAZY_PACKAGES + PIPELINE_STAGES[2:] + WORKBENCH_MODELS[:-2]
                 + CHAT_WIDGETS[:-1]):
        relative = name.split(".")[1:]
        assert ((PACKAGE.joinpath(*relative).with_suffix(".py")).is_file()
                or (PACKAGE.joinpath(*relative) / "__init__.py").is_file()), name


def test_the_workbench_module_imports_none_of_the_lazy_stages() -> None:
    modules, _ = _modules_after("import reviewtui.tui.app")
    assert "reviewtui.tui.app" in modules and "textual.app" in modules
    assert [m for m in modules if _is_lazy(m)] == []
    assert [m for m in modules if _is_stage(m)] == []


def test_the_loading_view_paints_before_the_workbench_models_load() -> None:
    """Importing the app (all it needs to paint the loading view) imports none of the
    workbench's models; the loading worker's first step imports them all."""
    modules, _ = _modules_after("import reviewtui.tui.app")
    assert [m for m in modules if _is_workbench_model(m)] == []
    assert [m for m in modules if m in CHAT_WIDGETS] == []
    modules, _ = _modules_after("import reviewtui.tui.app\n"
                                "from reviewtui.tui.opening_actions import "
                                "import_workbench_models\n"
                                "import_workbench_models()")
    assert {"reviewtui.plan", "reviewtui.sessions.store", "reviewtui.pipeline",
            "reviewtui.tui.session", "reviewtui.tui.triage", "reviewtui.tui.themes",
            "pydantic", *CHAT_WIDGETS} <= set(modules)
    assert [m for m in modules if _is_lazy(m)] == []  # the model client still waits


def test_what_runs_before_the_app_imports_no_models(repo: GitRepoBuilder) -> None:
    """``reviewtui`` starts the workbench's load (which asks whether the repository keeps a
    cache, and forks the analysis) before it imports the app: none of that may import the
    settings' or the change's models, which would hold back the first paint."""
    _committed_range(repo)
    modules, printed = _modules_after(
        "from reviewtui.app.open_change import WorkbenchLoad\n"
        "from reviewtui.git import ChangeSelector, SelectorMode\n"
        f"load = WorkbenchLoad({str(repo.root)!r}, ChangeSelector(SelectorMode.RANGE,"
        " 'base..HEAD'))\n"
        "load.stop()\n"
        "print(load._cache_kept)")
    assert printed == "False"  # nothing analysed here yet
    assert [m for m in modules if m.split(".")[0] == "pydantic" or m in (
        "reviewtui.config", "reviewtui.analysis.cache", "reviewtui.analysis.records")
        or _is_workbench_model(m)] == []


def test_opening_a_change_loads_only_its_own_grammar(repo: GitRepoBuilder) -> None:
    """What the workbench does before its first paint: load the change (reach included), import
    the app, plan with the rules alone. A Python-only change parses with Python's grammar only,
    although the repository also holds Go and JavaScript."""
    repo.write("app.py", "def total(items):\n    return sum(items)\n")
    repo.write("server.go", "package main\n\nfunc main() {}\n")
    repo.write("web/page.js", "export function show() { return 1 }\n")
    repo.commit("base")
    repo.write("app.py", "def total(items):\n    return sum(items) + 1\n")
    code = (
        "from pathlib import Path\n"
        "from reviewtui.git import ChangeSelector, SelectorMode\n"
        "from reviewtui.pipeline import load_change\n"
        "import reviewtui.tui.app\n"
        "from reviewtui.plan import plan_change\n"
        f"loaded = load_change(Path({str(repo.root)!r}), ChangeSelector(SelectorMode.AUTO))\n"
        "loaded = loaded.with_reach()\n"
        "plan = plan_change(loaded.review_index(), None)\n"
        "print(len(loaded.units), len(plan.plan))"
    )
    modules, printed = _modules_after(code)
    assert printed.split() == ["1", "1"]
    assert "tree_sitter_python" in modules
    assert [m for m in modules if _is_lazy(m) and not m.startswith("tree_sitter_python")] == []
    assert "yaml" not in modules  # the rule packs are TOML: PyYAML loads for a YAML pack only


def _committed_range(repo: GitRepoBuilder) -> None:
    """``base..HEAD``: one function changed in one commit."""
    repo.write("app.py", "def total(items):\n    return sum(items)\n")
    repo.commit("base")
    repo.git("tag", "base")
    repo.write("app.py", "def total(items):\n    return sum(items) + 1\n")
    repo.commit("head")


def test_a_kept_range_is_indexed_without_the_rule_engine(repo: GitRepoBuilder) -> None:
    """A range opened before is read from its snapshot: indexed and put in priority order
    without building the rule engine (its handlers, scanners' settings) or parsing a file;
    explaining a unit's rules builds it then."""
    _committed_range(repo)
    code = (
        "from pathlib import Path\n"
        "from reviewtui.git import ChangeSelector, SelectorMode\n"
        "from reviewtui.pipeline import load_change\n"
        "def index():\n"
        f"    loaded = load_change(Path({str(repo.root)!r}),\n"
        "                         ChangeSelector(SelectorMode.RANGE, 'base..HEAD')).with_reach()\n"
        "    return loaded, loaded.review_index()\n"
    )
    modules, printed = _modules_after(code + "print(len(index()[1].units))")  # computed, kept
    assert printed == "1" and "reviewtui.rules.engine" in modules
    modules, printed = _modules_after(code + "print(len(index()[1].units))")
    assert printed == "1"
    assert [m for m in modules if m in ("reviewtui.rules.engine", "reviewtui.rules.handlers")
            or m.startswith("tree_sitter")] == []
    modules, printed = _modules_after(code + "loaded, _ = index()\n"
                                      "print(loaded.rules.evaluate(loaded.units[0]).risk.value)")
    assert printed in ("low", "medium", "high", "critical")
    assert "reviewtui.rules.engine" in modules


def test_the_workbench_opens_a_kept_range_without_the_analysis(repo: GitRepoBuilder) -> None:
    """The workbench's own load of a range opened before (its worker's path: the cache asked
    alone, then the table's rows and the selected unit's reasons) builds no rule engine and
    imports no analysis or parser: waiting for the forked analysis' answer, explaining a place
    in the order, need neither."""
    _committed_range(repo)
    code = (
        "from pathlib import Path\n"
        "from reviewtui.app.open_change import WorkbenchLoad\n"
        "from reviewtui.git import ChangeSelector, SelectorMode\n"
        "from reviewtui.tui.base import Opened\n"
        f"load = WorkbenchLoad(Path({str(repo.root)!r}), ChangeSelector(SelectorMode.RANGE,"
        " 'base..HEAD'))\n"
        "loaded = load(lambda progress: None)\n"
        "load.stop()\n"
        f"store = Path({str(repo.root / '.git' / 'store.sqlite3')!r})\n"
        "opened = Opened.build(loaded, store, None, '--description')\n"
        "unit = loaded.units[0]\n"
        "print(len(opened.triage.units), bool(loaded.priority_reasons(unit.unit_id)))"
    )
    modules, printed = _modules_after(code)  # computed and kept
    assert printed == "1 True"
    modules, printed = _modules_after(code)
    assert printed == "1 True"
    assert [m for m in modules if m in ("reviewtui.rules.engine", "reviewtui.rules.handlers",
                                        "reviewtui.analysis.run", "reviewtui.units.build")
            or m.startswith("tree_sitter")] == []


def test_version_answers_before_anything_is_imported() -> None:
    code = ("import runpy, sys\n"
            "sys.argv = ['reviewtui', '--version']\n"
            "try:\n"
            "    runpy.run_module('reviewtui', run_name='__main__')\n"
            "except SystemExit as done:\n"
            "    assert done.code == 0, done.code")
    modules, printed = _modules_after(code)
    assert printed == f"reviewtui {reviewtui.__version__}"
    ours = [m for m in modules if m.split(".")[0] == "reviewtui"]
    assert sorted(ours) == ["reviewtui", "reviewtui.cli", "reviewtui.cli.main", "reviewtui.errors"]
    assert [m for m in modules if m.split(".")[0] in ("pydantic", "argparse", "textual")
            or _is_lazy(m) or _is_stage(m)] == []


def test_version_prints_what_the_parser_prints() -> None:
    """The shortcut and argparse's version action (reached with another option first) agree."""
    runs = [subprocess.run([sys.executable, "-m", "reviewtui", *args], capture_output=True,
                           text=True, check=False)
            for args in (["--version"], ["--watch", "--version"])]
    assert [(r.returncode, r.stdout, r.stderr) for r in runs] == [
        (0, f"reviewtui {reviewtui.__version__}\n", "")] * 2
