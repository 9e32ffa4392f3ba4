"""Symbol analysis (seed 003): what the changed definitions are, and whom they affect.

Public API, constructors, interfaces/abstract types, data models and config files become the
dependency hints ``search_callers``, ``search_implementations``, ``search_model_usage``,
``search_class_methods`` and ``search_config_usage`` -- each carrying the concrete name to
search for, so the context scheduler never has to guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from reviewtui.code.kinds import FUNCTION_KINDS, TYPE_KINDS
from reviewtui.units.model import ReviewUnit, Scope

_CONFIG_KEY = re.compile(r"""^\s*["']?([A-Za-z_][\w.\-]{1,63})["']?\s*[:=]""")
_PER_TYPE = 3


class SymbolJudge(Protocol):
    """The language-specific questions (answered by the rule handlers)."""

    def is_public(self, scope: Scope) -> bool: ...
    def is_constructor(self, scope: Scope) -> bool: ...
    def is_interface(self, scope: Scope) -> bool: ...
    def is_data_model(self, scope: Scope) -> bool: ...


@dataclass(frozen=True, slots=True)
class SymbolFacts:
    public_api: tuple[str, ...] = ()  # callables/classes whose definition or signature changed
    constructors: tuple[str, ...] = ()  # classes whose constructor changed
    interfaces: tuple[str, ...] = ()
    data_models: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()  # classes around the change
    functions: tuple[str, ...] = ()  # callables the change sits in
    config_keys: tuple[str, ...] = ()

    @property
    def risk(self) -> str:
        if self.interfaces or self.data_models:
            return "high"
        if self.public_api or self.constructors:
            return "medium"
        return "low"

    def hints(self) -> list[tuple[str, str]]:
        """(request type, symbol) pairs, strongest first."""
        out: list[tuple[str, str]] = []
        out += [("search_implementations", name) for name in self.interfaces]
        out += [("search_model_usage", name) for name in self.data_models]
        out += [("search_callers", name) for name in self.public_api]
        for name in self.constructors:
            out += [("search_callers", name), ("search_class_methods", name)]
        out += [("search_config_usage", key) for key in self.config_keys]
        return out

    def symbols_for(self, request_type: str) -> tuple[str, ...]:
        """Names a rule's bare request type should carry."""
        table = {
            "search_callers": self.public_api or self.constructors or self.functions,
            "search_implementations": self.interfaces or self.classes,
            "search_model_usage": self.data_models or self.classes,
            "search_class_methods": self.constructors or self.classes,
            "search_config_usage": self.config_keys,
        }
        return table.get(request_type, ())[:_PER_TYPE]


def _owner(scope: Scope) -> str:
    return scope.qualified_name.rsplit(".", 1)[0] if "." in scope.qualified_name else ""


def _add(bucket: dict[str, None], name: str) -> None:
    if name and len(bucket) < _PER_TYPE:
        bucket.setdefault(name, None)


def config_keys(unit: ReviewUnit) -> tuple[str, ...]:
    keys: dict[str, None] = {}
    for text in unit.changed_lines():
        found = _CONFIG_KEY.match(text)
        if found:
            _add(keys, found.group(1))
    return tuple(keys)


def analyse_symbols(unit: ReviewUnit, judge: SymbolJudge) -> SymbolFacts:
    public: dict[str, None] = {}
    constructors: dict[str, None] = {}
    interfaces: dict[str, None] = {}
    models: dict[str, None] = {}
    classes: dict[str, None] = {}
    functions: dict[str, None] = {}
    for scope in unit.scopes:
        callable_ = scope.kind in FUNCTION_KINDS
        if scope.kind in TYPE_KINDS:
            _add(classes, scope.name)
        elif callable_ and scope.role != "outer":
            _add(functions, scope.name)
        if judge.is_interface(scope):
            _add(interfaces, scope.name if not callable_ else _owner(scope).rsplit(".")[-1])
        if scope.kind in TYPE_KINDS and judge.is_data_model(scope):
            _add(models, scope.name)
        if scope.role == "outer":
            continue
        if callable_ and judge.is_constructor(scope):
            _add(constructors, _owner(scope).rsplit(".")[-1] or scope.name)
        elif scope.role == "defines" and judge.is_public(scope):
            _add(public, scope.name)
    keys = config_keys(unit) if "config_file" in unit.tags else ()
    return SymbolFacts(tuple(public), tuple(constructors), tuple(interfaces), tuple(models),
                       tuple(classes), tuple(functions), keys)
