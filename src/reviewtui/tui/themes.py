"""Colour themes: the shipped ``themes/*.toml`` plus the user's ``~/.config/reviewtui/themes``.

Themes are data so that a user can copy a shipped file, change a colour and have it picked up
without touching code. A broken theme file must never stop the workbench from starting: every
file is validated on its own and a bad one (not TOML, a colour Textual cannot parse, a missing
name, an unknown key) is skipped and reported as one line in ``ThemeLoad.problems`` for the app
to show.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from reviewtui.config import data_dir, toml_text, user_config_path
from reviewtui.errors import ConfigError

DEFAULT_THEME = "reviewtui-dark"

_COLOUR_FIELDS = ("primary", "secondary", "accent", "foreground", "background", "surface",
                  "panel", "boost", "warning", "error", "success")


class ThemeFile(BaseModel):
    """The keys a theme file may hold; anything else is a typo worth reporting."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    dark: bool = True
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    warning: str | None = None
    error: str | None = None
    success: str | None = None
    variables: dict[str, str] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name_is_a_word(cls, value: str) -> str:
        if value != value.strip() or any(ch.isspace() for ch in value):
            raise ValueError("must not contain spaces")
        return value

    @field_validator(*_COLOUR_FIELDS)
    @classmethod
    def _is_colour(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                Color.parse(value)
            except ColorParseError:
                raise ValueError(f"{value!r} is not a colour") from None
        return value

    def to_theme(self) -> Theme:
        colours: dict[str, Any] = {name: getattr(self, name) for name in _COLOUR_FIELDS}
        return Theme(dark=self.dark, variables=dict(self.variables), name=self.name,
                     **colours)


@dataclass
class ThemeLoad:
    """The themes that loaded (shipped ones first, user ones replacing by name) and why others
    did not (``"<file>: <what is wrong>"``)."""

    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [theme.name for theme in self.themes]

    def get(self, name: str) -> Theme | None:
        return next((theme for theme in self.themes if theme.name == name), None)

    def choose(self, requested: str) -> tuple[str, str | None]:
        """The theme to use for the configured name, and a problem line when it is unknown.

        Textual's own themes (``nord``, ``textual-light``, ...) count as known too.
        """
        if self.get(requested) is not None or requested in BUILTIN_THEMES:
            return requested, None
        fallback = DEFAULT_THEME if self.get(DEFAULT_THEME) is not None else "textual-dark"
        known = ", ".join(sorted({*self.names, *BUILTIN_THEMES}))
        return fallback, (f"tui.theme: unknown theme {requested!r}, using {fallback} "
                          f"(known: {known})")


def user_themes_dir() -> Path:
    """``$XDG_CONFIG_HOME/reviewtui/themes`` (``~/.config/reviewtui/themes``)."""
    return user_config_path().parent / "themes"


def _theme_files(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(folder.glob("*.toml"))
    except OSError:
        return
    yield from (path for path in entries if path.is_file())


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"])
        message = item["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


def load_theme_file(path: Path) -> Theme:
    """One theme file as a Textual theme; ``ValueError`` with the reason when it is broken."""
    try:
        data = toml_text(path.read_bytes())
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ValueError("not valid TOML: not UTF-8") from None
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror}") from None
    try:
        theme = ThemeFile.model_validate(data).to_theme()
        theme.to_color_system()  # the derived shades must compute too
    except ValidationError as exc:
        raise ValueError(_describe(exc)) from None
    except (ColorParseError, ValueError, TypeError) as exc:
        raise ValueError(f"not a usable theme: {exc}") from None
    return theme


def load_themes(user_dir: Path | None = None) -> ThemeLoad:
    """The shipped themes, then the user's (a user theme replaces a shipped one of that name).

    ``user_dir`` defaults to ``user_themes_dir()``. Never raises: every broken file becomes a
    line in ``problems`` and is skipped.
    """
    result = ThemeLoad()
    folders: list[Path] = []
    try:
        folders.append(data_dir("themes"))
    except ConfigError as exc:
        result.problems.append(str(exc))
    folders.append(user_dir if user_dir is not None else user_themes_dir())
    by_name: dict[str, Theme] = {}  # insertion order: shipped first, replaced in place
    for folder in folders:
        seen: dict[str, Path] = {}  # two files of one folder naming the same theme: say so
        for path in _theme_files(folder):
            try:
                theme = load_theme_file(path)
            except ValueError as exc:
                result.problems.append(f"{path}: {exc}")
                continue
            if theme.name in seen:
                result.problems.append(f"{path}: theme {theme.name!r} is also defined in "
                                       f"{seen[theme.name]}; using this one")
            seen[theme.name] = path
            by_name[theme.name] = theme
    result.themes = list(by_name.values())
    return result
