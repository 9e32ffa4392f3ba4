"""Settings: built-in defaults < user config file < repository ``.reviewtui.toml``; shipped data.

Validated with pydantic so that a typo or a wrong type is reported with the file and the key
(``.reviewtui.toml: units.merge_gap: Input should be a valid integer``) instead of being ignored.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from reviewtui.errors import ConfigError, not_utf8

REPO_CONFIG_NAME = ".reviewtui.toml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class UnitsSettings(_Section):
    merge_gap: int = Field(default=6, ge=0, description="merge hunks of one file this close")
    max_hunks: int = Field(default=4, ge=1, description="at most this many hunks per unit")
    max_lines: int = Field(default=120, ge=10, description="at most this many changed lines")
    cache: bool = Field(default=True, description="reuse per-file results of earlier runs "
                                                  "(kept in .git/reviewtui/)")


MAX_SECONDS = 86_400.0  # a timeout setting's upper bound


class GitSettings(_Section):
    max_file_bytes: int = Field(default=2 * 1024 * 1024, ge=1024)
    default_branch: str | None = None


class LLMSettings(_Section):
    """The OpenAI-compatible endpoint; ``OPENAI_*`` / ``REVIEWTUI_*`` variables override it."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    # at most a day: sockets and subprocesses cannot wait longer than a clock holds (inf)
    timeout: float = Field(default=120.0, gt=0, le=MAX_SECONDS,
                           description="seconds per request")
    max_retries: int = Field(default=3, ge=0, le=10)
    context_window: int = Field(default=32_000, ge=2_000, description="the model's tokens")
    max_output_tokens: int = Field(default=4_096, ge=64)
    json_mode: Literal["auto", "json_schema", "json_object", "off"] = "auto"
    temperature: float | None = Field(default=0.0, ge=0.0, le=2.0)


class ContextSettings(_Section):
    """The context bundle: token budgets and how wide each level looks."""

    unit_budget: int = Field(default=6_000, ge=200, description="tokens per unit bundle")
    review_budget: int = Field(default=120_000, ge=1_000, description="tokens for all bundles")
    review_batches: int = Field(default=1, ge=1, le=1_000, description=(
        "review budgets 'review' may send: units deferred by the first go in later batches"))
    file_context_lines: int = Field(default=40, ge=0, description="lines around the changes")
    window_lines: int = Field(default=15, ge=0, description="function fallback window")
    full_file_max_lines: int = Field(default=600, ge=50, description="beyond: head/middle/tail")
    max_function_lines: int = Field(default=250, ge=20)
    search_max_hits: int = Field(default=8, ge=1, le=200)
    search_context_lines: int = Field(default=2, ge=0, le=20)
    search_timeout: float = Field(default=15.0, gt=0, le=MAX_SECONDS)


def minimum(section: type[BaseModel], name: str) -> int | None:
    """The lower bound (``ge``) of the integer setting ``name`` of ``section``: a command-line
    option that stands for it must respect the same bound."""
    for constraint in section.model_fields[name].metadata:
        bound = getattr(constraint, "ge", None)
        if isinstance(bound, int):
            return bound
    return None


class ReviewSettings(_Section):
    """What the change is for, when its commits do not say (or say it too briefly)."""

    description: str | None = Field(default=None, description=(
        "the change's stated purpose, sent to the planner, the review agent and the chat "
        "(--description and the workbench's own description win over it)"))


class TuiSettings(_Section):
    """The workbench's look and keys.

    Only stored here: the theme name is checked against the loaded themes and the key map
    against the known actions by ``reviewtui.tui`` (the core never imports the TUI framework).
    """

    theme: str = Field(default="reviewtui-dark", min_length=1, description="a theme's name")
    keys: dict[str, str] = Field(default_factory=dict, description="action -> keys overrides")
    plan_on_open: bool = Field(default=False, description=(
        "run the LLM planner when the workbench opens (when a model is configured)"))


class EvalSettings(_Section):
    """``reviewtui eval``: which commits are bug fixes, and which cases are worth ranking."""

    fix_patterns: list[str] | None = Field(default=None, description=(
        "regular expressions (case-insensitive) for a fix's subject; default: the shipped "
        "set (fix, bug, regression, crash, incorrect, wrong, broken...)"))
    exclude_patterns: list[str] | None = Field(default=None, description=(
        "subjects that are no bug fix; default: typo, docs, formatting, lint, typing-only, "
        "version bumps, merges... (a revert is never a fix, whatever these say)"))
    max_fix_files: int = Field(default=3, ge=1, le=50, description=(
        "a fix changes at most this many source files (tests, docs not counted)"))
    max_fix_removed_lines: int = Field(default=40, ge=1, le=10_000, description=(
        "a fix removes or changes at most this many lines of them"))
    max_bug_files: int = Field(default=100, ge=1, description=(
        "a bug commit changing more files is too large to review"))
    max_bug_lines: int = Field(default=3_000, ge=1, description=(
        "a bug commit changing more lines is too large to review"))
    max_cases: int = Field(default=100, ge=1, description="cases per run (--max-cases)")
    review_confirm_tokens: int = Field(default=500_000, ge=0, description=(
        "eval --review asks before sending more estimated tokens than this (0: always)"))
    price_input_per_million: float | None = Field(default=None, ge=0, description=(
        "the model's price per million prompt tokens, for eval --review's cost estimate"))
    price_output_per_million: float | None = Field(default=None, ge=0, description=(
        "the model's price per million completion tokens, for eval --review's cost estimate"))

    @field_validator("fix_patterns", "exclude_patterns")
    @classmethod
    def _compiles(cls, patterns: list[str] | None) -> list[str] | None:
        for pattern in patterns or ():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None
        return patterns


class Settings(_Section):
    units: UnitsSettings = UnitsSettings()
    git: GitSettings = GitSettings()
    llm: LLMSettings = LLMSettings()
    context: ContextSettings = ContextSettings()
    review: ReviewSettings = ReviewSettings()
    tui: TuiSettings = TuiSettings()
    eval: EvalSettings = EvalSettings()


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "reviewtui" / "config.toml"


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/reviewtui`` (default ``~/.cache/reviewtui``): results and build
    directories that belong to no repository."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reviewtui"


def toml_text(data: bytes) -> dict[str, Any]:
    """TOML from a file's bytes, a UTF-8 byte-order mark allowed (Windows editors write one;
    ``tomllib`` refuses it, and every command failed with "Invalid statement (at line 1,
    column 1)"). Raises like ``tomllib.loads`` and ``bytes.decode``."""
    return tomllib.loads(data.decode("utf-8-sig"))


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return toml_text(path.read_bytes())
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (TOML is): {not_utf8(exc)}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def merge_tables(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Tables merge key by key, recursively; any other value replaces."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_tables(merged[key], value)
        else:
            merged[key] = value
    return merged


def _validate(data: dict[str, Any], sources: list[Path]) -> Settings:
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        where = ", ".join(str(p) for p in sources) or "settings"
        raise ConfigError(f"{where}: {key}: {error['msg']}") from None


def load_settings(repo_root: Path | None = None) -> Settings:
    """Load and validate the user's and the repository's settings."""
    data: dict[str, Any] = {}
    sources: list[Path] = []
    candidates = [user_config_path()]
    if repo_root is not None:
        candidates.append(repo_root / REPO_CONFIG_NAME)
    for path in candidates:
        if path.is_file():
            layer = _read_toml(path)
            _validate(layer, [path])  # name the file that is wrong
            data = merge_tables(data, layer)
            sources.append(path)
    return _validate(data, sources)


_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The shipped data folder ``name`` ("rules" or "themes").

    In a wheel it lives inside the package (``reviewtui/_data/...``); in a source checkout or an
    editable install it is the top-level ``rules/`` or ``themes/`` folder. Both are found
    relative to this file, never the process's working directory.
    """
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    checkout = _PACKAGE_DIR.parent.parent / name
    if checkout.is_dir():
        return checkout
    raise ConfigError(f"reviewtui data folder {name!r} is missing from the installation")
