"""``reviewtui``: pick the subcommand, run it, turn every ``ReviewTuiError`` into one line.

``reviewtui [selectors] [PATH]`` opens the workbench in a terminal and prints the index table
when piped; the headless subcommands run the same pipeline. Errors print as one line on stderr
with exit code 2, never a traceback. ``reviewtui --version`` answers before any parser (or
anything else) is imported.
"""

from __future__ import annotations

import errno
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from reviewtui import __version__
from reviewtui.errors import ReviewTuiError

if TYPE_CHECKING:
    import argparse


def _run(command: str, args: argparse.Namespace) -> int:
    """Run one parsed subcommand; each group's module loads only when it is used."""
    if command == "index":
        from reviewtui.cli.index import run_index

        return run_index(args)
    if command in ("plan", "bundle"):
        from reviewtui.cli import plan

        return plan.run_plan(args) if command == "plan" else plan.run_bundle(args)
    if command == "rules":
        from reviewtui.cli.rules import run_rules

        return run_rules(args)
    if command == "eval":
        from reviewtui.cli.evaluate import run_eval_command

        return run_eval_command(args, sys.stdout, sys.stderr)
    if command == "export":
        from reviewtui.cli.export import run_export

        return run_export(args)
    if command == "publish":
        from reviewtui.cli.publish import run_publish

        return run_publish(args, sys.stdout, sys.stderr)
    if command == "findings":
        from reviewtui.cli.findings import run_findings

        return run_findings(args, sys.stdout, sys.stderr)
    from reviewtui.cli import agent

    gc.enable()  # a conversation can run for long: collect its garbage cycles as usual
    if command == "sessions":
        return agent.run_sessions(args, sys.stdout)
    if command == "review":
        return agent.run_review(args, sys.stdout, sys.stderr)
    from reviewtui.cli.ask import run_ask

    return run_ask(args, sys.stdout, sys.stderr)


def _dispatch(argv: list[str]) -> int:
    from reviewtui.cli.parser import SUBCOMMANDS, parse

    if argv and argv[0] in SUBCOMMANDS:
        return _run(argv[0], parse(argv[0], argv[1:]))
    args = parse("", argv)  # --help / --version / validation
    if sys.stdin.isatty() and sys.stdout.isatty():
        from reviewtui.cli.workbench import run_workbench

        return run_workbench(args)
    # A pipe, a script: the index table (the workbench's own options mean nothing there).
    return _run("index", parse("index", [a for a in argv if a != "--watch"]))


# Headless commands whose process ends once they have printed: freeing what they built (a large
# change's diff lines, units and index models, object by object) and finalizing the interpreter
# took an eighth of a warm ``index`` on an 8,000-unit change. They keep it alive
# (``index.KEPT``) and the process ends without the teardown; only when ``main`` is the process
# entry (``argv`` None), never when a caller (a test) runs it in its own process.
_EXIT_AT_ONCE = frozenset({"index"})


def _left_loading() -> bool:
    """Did the workbench quit before its change was loaded (``workbench.left_loading``)?"""
    workbench = sys.modules.get("reviewtui.cli.workbench")
    return bool(getattr(workbench, "left_loading", False))


# What writing the output fails with when the disk (or quota, or device) is full or gone.
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _drop_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _exit_at_once(code: int) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        return  # let the usual path report and clean up
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:  # what argparse's version action prints, without building it
        print(f"reviewtui {__version__}")
        return 0
    # A headless command is a short batch job that allocates a few hundred thousand long-lived
    # objects (diff lines, units, index models) and no garbage cycles worth collecting; the
    # cyclic collector would rescan that growing heap again and again (~15% of a large index).
    # Reference counting still frees what is dropped. Long-running commands turn it back on.
    collecting = gc.isenabled()
    gc.disable()
    # On a terminal, what a change holds is shown, not run: a path's ESC [2J cleared the
    # screen of `reviewtui index` (see app.terminal_text). A pipe gets the exact text.
    from reviewtui.app.terminal_text import for_terminal, shown_text

    stdout = sys.stdout
    sys.stdout = for_terminal(stdout)
    try:
        code = _dispatch(args)
        sys.stdout.flush()  # a full disk says so here, not in the interpreter's exit
        if argv is None and ((args and args[0] in _EXIT_AT_ONCE) or _left_loading()):
            _exit_at_once(code)
        return code
    except ReviewTuiError as exc:
        print(f"reviewtui: error: {shown_text(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("reviewtui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_stdout()
        return 0
    except OSError as exc:
        if exc.errno not in _WRITE_FAILURES:
            raise
        _drop_stdout()  # what is still buffered cannot be written either
        print(f"reviewtui: error: cannot write the output: {exc.strerror}", file=sys.stderr)
        return 1
    finally:
        sys.stdout = stdout
        if collecting:
            gc.enable()
