"""Language handlers and their registry: Python, Java, Go, TypeScript/JavaScript, Ruby, Rust,
C, C++, C#, PHP and Kotlin.

The rules themselves are data (``rules/<language>.toml``); these classes answer only what data
cannot: how each language spells public, constructor, interface and data model, what a line of
decorator/annotation/attribute looks like (``#[...]`` in Rust and PHP 8, ``[...]`` in C#,
``[[...]]`` in C/C++, ``@...`` in Kotlin), which changed methods a Rails callback elsewhere in
the class points at (Ruby), and which changes are test code inside a library file (Rust).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePosixPath

from reviewtui.models import ContextLevel
from reviewtui.rules.compiled import CompiledPack, Rule, Stage
from reviewtui.rules.confidence import RiskLevel
from reviewtui.rules.handlers import RuleContext, RuleHandler
from reviewtui.rules.inline_tests import in_test_code
from reviewtui.rules.rule_matches import clip
from reviewtui.rules.suggestion import RuleMatch
from reviewtui.rules.symbols import SymbolFacts
from reviewtui.rules.unit_text import UnitText
from reviewtui.units.model import ReviewUnit, Scope

_MODEL_NAME = re.compile(r"(Model|Schema|Entity|Record|Dto|DTO|Serializer|Form)$")


class PythonRuleHandler(RuleHandler):
    language = "python"
    _model_bases = re.compile(r"\(\s*.*\b(models\.Model|Model|BaseModel|Base|DeclarativeBase|"
                              r"TypedDict|NamedTuple|Schema|SQLModel|Document)\b")
    _abstract = re.compile(r"\(\s*.*\b(ABC|Protocol|ABCMeta)\b|@(abc\.)?abstract")

    def is_public(self, scope: Scope) -> bool:
        return not scope.name.startswith("_")

    def is_constructor(self, scope: Scope) -> bool:
        return scope.name in ("__init__", "__new__", "__post_init__")

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "class" and bool(
            self._abstract.search(scope.signature)
            or any("abstract" in d for d in scope.decorators))

    def is_data_model(self, scope: Scope) -> bool:
        return bool(_MODEL_NAME.search(scope.name) or self._model_bases.search(scope.signature)
                    or any("dataclass" in d for d in scope.decorators))


class JavaRuleHandler(RuleHandler):
    language = "java"
    _entity = re.compile(r"@(Entity|Table|Embeddable|Document|Data|Value)\b")

    def is_public(self, scope: Scope) -> bool:
        return bool(re.search(r"\b(public|protected)\b", scope.signature))

    def is_constructor(self, scope: Scope) -> bool:
        owner = scope.qualified_name.rsplit(".", 2)
        return len(owner) >= 2 and owner[-2] == scope.name

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "interface" or bool(re.search(r"\babstract\b", scope.signature))

    def is_data_model(self, scope: Scope) -> bool:
        return bool(_MODEL_NAME.search(scope.name)
                    or any(self._entity.search(d) for d in scope.decorators)
                    or re.search(r"\brecord\b", scope.signature))


class GoRuleHandler(RuleHandler):
    language = "go"
    annotation_prefix = "//go:"

    def is_public(self, scope: Scope) -> bool:
        return scope.name[:1].isupper()

    def is_constructor(self, scope: Scope) -> bool:
        return scope.kind == "function" and bool(re.match(r"New[A-Z0-9_]?", scope.name))

    def is_data_model(self, scope: Scope) -> bool:
        """An exported struct: every composite literal and field access depends on it."""
        return scope.kind == "struct" and (scope.name[:1].isupper()
                                          or bool(_MODEL_NAME.search(scope.name)))


class TypeScriptRuleHandler(RuleHandler):
    language = "typescript"

    def is_public(self, scope: Scope) -> bool:
        if scope.kind == "method":
            return not (scope.name.startswith("#") or scope.name.startswith("_")
                        or re.search(r"\b(private|protected)\b", scope.signature))
        return bool(re.search(r"\bexport\b", scope.signature))

    def is_constructor(self, scope: Scope) -> bool:
        return scope.name == "constructor"

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "interface" or bool(re.search(r"\babstract\s+class\b",
                                                           scope.signature))

    def is_data_model(self, scope: Scope) -> bool:
        return bool(_MODEL_NAME.search(scope.name)
                    or any(re.match(r"@(Entity|Schema)\b", d) for d in scope.decorators))


_CALLBACK = re.compile(
    r"^\s*(?:skip_|prepend_)?(?:before|after|around)_(?:action|filter|save|create|update|"
    r"destroy|validation|commit|rollback|initialize|find|touch)\b[^\n]*", re.MULTILINE)
CALLBACK_RULE = Rule(stage=Stage.DECORATOR, rule_id="ruby.callbacks", label="rails:callback",
                     risk=RiskLevel.HIGH, level=ContextLevel.FUNCTION,
                     requests=("search_class_methods",), unless=frozenset(),
                     language_specific=True)


class RubyRuleHandler(RuleHandler):
    language = "ruby"
    annotation_prefix = "\x00"  # Ruby has no decorators; callbacks are found below

    def is_constructor(self, scope: Scope) -> bool:
        return scope.name == "initialize"

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "module" and scope.role != "outer"

    def symbols(self, unit: ReviewUnit) -> SymbolFacts:
        """A module that directly owns a changed method is a mixin: find who includes it."""
        facts = super().symbols(unit)
        modules = {s.qualified_name: s.name for s in unit.scopes if s.kind == "module"}
        owners = [modules[s.qualified_name.rsplit(".", 1)[0]] for s in unit.scopes
                  if s.kind == "method" and "." in s.qualified_name
                  and s.qualified_name.rsplit(".", 1)[0] in modules]
        if not owners:
            return facts
        return replace(facts, interfaces=tuple(dict.fromkeys((*facts.interfaces, *owners))))

    def is_data_model(self, scope: Scope) -> bool:
        return scope.kind == "class" and bool(
            re.search(r"<\s*(ApplicationRecord|ActiveRecord::Base|ApplicationModel)\b",
                      scope.signature) or _MODEL_NAME.search(scope.name))

    def extra_matches(self, unit: ReviewUnit, text: UnitText,
                      context: RuleContext) -> list[RuleMatch]:
        """A changed method registered as a Rails callback elsewhere in its file."""
        if context.file_text is None:
            return []
        methods = {s.name for s in unit.scopes if s.kind == "method" and s.role != "outer"}
        source = context.file_text(unit.file_path) if methods else None
        if not source:
            return []
        for found in _CALLBACK.finditer(source):
            if methods & set(re.findall(r":(\w+[?!]?)", found.group(0))):
                return [RuleMatch(CALLBACK_RULE, 1.0, clip(found.group(0)))]
        return []


class RustRuleHandler(RuleHandler):
    """``#[...]`` / ``#![...]`` attributes; ``#[cfg(test)]`` and ``#[test]`` code is test code
    (``test_code``: capped like a test file), ``build.rs`` a build script (``build_script``)."""

    language = "rust"
    _attribute = re.compile(r"^\s*#!?\[")

    def is_annotation(self, line: str) -> bool:
        return bool(self._attribute.match(line))

    def rule_tags(self, unit: ReviewUnit, context: RuleContext) -> frozenset[str]:
        tags = set(unit.tags)
        if PurePosixPath(unit.file_path).name == "build.rs":
            tags.add("build_script")
        if "test_file" not in tags and unit.hunks:
            text = context.file_text(unit.file_path) if context.file_text else None
            if in_test_code(unit, text):
                tags.add("test_code")
        return frozenset(tags)


class CRuleHandler(RuleHandler):
    """C and C++: ``[[nodiscard]]``-style attributes (C23, C++11); the C pack applies to C++."""

    language = "c"
    annotation_prefix = "[["


class CSharpRuleHandler(RuleHandler):
    """``[Attribute]`` lines (also ``[return: ...]``, ``[assembly: ...]``, several in one
    list), not collection expressions like ``[1, 2]`` or ``[x, y]``."""

    language = "csharp"
    _attribute = re.compile(r"^\s*\[\s*(?:(?:assembly|module|return|type|method|field|"
                            r"property|param|event)\s*:\s*)?[A-Z]\w*(?:\.\w+)*\s*[(\],]")

    def is_annotation(self, line: str) -> bool:
        return bool(self._attribute.match(line))


class PhpRuleHandler(RuleHandler):
    """PHP 8 ``#[Attribute]`` lines and docblock annotations (``@Route``, ``@ORM\\Column``,
    ``@IsGranted``: capitalised, unlike ``@param``)."""

    language = "php"
    _attribute = re.compile(r"^\s*(?:#\[|(?:/\*\*|\*)\s*@[A-Z])")

    def is_annotation(self, line: str) -> bool:
        return bool(self._attribute.match(line))


class KotlinRuleHandler(RuleHandler):
    """``@Annotation`` lines, use-site targets included (``@field:JsonProperty``)."""

    language = "kotlin"


_REGISTRY: dict[str, type[RuleHandler]] = {}


def register_rule_handler(language: str, handler: type[RuleHandler]) -> None:
    _REGISTRY[language] = handler


def handler_class(language: str | None) -> type[RuleHandler]:
    return _REGISTRY.get(language or "", RuleHandler)


def make_handler(compiled: CompiledPack, language: str | None) -> RuleHandler:
    return handler_class(language)(compiled, language)


for _language, _handler in (("python", PythonRuleHandler), ("java", JavaRuleHandler),
                            ("go", GoRuleHandler), ("typescript", TypeScriptRuleHandler),
                            ("tsx", TypeScriptRuleHandler), ("javascript", TypeScriptRuleHandler),
                            ("ruby", RubyRuleHandler), ("rust", RustRuleHandler),
                            ("c", CRuleHandler), ("cpp", CRuleHandler),
                            ("csharp", CSharpRuleHandler), ("php", PhpRuleHandler),
                            ("kotlin", KotlinRuleHandler)):
    register_rule_handler(_language, _handler)
