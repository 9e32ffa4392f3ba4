"""Find, read, validate and merge rule packs.

Layers, lowest first: built-in defaults (the schema's), the shipped ``rules/`` folder (base,
patterns, one file per language), then the repository's ``.reviewtui/rules.*`` and
``.reviewtui/learned_rules.*``. Tables merge key by key, so a repository pack can change one
field of one rule; lists are replaced, except learned rules, which accumulate. Each file is
validated on its own first, so an error names the file and the key that is wrong.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from reviewtui.config import data_dir, merge_tables, toml_text
from reviewtui.errors import ConfigError
from reviewtui.rules.pack_cache import pack_key, read_merged, write_merged
from reviewtui.rules.schema import LanguageRules, LearnedRule, RulePack
from reviewtui.units.regex_safety import NESTED_REPEAT, nested_repeat

PACK_SUFFIXES = (".toml", ".json", ".yaml", ".yml")
REPO_DIR = ".reviewtui"
_SHIPPED_ORDER = ("base", "patterns")


@dataclass(frozen=True)
class LoadedPack:
    pack: RulePack
    sources: tuple[Path, ...]


def read_pack_file(path: Path) -> Any:
    """Parse a TOML, JSON or YAML file; any failure names the file."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read rule pack: {exc.strerror}") from None
    if path.suffix in (".yaml", ".yml"):
        import yaml  # only YAML packs need it (~60 ms): keeps every start lean

        errors: tuple[type[Exception], ...] = (yaml.YAMLError,)
    else:
        errors = (tomllib.TOMLDecodeError, json.JSONDecodeError)
    try:
        if path.suffix == ".toml":
            return toml_text(raw)
        if path.suffix == ".json":
            return json.loads(raw)
        if path.suffix in (".yaml", ".yml"):
            return yaml.safe_load(raw) or {}
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: rule pack is not UTF-8 text") from None
    except errors as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"{path}: not a valid {path.suffix[1:].upper()} file: "
                          f"{detail}") from None
    raise ConfigError(f"{path}: unsupported rule pack type (use {', '.join(PACK_SUFFIXES)})")


def _where(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _regexes(data: RulePack | LanguageRules, prefix: str) -> Iterator[tuple[str, str]]:
    groups: list[tuple[str, dict[str, Any], str]] = []
    if isinstance(data, RulePack):
        yield from _regexes(data.general, f"{prefix}general.")
        for name, lang in data.languages.items():
            yield from _regexes(lang, f"{prefix}languages.{name}.")
        groups.append(("patterns", dict(data.patterns), "indicators"))
    else:
        groups += [("decorators", dict(data.decorators), "patterns"),
                   ("symbols", dict(data.symbols), "patterns"),
                   ("keywords", dict(data.keywords), "patterns")]
    for section, rules, field in groups:
        for rule_id, rule in rules.items():
            for index, pattern in enumerate(getattr(rule, field)):
                yield f"{prefix}{section}.{rule_id}.{field}[{index}]", pattern


def _check_regexes(data: RulePack | LanguageRules, source: Path | str, prefix: str = "") -> None:
    for key, pattern in _regexes(data, prefix):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"{source}: {key}: bad regular expression {pattern!r}: "
                              f"{exc}") from None
        if not pattern:
            raise ConfigError(f"{source}: {key}: an empty regular expression matches every "
                              "line (remove it, or disable the rule: enabled = false)")
        if nested_repeat(pattern):
            raise ConfigError(f"{source}: {key}: regular expression {pattern!r} {NESTED_REPEAT}")


def _validation_error(source: Path | str, exc: ValidationError, prefix: str = "") -> ConfigError:
    error = exc.errors()[0]
    return ConfigError(f"{source}: {prefix}{_where(error['loc'])}: {error['msg']}")


def as_layer(data: Any, source: Path | str, *, check_regexes: bool = True) -> dict[str, Any]:
    """Validate one file and return it in the merged pack's shape.

    A file with a top-level ``language = "name"`` is a language pack; ``learned`` may also be
    given as a bare list (the learned-rules file). ``check_regexes``: compile every pattern to
    name a bad one with its file and key (the shipped packs skip it when loading: their
    patterns are checked by the tests, and compiling 1,200 of them costs 0.17 s a run).
    """
    if isinstance(data, list):
        data = {"learned": data}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a rule pack must be a table/object at the top level")
    language = data.get("language")
    if language is not None:
        if not isinstance(language, str) or not language:
            raise ConfigError(f"{source}: language: must be a non-empty string")
        body = {k: v for k, v in data.items() if k != "language"}
        body.setdefault("applies_to", [language])
        try:
            rules = LanguageRules.model_validate(body)
        except ValidationError as exc:
            raise _validation_error(source, exc) from None
        if check_regexes:
            _check_regexes(rules, source)
        return {"languages": {language: body}}
    try:
        pack = RulePack.model_validate(data)
    except ValidationError as exc:
        raise _validation_error(source, exc) from None
    if check_regexes:
        _check_regexes(pack, source)
    return data


def merge_layers(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; learned rules accumulate across layers."""
    merged = merge_tables(base, {k: v for k, v in over.items() if k != "learned"})
    if "learned" in over:
        merged["learned"] = list(base.get("learned", [])) + list(over["learned"])
    return merged


def _pack_files(folder: Path, stems: Sequence[str] | None = None) -> list[Path]:
    if not folder.is_dir():
        return []
    found = sorted(p for p in folder.iterdir()
                   if p.suffix in PACK_SUFFIXES and p.is_file() and not p.name.startswith("."))
    if stems is not None:
        found = [p for p in found if p.stem in stems]
    return found


def shipped_pack_files() -> list[Path]:
    """base, patterns, then the language packs (alphabetical) of the shipped rules folder."""
    files = _pack_files(data_dir("rules"))
    first = [p for name in _SHIPPED_ORDER for p in files if p.stem == name]
    return first + [p for p in files if p not in first]


def repository_pack_files(repo_root: Path) -> list[Path]:
    folder = repo_root / REPO_DIR
    return (_pack_files(folder, ("rules",)) + _pack_files(folder, ("learned_rules",)))


def load_rule_pack(repo_root: Path | None = None,
                   extra_files: Sequence[Path] = ()) -> LoadedPack:
    """The merged, validated pack for a repository (or the shipped pack alone)."""
    shipped = shipped_pack_files()
    added = (repository_pack_files(repo_root) if repo_root is not None else []) + list(
        extra_files)
    files = shipped + added
    key = pack_key(files)
    kept = read_merged(key)
    if kept is not None:
        try:
            return LoadedPack(RulePack.model_validate(kept), tuple(files))
        except ValidationError:  # a kept pack edited or damaged since: a miss, written over
            pass
    merged: dict[str, Any] = {}
    for path in files:
        layer = as_layer(read_pack_file(path), path, check_regexes=path not in shipped)
        merged = merge_layers(merged, layer)
    where = ", ".join(str(p) for p in added) or "rules/"
    try:
        pack = RulePack.model_validate(merged)
    except ValidationError as exc:
        raise _validation_error(where, exc) from None
    write_merged(key, merged)
    return LoadedPack(pack, tuple(files))


def check_pack_file(path: Path) -> RulePack:
    """Validate one pack file on its own (``reviewtui rules check FILE``)."""
    layer = as_layer(read_pack_file(path), path)
    return RulePack.model_validate(layer)


def learned_source(rule: LearnedRule, sources: Sequence[Path]) -> Path | None:
    """The pack file (of ``sources``) that holds ``rule``, for telling where a rule lives."""
    for path in reversed(sources):
        try:
            layer = as_layer(read_pack_file(path), path)
        except ConfigError:
            continue
        for data in layer.get("learned", []):
            try:
                if LearnedRule.model_validate(data) == rule:
                    return path
            except ValidationError:
                continue
    return None


def learned_rules(pack: RulePack) -> list[LearnedRule]:
    return [rule for rule in pack.learned if rule.samples >= pack.learning.min_samples]


def pack_identity(pack: RulePack) -> str:
    """The identity of what the rules' levels are computed from, as 12 hex digits: the merged
    pack without its learned rules and learning settings. Evidence is stamped with it; evidence
    stamped with another identity was scored by other rules and is stale. Learned rules are left
    out so that accepting one does not turn every other kind's evidence stale (evidence already
    used by a learned rule is told apart by the time it was accepted)."""
    data = pack.model_dump_json(exclude={"learned", "learning"})
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:12]
