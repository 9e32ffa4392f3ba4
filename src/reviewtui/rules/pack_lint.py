"""What a repository's rule pack says that can never take effect: ``reviewtui rules check``.

A pack file is validated on its own, and a valid file can still do nothing: a misspelled rule
id (``[patterns.nonexistant_rule] enabled = false``) makes a new rule that never matches, a
misspelled language (``[languages.pyhton...]``) rules for files nobody has, a misspelled tag
(``requires_tags = ["only_coments"]``) a rule that never fires. Loading cannot refuse them (a
pack written for a newer reviewtui names rules this one does not have), so the check names
them, with the closest name that exists.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from reviewtui.code.language_specs import SPECS
from reviewtui.rules.packs import as_layer, merge_layers, read_pack_file, shipped_pack_files
from reviewtui.units.tag_names import KNOWN_TAGS

# Every name a file can be read as (``code.languages``: the table's, and Dockerfiles).
KNOWN_LANGUAGES = frozenset(spec.name for spec in SPECS) | {"dockerfile"}
_RULE_SECTIONS = ("decorators", "paths", "symbols", "metrics", "keywords")
# What makes a new rule of its section match at all (the others cannot validate without it).
_TRIGGERS = {"patterns": ("tags", "indicators"), "keywords": ("patterns", "words")}


def _closest(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _new_rules(section: str, key: str, layer: Mapping[str, Any],
               beneath: Mapping[str, Any]) -> Iterator[str]:
    """A rule id the layers beneath do not have, given without what makes it match: meant as
    a change to an existing rule, under a name that is not one."""
    existing = _table(beneath, section)
    for rule_id, body in _table(layer, section).items():
        if rule_id in existing or not isinstance(body, Mapping):
            continue
        if any(body.get(field) for field in _TRIGGERS[section]):
            continue
        needs = " or ".join(_TRIGGERS[section])
        yield (f"{key}{section}.{rule_id}: no such rule to change, and as a new rule it has no "
               f"{needs}, so it never matches{_closest(rule_id, existing)}")


def _tag_lists(layer: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(key, list of tags) of every field of ``layer`` that names tags."""
    def rules(data: Mapping[str, Any], key: str) -> Iterator[tuple[str, Any]]:
        for section in ("patterns", *_RULE_SECTIONS):
            for rule_id, body in _table(data, section).items():
                if isinstance(body, Mapping):
                    for field in ("tags", "requires_tags", "unless_tags"):
                        if field in body:
                            yield f"{key}{section}.{rule_id}.{field}", body[field]

    yield from rules(layer, "")
    yield from rules(_table(layer, "general"), "general.")
    for language, body in _table(layer, "languages").items():
        if isinstance(body, Mapping):
            yield from rules(body, f"languages.{language}.")
    for role, body in _table(layer, "roles").items():
        if isinstance(body, Mapping) and "tags" in body:
            yield f"roles.{role}.tags", body["tags"]
    base = _table(layer, "base")
    for field in ("noise_tags", "doc_tags"):
        if field in base:
            yield f"base.{field}", base[field]
    learned = layer.get("learned")
    for index, rule in enumerate(learned if isinstance(learned, list) else []):
        if isinstance(rule, Mapping) and "tags" in rule:
            yield f"learned[{index}].tags", rule["tags"]


def _languages(layer: Mapping[str, Any], beneath: Mapping[str, Any]) -> Iterator[str]:
    known = KNOWN_LANGUAGES | set(_table(beneath, "languages"))
    for language, body in _table(layer, "languages").items():
        applies = body.get("applies_to") if isinstance(body, Mapping) else None
        names = applies if isinstance(applies, list) and applies else [language]
        for name in names:
            if isinstance(name, str) and name not in known:
                where = (f"languages.{language}" if name == language
                         else f"languages.{language}.applies_to")
                yield (f"{where}: no file is read as {name!r}, so these rules never apply"
                       f"{_closest(name, KNOWN_LANGUAGES)}")
    learned = layer.get("learned")
    for index, rule in enumerate(learned if isinstance(learned, list) else []):
        named = rule.get("language") if isinstance(rule, Mapping) else None
        if isinstance(named, str) and named not in known:
            yield (f"learned[{index}].language: no file is read as {named!r}, so this rule "
                   f"never applies{_closest(named, KNOWN_LANGUAGES)}")


def layer_warnings(layer: Mapping[str, Any], beneath: Mapping[str, Any]) -> list[str]:
    """What in ``layer`` (a validated pack file, in the merged pack's shape) can never take
    effect over ``beneath`` (the merged layers under it)."""
    warnings = list(_new_rules("patterns", "", layer, beneath))
    warnings += _new_rules("keywords", "general.", _table(layer, "general"),
                           _table(beneath, "general"))
    below = _table(beneath, "languages")
    for language, body in _table(layer, "languages").items():
        if isinstance(body, Mapping):
            warnings += _new_rules("keywords", f"languages.{language}.", body,
                                   _table(below, language))
    warnings += _languages(layer, beneath)
    for key, tags in _tag_lists(layer):
        for tag in tags if isinstance(tags, list) else []:
            if isinstance(tag, str) and tag not in KNOWN_TAGS:
                warnings.append(f"{key}: no unit is tagged {tag!r}"
                                f"{_closest(tag, KNOWN_TAGS)}")
    return warnings


def pack_warnings(layers: Iterable[tuple[Path, Mapping[str, Any]]],
                  beneath: Mapping[str, Any]) -> list[str]:
    """``layer_warnings`` of each (file, layer) in load order, each over the shipped pack
    (``beneath``) and the files before it, as ``file: key: what``."""
    merged = dict(beneath)
    warnings: list[str] = []
    for path, layer in layers:
        warnings += [f"{path}: {warning}" for warning in layer_warnings(layer, merged)]
        merged = merge_layers(merged, dict(layer))
    return warnings


def file_warnings(files: Iterable[Path]) -> list[str]:
    """``pack_warnings`` of pack ``files`` (a repository's, or one being checked) over the
    shipped pack."""
    shipped: dict[str, Any] = {}
    for path in shipped_pack_files():
        shipped = merge_layers(shipped, as_layer(read_pack_file(path), path,
                                                 check_regexes=False))
    return pack_warnings(((path, as_layer(read_pack_file(path), path)) for path in files),
                         shipped)
