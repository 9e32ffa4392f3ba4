"""Tree-sitter query sources, one per supported language.

Collecting nodes with a compiled query runs on the C side, which is what keeps
structure extraction fast; walking every node from Python would not be.  The
queries live here, apart from the loading code, so that adding a language is a
matter of adding one string.

Capture names form a small protocol read by :mod:`reviewtui.code.analyze`:

* ``def.<kind>`` -- a definition node of that kind (see
  :mod:`reviewtui.code.kinds`);
* ``def.gotype`` -- a Go ``type_spec``/``type_alias`` whose kind depends on the
  underlying type;
* ``def.var`` -- a binding whose value is a function or closure (JS/TS ``const f = () =>``,
  Rust ``let f = |x|``, C++ ``auto f = []()``, C# ``Func<..> f = x =>``, PHP
  ``$f = function ()``, Kotlin ``val f = { x -> }``), named after the variable;
* ``def.declarator`` -- a C/C++ ``function_declarator``: the declaration or member declaration
  around it is a prototype (a function or method without a body);
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

RUST = """
(function_item) @def.function
(function_signature_item) @def.function
(impl_item) @def.impl
(trait_item) @def.interface
[(struct_item) (union_item)] @def.struct
(enum_item) @def.enum
(mod_item body: (_)) @def.namespace
(macro_definition) @def.macro
(type_item) @def.type
(let_declaration pattern: (identifier) value: (closure_expression)) @def.var
[(line_comment) (block_comment)] @comment
[(use_declaration) (extern_crate_declaration) (mod_item !body)] @import
"""

_C_COMMON = """
(function_definition) @def.function
(function_declarator) @def.declarator
[(struct_specifier body: (_)) (union_specifier body: (_))] @def.struct
(enum_specifier body: (_)) @def.enum
(preproc_function_def) @def.macro
(comment) @comment
(preproc_include) @import
"""

C = _C_COMMON

CPP = (
    _C_COMMON
    + """
(class_specifier body: (_)) @def.class
(namespace_definition name: (_) body: (_)) @def.namespace
(alias_declaration) @def.type
(init_declarator declarator: (identifier) value: (lambda_expression)) @def.var
[(using_declaration) (namespace_alias_definition)] @import
"""
)

CSHARP = """
[(class_declaration) (record_declaration)] @def.class
(struct_declaration) @def.struct
(interface_declaration) @def.interface
(enum_declaration) @def.enum
(namespace_declaration) @def.namespace
[(method_declaration) (constructor_declaration) (destructor_declaration)] @def.method
(property_declaration) @def.method
(local_function_statement) @def.function
(variable_declarator (lambda_expression)) @def.var
(comment) @comment
(using_directive) @import
"""

PHP = """
(function_definition) @def.function
(method_declaration) @def.method
(class_declaration) @def.class
(interface_declaration) @def.interface
(trait_declaration) @def.trait
(enum_declaration) @def.enum
(namespace_definition body: (_)) @def.namespace
(assignment_expression
  left: (variable_name)
  right: [(anonymous_function) (arrow_function)]) @def.var
(comment) @comment
[(namespace_use_declaration) (include_expression) (include_once_expression)
 (require_expression) (require_once_expression)] @import
"""

KOTLIN = """
(class_declaration) @def.class
[(object_declaration) (companion_object)] @def.object
(function_declaration) @def.function
[(secondary_constructor) (primary_constructor)] @def.method
(property_declaration
  (variable_declaration (identifier))
  [(lambda_literal) (anonymous_function)]) @def.var
(type_alias) @def.type
[(line_comment) (block_comment)] @comment
[(import) (package_header)] @import
"""
