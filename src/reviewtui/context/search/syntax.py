"""The syntax node types a reference check looks for, across every grammar reviewtui ships.

Grammars name the same things differently: PHP's identifiers are ``name`` nodes, C#'s calls
``invocation_expression``, Kotlin's member access a field-less ``navigation_expression``. The
sets below are unions over the grammars (grouped by language in comments); a type is only
added when no other grammar uses the same name for something else, so one grammar's entry never
changes how another's code is read.
"""

from __future__ import annotations

IDENTIFIER_TYPES = frozenset({
    "identifier", "property_identifier", "field_identifier", "type_identifier", "constant",
    "shorthand_property_identifier", "shorthand_property_identifier_pattern",
    "private_property_identifier", "package_identifier", "statement_identifier",
    "instance_variable", "class_variable", "global_variable",
    "name",  # PHP
    "namespace_identifier",  # C++ ``Widget::draw``: the scope names a class or namespace
})
STRING_CONTENT_TYPES = frozenset({
    "string_content", "string_fragment", "interpreted_string_literal_content",
    "raw_string_literal_content", "escape_sequence", "heredoc_content",
    "string_literal_content", "raw_string_content",  # C#, C++
    "nowdoc_string",  # PHP
})
STRING_TYPES = STRING_CONTENT_TYPES | frozenset({
    "string", "string_literal", "template_string", "interpreted_string_literal",
    "raw_string_literal", "concatenated_string", "character_literal", "rune_literal",
    "text_block", "heredoc_body", "regex", "regex_pattern", "string_array", "symbol_array",
    "delimited_symbol", "subshell", "char_literal",
    "system_lib_string",  # C/C++ ``#include <name.h>``
    "verbatim_string_literal", "interpolated_string_expression",  # C#
    "encapsed_string", "heredoc", "nowdoc", "nowdoc_body",  # PHP
    "multiline_string_literal",  # Kotlin
})
INTERPOLATION_TYPES = frozenset({"interpolation", "template_substitution"})
KEYS = frozenset({"keyword_argument", "pair",
                  "argument", "attribute_argument"})  # PHP/C# named arguments
DEFINITION_TYPES = frozenset({
    # Python
    "function_definition", "class_definition",
    # JavaScript / TypeScript
    "function_declaration", "generator_function_declaration", "method_definition",
    "class_declaration", "abstract_class_declaration", "interface_declaration",
    "type_alias_declaration", "enum_declaration", "method_signature",
    "abstract_method_signature", "public_field_definition", "function_signature", "class",
    # Go
    "method_declaration", "type_spec", "type_alias", "method_elem", "method_spec",
    "field_declaration",
    # Java
    "constructor_declaration", "record_declaration", "annotation_type_declaration",
    # Ruby
    "method", "singleton_method", "module",
    # Rust
    "function_item", "function_signature_item", "struct_item", "enum_item", "union_item",
    "trait_item", "type_item", "mod_item", "macro_definition", "const_item", "static_item",
    # C / C++ (functions are named in their ``function_declarator``, see references)
    "namespace_definition", "preproc_function_def", "preproc_def", "alias_declaration",
    # C#
    "struct_declaration", "namespace_declaration", "local_function_statement",
    "destructor_declaration", "delegate_declaration",
    # PHP
    "trait_declaration",
    # Kotlin
    "object_declaration", "companion_object",
})
# C/C++ type specifiers define a type only with a body: ``struct point p;`` uses one.
SPECIFIER_TYPES = frozenset({"struct_specifier", "class_specifier", "union_specifier",
                             "enum_specifier"})
# A variable bound to a function defines it: the field naming the variable, and the values
# that are functions (JS/TS, C# (a lambda child without a field), Rust, C++).
BINDING_NAME_FIELDS = {"variable_declarator": "name", "let_declaration": "pattern",
                       "init_declarator": "declarator"}
BINDING_VALUES = {
    "variable_declarator": frozenset({"arrow_function", "function_expression", "function",
                                      "generator_function"}),
    "let_declaration": frozenset({"closure_expression"}),
    "init_declarator": frozenset({"lambda_expression"}),
}
KOTLIN_FUNCTION_VALUES = frozenset({"lambda_literal", "anonymous_function"})
IMPORT_TYPES = frozenset({
    "import_statement", "import_from_statement", "future_import_statement",
    "import_declaration", "import_spec", "import_clause", "namespace_import",
    "use_declaration", "extern_crate_declaration",  # Rust (PHP: ``use Trait;`` in a class)
    "preproc_include",  # C/C++
    "using_directive",  # C#
    "namespace_use_declaration",  # PHP
    "import",  # Kotlin (JavaScript's ``import`` node is a keyword: never an ancestor)
})
MEMBER_TYPES = frozenset({
    "attribute", "member_expression", "selector_expression", "field_access",
    "scoped_identifier", "scope_resolution", "nested_identifier", "qualified_type",
    "scoped_type_identifier", "nested_type_identifier", "generic_type",
    "field_expression",  # Rust, C, C++: ``a.b``, ``a->b``
    "qualified_identifier", "template_function", "template_method",  # C++
    "member_access_expression", "qualified_name",  # C#, PHP
    "nullsafe_member_access_expression",  # PHP
})
MEMBER_FIELDS = ("attribute", "property", "field", "name", "type")
# Kotlin member access and types have no fields: the member is the last named child.
LAST_CHILD_MEMBERS = frozenset({"navigation_expression", "user_type"})
CALL_FIELDS: dict[str, tuple[str, ...]] = {
    "call": ("function", "method"),  # Python / Ruby
    "call_expression": ("function",),
    "new_expression": ("constructor", "type"),  # JS, C++
    "method_invocation": ("name",),
    "object_creation_expression": ("type",),
    "decorator": (),
    "macro_invocation": ("macro",),  # Rust
    "struct_expression": ("name",),  # Rust ``Point { x: 1 }``
    "invocation_expression": ("function",),  # C#
    "function_call_expression": ("function",),  # PHP
    "member_call_expression": ("name",),
    "nullsafe_member_call_expression": ("name",),
    "scoped_call_expression": ("name",),
    "constructor_invocation": (),  # Kotlin ``: Base()``
}
# Calls whose callee has no field (Kotlin ``f(x)``, PHP ``new Name(...)``): the first named
# child, when the node has no field for it.
FIRST_CHILD_CALLS = frozenset({"call_expression", "object_creation_expression",
                               "constructor_invocation"})
# Opaque macro bodies: the text is read with the line heuristic instead.
MACRO_TEXT_TYPES = frozenset({"preproc_arg"})
