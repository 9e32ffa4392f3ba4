"""Which external scanners run on which language, with what timeout and extra arguments.

The mapping is ``language -> tool -> ScannerToolConfig``. The pseudo-language ``any`` holds
tools that apply to every file (semgrep). A caller's mapping is merged over the defaults: every
``(language, tool)`` pair it names replaces the default for that pair, the rest stay.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

ANY_LANGUAGE = "any"


class ScannerToolConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    timeout: float = Field(default=30, gt=0, description="seconds per tool invocation")
    extra_args: list[str] = Field(default_factory=list, description="appended to the command")


def _tool(*, enabled: bool = True, timeout: float = 30,
          extra_args: list[str] | None = None) -> ScannerToolConfig:
    return ScannerToolConfig(enabled=enabled, timeout=timeout, extra_args=extra_args or [])


def _eslint() -> dict[str, ScannerToolConfig]:
    return {"eslint": _tool()}


def _c_family() -> dict[str, ScannerToolConfig]:
    return {"cppcheck": _tool(timeout=120), "clang-tidy": _tool(timeout=180)}


DEFAULT_SCANNER_CONFIG: dict[str, dict[str, ScannerToolConfig]] = {
    "python": {
        "pylint": _tool(),
        "flake8": _tool(),
        "mypy": _tool(enabled=False, timeout=60, extra_args=["--ignore-missing-imports"]),
        "ruff": _tool(),
        "bandit": _tool(),
    },
    "java": {"checkstyle": _tool(), "pmd": _tool()},
    "go": {"golangci-lint": _tool(timeout=60), "go-vet": _tool()},
    "javascript": _eslint(),
    "typescript": _eslint(),
    "tsx": _eslint(),
    "ruby": {"rubocop": _tool()},
    "rust": {"clippy": _tool(timeout=300)},
    "c": _c_family(),
    "cpp": _c_family(),
    "php": {"phpstan": _tool(timeout=120)},
    "kotlin": {"ktlint": _tool(), "detekt": _tool(timeout=120)},
    ANY_LANGUAGE: {"semgrep": _tool(timeout=60)},
}


def merge_config(
    config: Mapping[str, Mapping[str, ScannerToolConfig]] | None,
) -> dict[str, dict[str, ScannerToolConfig]]:
    """The defaults with every ``(language, tool)`` entry of ``config`` replacing its default."""
    merged = {language: dict(tools) for language, tools in DEFAULT_SCANNER_CONFIG.items()}
    for language, tools in (config or {}).items():
        merged.setdefault(language, {}).update(tools)
    return merged
