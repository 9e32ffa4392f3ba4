"""Symbol analysis for Rust, C, C++, C#, PHP and Kotlin: public, constructor, interface, model.

Seed 003's symbol analysis asks four questions of every changed definition; each language
answers them in its own words. These answers read only what the structure layer keeps of a
definition -- its kind, name, dotted name, signature and attributes -- so they cost nothing:

* Rust: ``pub`` is public, ``fn new`` constructs, a trait is an interface, a struct or enum that
  derives ``Serialize``/``Deserialize`` (or a database row) or lives in a ``models`` module is a
  data model;
* C: a function that is not ``static`` is public, a struct (or union) is a data model;
* C++: a member of a ``public:``/``protected:`` section (the structure layer writes the section
  in front of a member's signature) or a non-``static`` free function is public, a method named
  like its class constructs, a pure virtual method (``= 0``) makes its class an interface;
* C#: ``public``/``protected`` is public, a method named like its class constructs, an interface
  or abstract class is an interface, a record or an entity (``[Table]``, ``[DataContract]``...)
  is a data model;
* PHP: members are public unless ``private``/``protected``, ``__construct`` constructs,
  interfaces, traits and abstract classes are interfaces, Eloquent models and Doctrine entities
  are data models;
* Kotlin: everything is public unless ``private``, ``constructor`` constructs, interfaces and
  abstract or sealed classes are interfaces, ``data class`` and entities are data models.

``RuleHandler`` consults ``SYMBOL_JUDGES`` for these languages; a language handler that answers
a question itself still wins.
"""

from __future__ import annotations

import re

from reviewtui.units.model import Scope

MODEL_NAME = re.compile(r"(Model|Schema|Entity|Record|Dto|DTO|Serializer|Form)$")
_CALLABLE = frozenset({"function", "method", "macro"})
_TYPES = frozenset({"class", "struct", "enum", "interface", "object", "trait"})


def _named_like_owner(scope: Scope) -> bool:
    parts = scope.qualified_name.rsplit(".", 2)
    return scope.kind == "method" and len(parts) >= 2 and parts[-2] == scope.name


def _model_name(scope: Scope) -> bool:
    return scope.kind in _TYPES and bool(MODEL_NAME.search(scope.name))


def _any_decorator(scope: Scope, pattern: re.Pattern[str]) -> bool:
    return any(pattern.search(d) for d in scope.decorators)


class RustSymbols:
    _derive = re.compile(r"\b(Serialize|Deserialize|Queryable|Insertable|FromRow|Selectable"
                         r"|AsChangeset|Identifiable)\b|\b(table_name|diesel|sea_orm|sqlx)\b")
    _model_modules = frozenset({"models", "model", "entities", "entity", "schema", "dto"})

    def is_public(self, scope: Scope) -> bool:
        return bool(re.match(r"pub\b", scope.signature))

    def is_constructor(self, scope: Scope) -> bool:
        return scope.kind == "method" and scope.name == "new"

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "interface"  # a trait

    def is_data_model(self, scope: Scope) -> bool:
        if scope.kind not in ("struct", "enum"):
            return False
        modules = set(scope.qualified_name.split(".")[:-1])
        return (_any_decorator(scope, self._derive) or _model_name(scope)
                or bool(modules & self._model_modules))


class CSymbols:
    def is_public(self, scope: Scope) -> bool:
        return not re.search(r"\bstatic\b", scope.signature)

    def is_constructor(self, scope: Scope) -> bool:
        return False

    def is_interface(self, scope: Scope) -> bool:
        return False

    def is_data_model(self, scope: Scope) -> bool:
        return scope.kind == "struct"


class CppSymbols:
    def is_public(self, scope: Scope) -> bool:
        signature = scope.signature
        if signature.startswith("private:"):
            return False
        if signature.startswith(("public:", "protected:")):
            return True
        return not re.search(r"\bstatic\b", signature)  # a free function: file-local if static

    def is_constructor(self, scope: Scope) -> bool:
        return _named_like_owner(scope)

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "interface" or (
            scope.kind == "method" and bool(re.search(r"=\s*0$", scope.signature)))

    def is_data_model(self, scope: Scope) -> bool:
        return _model_name(scope)


class CSharpSymbols:
    _entity = re.compile(r"^\[(Table|Owned|Keyless|DataContract|Serializable|Index)\b")

    def is_public(self, scope: Scope) -> bool:
        return bool(re.search(r"\b(public|protected)\b", scope.signature))

    def is_constructor(self, scope: Scope) -> bool:
        return _named_like_owner(scope)

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "interface" or (
            scope.kind == "class" and bool(re.search(r"\babstract\b", scope.signature)))

    def is_data_model(self, scope: Scope) -> bool:
        return scope.kind in _TYPES and (
            _model_name(scope) or _any_decorator(scope, self._entity)
            or bool(re.search(r"\brecord\b", scope.signature)))


class PhpSymbols:
    _entity = re.compile(r"\b(ORM\\)?(Entity|Table|Document|Embeddable)\b")

    def is_public(self, scope: Scope) -> bool:
        return not re.search(r"\b(private|protected)\b", scope.signature)

    def is_constructor(self, scope: Scope) -> bool:
        return scope.name == "__construct"

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind in ("interface", "trait") or (
            scope.kind == "class" and bool(re.search(r"\babstract\b", scope.signature)))

    def is_data_model(self, scope: Scope) -> bool:
        return scope.kind == "class" and (
            _model_name(scope) or _any_decorator(scope, self._entity)
            or bool(re.search(r"\bextends\s+(\\?[\w\\]*\\)?(Model|Authenticatable|Pivot)\b",
                              scope.signature)))


class KotlinSymbols:
    _entity = re.compile(r"^@(Entity|Table|Document|Serializable|Embeddable|JsonClass)\b")

    def is_public(self, scope: Scope) -> bool:
        return not re.search(r"\bprivate\b", scope.signature)

    def is_constructor(self, scope: Scope) -> bool:
        return scope.kind == "method" and scope.name == "constructor"

    def is_interface(self, scope: Scope) -> bool:
        return scope.kind == "interface" or (
            scope.kind == "class" and bool(re.search(r"\b(abstract|sealed)\b", scope.signature)))

    def is_data_model(self, scope: Scope) -> bool:
        return scope.kind in _TYPES and (
            _model_name(scope) or _any_decorator(scope, self._entity)
            or bool(re.search(r"\bdata\s+class\b", scope.signature)))


SymbolJudges = RustSymbols | CSymbols | CppSymbols | CSharpSymbols | PhpSymbols | KotlinSymbols

SYMBOL_JUDGES: dict[str, SymbolJudges] = {
    "rust": RustSymbols(), "c": CSymbols(), "cpp": CppSymbols(), "csharp": CSharpSymbols(),
    "php": PhpSymbols(), "kotlin": KotlinSymbols(),
}
