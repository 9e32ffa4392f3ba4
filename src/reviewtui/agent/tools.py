"""The review agent's read-only tools: schemas for the model, and a runner that never raises.

Seed 001 §5 lets the review agent ask for more code than its bundle holds (``read_file_hunk``,
project search...); seed 002 keeps full tool results in a tool memory the agent can read back
(``get_tool_result``). The model's arguments are untrusted text, so ``ToolBox.run`` checks them
against the same schema the model was given, confines every path to the repository
(``tool_paths``), runs the tool in a daemon thread under a timeout and caps what goes back to
the model. Every failure - bad JSON, an unknown tool, a refused path, a timeout, git failing - is
an ``ok=False`` outcome with one line the model can act on, never an exception.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from reviewtui.agent.tool_context import ToolContext
from reviewtui.agent.tool_impl import MAX_FILES_LISTED, MAX_SPAN, Reply, ToolImpl
from reviewtui.agent.tool_paths import ToolError

__all__ = ["TOOL_NAMES", "ToolBox", "ToolContext", "ToolError", "ToolOutcome"]

_log = logging.getLogger(__name__)

MIN_OUTPUT_CHARS = 200
_MARKER_ROOM = 100


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's result. ``content`` goes back to the model (capped); ``full_content``
    is the uncapped text when ``content`` was truncated (for the tool memory), else None."""

    name: str
    ok: bool
    content: str
    truncated: bool
    files: tuple[str, ...]  # repository paths the call read or returned
    seconds: float
    full_content: str | None = field(default=None, repr=False)

    @property
    def full_text(self) -> str:
        """The whole result: what the tool memory should store."""
        return self.full_content if self.full_content is not None else self.content


@dataclass(frozen=True, slots=True)
class _Param:
    type: Literal["string", "integer"]
    description: str
    required: bool = True
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    default: int | str | None = None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum:
            out["enum"] = list(self.enum)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.default is not None:
            out["default"] = self.default
        return out


@dataclass(frozen=True, slots=True)
class _Spec:
    name: str
    description: str
    params: dict[str, _Param]
    handler: Callable[[ToolImpl, Mapping[str, Any]], Reply]

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": {name: p.schema() for name, p in self.params.items()},
                    "required": [name for name, p in self.params.items() if p.required],
                    "additionalProperties": False,
                },
            },
        }


_PATH = "Repository-relative file path, e.g. 'src/app/models.py'."
_UNIT_ID = "A unit_id from the review index, or a unique prefix of one."

_SPECS: tuple[_Spec, ...] = (
    _Spec(
        "read_file_hunk",
        "Read numbered lines start..end (1-based, inclusive, at most "
        f"{MAX_SPAN} per call) of a file as this change leaves it (the commit, index or working "
        "tree under review, not the disk). side='before' reads the version the change started "
        "from (for deleted files, or to compare).",
        {
            "path": _Param("string", _PATH),
            "start": _Param("integer", "First line to show (1-based).", minimum=1),
            "end": _Param("integer", "Last line to show (inclusive).", minimum=1),
            "side": _Param("string", "'after' (default): the change's result; 'before': its "
                           "base.", required=False, enum=("after", "before"), default="after"),
        },
        ToolImpl.read_file_hunk,
    ),
    _Spec(
        "search_in_project",
        "Find a literal, case-sensitive text (an identifier, a config key, a message) in every "
        "file of the changed project; returns numbered snippets with file:line. Vendored folders "
        "and lockfiles are skipped.",
        {
            "query": _Param("string", "The exact text to find (one line)."),
            "max_results": _Param("integer", "How many snippets to return (1-50).",
                                  required=False, minimum=1, maximum=50, default=10),
        },
        ToolImpl.search_in_project,
    ),
    _Spec(
        "list_project_files",
        "List the project's files (as this change leaves them) matching a glob: '*' and '?' "
        "stay within a folder, '**' spans folders ('src/**/*.py'), a glob without '/' matches "
        f"file names at any depth ('*.sql'). At most {MAX_FILES_LISTED} names, with the total.",
        {"glob": _Param("string", "Repository-relative glob, e.g. 'src/**/*.py' or '**' for "
                        "every file.")},
        ToolImpl.list_project_files,
    ),
    _Spec(
        "get_dependencies",
        "The project's declared dependencies, read from its manifests (pyproject.toml, "
        "requirements*.txt, setup.cfg, package.json, go.mod, Gemfile, Cargo.toml, pom.xml, "
        "build.gradle) at the root and one folder down.",
        {},
        ToolImpl.get_dependencies,
    ),
    _Spec(
        "get_scanner_issues",
        "Static-analysis findings (ruff, mypy, eslint...) for one changed file, with line, "
        "severity, tool and rule.",
        {"path": _Param("string", _PATH)},
        ToolImpl.get_scanner_issues,
    ),
    _Spec(
        "get_unit",
        "One review unit as JSON: file, location, tags, metrics, line numbers, symbols, the "
        "rules' context level, confidence, notes and extra requests.",
        {"unit_id": _Param("string", _UNIT_ID)},
        ToolImpl.get_unit,
    ),
    _Spec(
        "get_bundle",
        "A review unit's context bundle as Markdown: its diff, the surrounding code at its "
        "context level, the previous version, callers, search results and scanner issues.",
        {"unit_id": _Param("string", _UNIT_ID)},
        ToolImpl.get_bundle,
    ),
    _Spec(
        "get_tool_result",
        "The full text of an earlier tool result that was shortened in the conversation, by "
        "its ref id; long results come in pages: pass the offset the previous page names.",
        {
            "ref_id": _Param("string", "The ref id shown with the shortened result."),
            "offset": _Param("integer", "Character offset to start from (0 = the beginning).",
                             required=False, minimum=0, default=0),
        },
        ToolImpl.get_tool_result,
    ),
)

TOOL_NAMES: tuple[str, ...] = tuple(spec.name for spec in _SPECS)


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "failed"


def _integer(name: str, value: Any, param: _Param) -> int:
    number: int
    if isinstance(value, bool):
        raise ToolError(f"argument {name!r} must be an integer, not a boolean")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("+-").isdigit() and \
            len(value.strip()) <= 18:
        number = int(value.strip())
    else:
        raise ToolError(f"argument {name!r} must be an integer, got {json.dumps(value)[:40]}")
    if param.minimum is not None:
        number = max(param.minimum, number)
    if param.maximum is not None:
        number = min(param.maximum, number)
    return number


def _parse_arguments(spec: _Spec, arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """The model's raw JSON checked against ``spec``: defaults filled, integers clamped."""
    raw: Any
    if arguments is None or isinstance(arguments, Mapping):
        raw = dict(arguments or {})
    elif not isinstance(arguments, str):
        raise ToolError("arguments must be a JSON object")
    elif not arguments.strip():
        raw = {}
    else:
        try:
            raw = json.loads(arguments)
        except (json.JSONDecodeError, RecursionError) as exc:
            where = f" ({exc.msg} at character {exc.pos})" \
                if isinstance(exc, json.JSONDecodeError) else ""
            raise ToolError(f"arguments for {spec.name} are not valid JSON{where}; send one "
                            "JSON object") from None
    if not isinstance(raw, dict):
        raise ToolError(f"arguments for {spec.name} must be a JSON object, not "
                        f"{type(raw).__name__}")
    expected = ", ".join(spec.params) or "none"
    unknown = [key for key in raw if key not in spec.params]
    if unknown:
        names = ", ".join(repr(str(k))[:60] for k in unknown)
        raise ToolError(f"unknown argument(s) {names} for {spec.name}; expected: {expected}")
    parsed: dict[str, Any] = {}
    missing: list[str] = []
    for name, param in spec.params.items():
        value = raw.get(name)
        if value is None:
            if param.required:
                missing.append(name)
            elif param.default is not None:
                parsed[name] = param.default
            continue
        if param.type == "integer":
            parsed[name] = _integer(name, value, param)
            continue
        if not isinstance(value, str):
            raise ToolError(f"argument {name!r} must be a string, got {type(value).__name__}")
        if param.enum and value not in param.enum:
            raise ToolError(f"argument {name!r} must be one of: {', '.join(param.enum)}")
        parsed[name] = value
    if missing:
        raise ToolError(f"missing required argument(s) {', '.join(missing)} for {spec.name}; "
                        f"expected: {expected}")
    return parsed


def _cap(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, ending in a marker saying how much was left out."""
    if len(text) <= limit:
        return text, False
    keep = limit - _MARKER_ROOM
    newline = text.rfind("\n", 0, keep)
    if newline > keep * 0.8:
        keep = newline
    rest = len(text) - keep
    marker = (f"\n… truncated ({rest} more characters; narrow the range or use "
              "get_tool_result)")
    return text[:keep] + marker, True


class ToolBox:
    """The agent's tools over one change. ``run``/``arun`` never raise."""

    def __init__(self, ctx: ToolContext, *, max_output_chars: int = 16_000,
                 timeout: float = 20.0) -> None:
        if max_output_chars < MIN_OUTPUT_CHARS:
            raise ValueError(f"max_output_chars must be at least {MIN_OUTPUT_CHARS}")
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.ctx = ctx
        self.max_output_chars = max_output_chars
        self.timeout = timeout
        self._impl = ToolImpl(ctx, timeout=timeout, max_output_chars=max_output_chars)
        self._specs = {spec.name: spec for spec in _SPECS}

    @property
    def names(self) -> tuple[str, ...]:
        return TOOL_NAMES

    def schemas(self) -> list[dict[str, Any]]:
        """The OpenAI ``tools`` list (function definitions with JSON-schema parameters)."""
        return [spec.schema() for spec in _SPECS]

    def run(self, name: str, arguments: str) -> ToolOutcome:
        """Run tool ``name`` with the model's raw JSON ``arguments``, under the timeout."""
        started = time.monotonic()
        spec = self._specs.get(name) if isinstance(name, str) else None
        if spec is None:
            shown = repr(name)[:80]
            return self._failure(str(name)[:80], f"unknown tool {shown}; available: "
                                 f"{', '.join(TOOL_NAMES)}", started)
        try:
            args = _parse_arguments(spec, arguments)
        except ToolError as exc:
            return self._failure(name, str(exc), started)
        box: list[Reply | BaseException] = []

        def work() -> None:
            try:
                box.append(spec.handler(self._impl, args))
            except BaseException as exc:  # handed to the caller's thread, never lost
                box.append(exc)

        worker = threading.Thread(target=work, name=f"reviewtui-tool-{name}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive() or not box:  # the thread may still finish in the background
            return self._failure(name, f"{name} timed out after {self.timeout:g}s; ask for "
                                 "less (a narrower range, glob or query)", started)
        result = box[0]
        if isinstance(result, ToolError):
            return self._failure(name, str(result), started)
        if isinstance(result, BaseException):
            _log.warning("tool %s failed", name, exc_info=result)
            detail = str(result) or type(result).__name__
            return self._failure(name, f"{name} failed: {detail}", started)
        return self._success(name, result, started)

    async def arun(self, name: str, arguments: str) -> ToolOutcome:
        """``run`` in a worker thread: the event loop never waits on git or the disk."""
        return await asyncio.to_thread(self.run, name, arguments)

    def _success(self, name: str, reply: Reply, started: float) -> ToolOutcome:
        if reply.paged:
            content, truncated = reply.text, reply.more
            if len(content) > self.max_output_chars:  # never more than promised
                content, _ = _cap(content, self.max_output_chars)
            full = None
        else:
            content, truncated = _cap(reply.text, self.max_output_chars)
            full = reply.text if truncated else None
        return ToolOutcome(name, True, content, truncated, reply.files,
                           time.monotonic() - started, full)

    def _failure(self, name: str, message: str, started: float) -> ToolOutcome:
        content, truncated = _cap(_one_line(message), self.max_output_chars)
        return ToolOutcome(name, False, content, truncated, (), time.monotonic() - started)
