"""What the review agent's model is told about each tool, and how its arguments are checked.

Each tool is one ``ToolSpec``: its name, the description and JSON-schema parameters the model
is given, and the ``ToolImpl`` method that answers it. ``parse_arguments`` checks the model's
raw JSON against that same spec (unknown or missing arguments, wrong types, enums; defaults
filled, integers clamped to their range), so what the model was promised and what is enforced
cannot drift apart. Split from ``tools`` so the tool catalogue reads as one table, apart from
``ToolBox``, which runs a call under a timeout and caps what goes back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from reviewtui.agent.tool_impl import MAX_FILES_LISTED, MAX_SPAN, Reply, ToolImpl
from reviewtui.agent.tool_paths import ToolError

__all__ = ["SPECS", "TOOL_NAMES", "Param", "ToolSpec", "parse_arguments"]


@dataclass(frozen=True, slots=True)
class Param:
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
class ToolSpec:
    name: str
    description: str
    params: dict[str, Param]
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

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "read_file_hunk",
        "Read numbered lines start..end (1-based, inclusive, at most "
        f"{MAX_SPAN} per call) of a file as this change leaves it (the commit, index or working "
        "tree under review, not the disk). side='before' reads the version the change started "
        "from (for deleted files, or to compare).",
        {
            "path": Param("string", _PATH),
            "start": Param("integer", "First line to show (1-based).", minimum=1),
            "end": Param("integer", "Last line to show (inclusive).", minimum=1),
            "side": Param("string", "'after' (default): the change's result; 'before': its "
                           "base.", required=False, enum=("after", "before"), default="after"),
        },
        ToolImpl.read_file_hunk,
    ),
    ToolSpec(
        "search_in_project",
        "Find a literal, case-sensitive text (an identifier, a config key, a message) in every "
        "file of the changed project; returns numbered snippets with file:line. Vendored folders "
        "and lockfiles are skipped.",
        {
            "query": Param("string", "The exact text to find (one line)."),
            "max_results": Param("integer", "How many snippets to return (1-50).",
                                  required=False, minimum=1, maximum=50, default=10),
        },
        ToolImpl.search_in_project,
    ),
    ToolSpec(
        "list_project_files",
        "List the project's files (as this change leaves them) matching a glob: '*' and '?' "
        "stay within a folder, '**' spans folders ('src/**/*.py'), a glob without '/' matches "
        f"file names at any depth ('*.sql'). At most {MAX_FILES_LISTED} names, with the total.",
        {"glob": Param("string", "Repository-relative glob, e.g. 'src/**/*.py' or '**' for "
                        "every file.")},
        ToolImpl.list_project_files,
    ),
    ToolSpec(
        "get_dependencies",
        "The project's declared dependencies, read from its manifests (pyproject.toml, "
        "requirements*.txt, setup.cfg, package.json, go.mod, Gemfile, Cargo.toml, pom.xml, "
        "build.gradle) at the root and one folder down.",
        {},
        ToolImpl.get_dependencies,
    ),
    ToolSpec(
        "get_scanner_issues",
        "Static-analysis findings (ruff, mypy, eslint...) for one changed file, with line, "
        "severity, tool and rule.",
        {"path": Param("string", _PATH)},
        ToolImpl.get_scanner_issues,
    ),
    ToolSpec(
        "get_unit",
        "One review unit as JSON: file, location, tags, metrics, line numbers, symbols, the "
        "rules' context level, confidence, notes and extra requests.",
        {"unit_id": Param("string", _UNIT_ID)},
        ToolImpl.get_unit,
    ),
    ToolSpec(
        "get_bundle",
        "A review unit's context bundle as Markdown: its diff, the surrounding code at its "
        "context level, the previous version, callers, search results and scanner issues.",
        {"unit_id": Param("string", _UNIT_ID)},
        ToolImpl.get_bundle,
    ),
    ToolSpec(
        "get_tool_result",
        "The full text of an earlier tool result that was shortened in the conversation, by "
        "its ref id; long results come in pages: pass the offset the previous page names.",
        {
            "ref_id": Param("string", "The ref id shown with the shortened result."),
            "offset": Param("integer", "Character offset to start from (0 = the beginning).",
                             required=False, minimum=0, default=0),
        },
        ToolImpl.get_tool_result,
    ),
)

TOOL_NAMES: tuple[str, ...] = tuple(spec.name for spec in SPECS)


def _integer(name: str, value: Any, param: Param) -> int:
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


def parse_arguments(spec: ToolSpec, arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
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
