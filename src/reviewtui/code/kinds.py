"""The kinds of definition the structure layer reports, and the groups later stages ask about.

Every stage that asks "is this a function?" or "does this hold methods?" reads these sets, so a
new kind (a Rust ``impl`` block, a Kotlin ``object``, a C++ ``namespace``) is added once.

* ``function``, ``method`` -- callables; ``macro`` -- a Rust ``macro_rules!`` or a C/C++
  function-like ``#define``, called like a function;
* ``class``, ``interface`` (also a Rust trait), ``struct`` (also a union), ``enum``, ``module``
  (Ruby), ``impl`` (a Rust impl block, named after its type), ``object`` (a Kotlin object or
  companion object), ``trait`` (a PHP trait: methods mixed into classes) -- types that hold
  methods;
* ``namespace`` -- C++/C#/PHP namespaces and Rust modules: they hold definitions, but a function
  in one is still a function;
* ``type`` -- an alias or other named type.
"""

from __future__ import annotations

FUNCTION_KINDS = frozenset({"function", "method", "macro"})
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "module", "impl", "object",
                         "trait"})
TYPE_KINDS = CLASS_KINDS | {"type"}
# Definitions that hold other definitions: a change at their own level is shown with their
# header and the lines around it, never the whole body.
CONTAINER_KINDS = CLASS_KINDS | {"namespace"}
