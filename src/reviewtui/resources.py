"""Locate the data folders shipped with the package (rule packs, themes).

In a wheel they live inside the package (``reviewtui/_data/...``); in a source checkout or an
editable install they are the top-level ``rules/`` and ``themes/`` folders. Both are looked up
relative to this file, never the process's working directory.
"""

from __future__ import annotations

from pathlib import Path

from reviewtui.errors import ConfigError

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the shipped data folder ``name`` ("rules" or "themes")."""
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    checkout = _PACKAGE_DIR.parent.parent / name
    if checkout.is_dir():
        return checkout
    raise ConfigError(f"reviewtui data folder {name!r} is missing from the installation")
