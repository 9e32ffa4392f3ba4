"""Tree-sitter query sources, one per supported language.

Collecting nodes with a compiled query runs on the C side, which is what keeps
structure extraction fast; walking every node from Python would not be.  The
queries live here, apart from the loading code, so that adding a language is a
matter of adding one string.

Capture names form a small protocol read by :mod:`reviewtui.code.analyze`:

* ``def.<kind>`` -- a definition node of that kind (``function``, ``method``,
  ``class``, ``interface``, ``struct``, ``enum``, ``module``, ``type``);
* ``def.gotype`` -- a Go ``type_spec``/``type_alias`` whose kind depends on the
  underlying type;
* ``def.var`` -- a JS/TS ``variable_declarator`` whose value is a function;
* ``comment`` -- a node that is only commentary (comments, Python docstrings);
* ``import`` -- an import/require/include statement;
* names starting with ``_`` are helpers for predicates and are ignored.
"""

from __future__ import annotations

PYTHON = """
(function_definition) @def.function
(class_definition) @def.class
(comment) @comment
(expression_statement . [(string) (concatenated_string)] @comment .)
[(import_statement) (import_from_statement) (future_import_statement)] @import
"""

_JS_COMMON = """
(function_declaration) @def.function
(generator_function_declaration) @def.function
(method_definition) @def.method
(class_declaration) @def.class
(variable_declarator
  name: (identifier)
  value: [(arrow_function) (function_expression) (generator_function)]) @def.var
(comment) @comment
(import_statement) @import
((lexical_declaration (variable_declarator value: (call_expression function: (identifier) @_req)))
  (#eq? @_req "require")) @import
((variable_declaration (variable_declarator value: (call_expression function: (identifier) @_req)))
  (#eq? @_req "require")) @import
((lexical_declaration (variable_declarator value: (member_expression
  object: (call_expression function: (identifier) @_req)))) (#eq? @_req "require")) @import
((variable_declaration (variable_declarator value: (member_expression
  object: (call_expression function: (identifier) @_req)))) (#eq? @_req "require")) @import
((expression_statement (call_expression function: (identifier) @_req))
  (#eq? @_req "require")) @import
"""

JAVASCRIPT = _JS_COMMON

TYPESCRIPT = (
    _JS_COMMON
    + """
(abstract_class_declaration) @def.class
(interface_declaration) @def.interface
(type_alias_declaration) @def.type
(enum_declaration) @def.enum
"""
)

GO = """
(function_declaration) @def.function
(method_declaration) @def.method
(type_spec) @def.gotype
(type_alias) @def.gotype
(comment) @comment
(import_declaration) @import
"""

JAVA = """
(class_declaration) @def.class
(record_declaration) @def.class
(interface_declaration) @def.interface
(enum_declaration) @def.enum
(method_declaration) @def.method
(constructor_declaration) @def.method
[(line_comment) (block_comment)] @comment
[(import_declaration) (package_declaration)] @import
"""

RUBY = """
(method) @def.function
(singleton_method) @def.method
(class) @def.class
(module) @def.module
(comment) @comment
((call
  !receiver
  method: (identifier) @_req
  arguments: (argument_list))
  (#any-of? @_req "require" "require_relative" "load")) @import
"""

QUERIES: dict[str, str] = {
    "python": PYTHON,
    "javascript": JAVASCRIPT,
    "typescript": TYPESCRIPT,
    "tsx": TYPESCRIPT,
    "go": GO,
    "java": JAVA,
    "ruby": RUBY,
}
