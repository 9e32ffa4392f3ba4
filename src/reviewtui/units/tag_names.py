"""Every tag a unit can get: what a rule pack's ``tags``, ``requires_tags`` and ``unless_tags``
may name.

A rule that names a tag no unit gets never matches (``requires_tags``) or never stands aside
(``unless_tags``), and nothing says so: ``reviewtui rules check`` reads this set to name the
misspelling. A test holds it equal to the tags the units and rule stages add.
"""

from __future__ import annotations

PATH_TAGS = frozenset({
    "lockfile", "config_file", "doc_file", "tooling_file", "type_stub", "test_file",
    "routing_file", "migration_file", "generated_or_vendored", "package_manifest",
    "translation_catalog", "translation_file", "asset_file", "security_area", "binary",
    "binary_by_attribute", "new_file", "deleted_file", "renamed", "copied", "mode_change",
    "mode_only", "made_executable", "sensitive_executable", "symlink", "submodule", "too_large",
    "untracked", "kept_on_disk", "unreadable", "non_utf8",
})
LINE_TAGS = frozenset({
    "only_whitespace", "only_comments", "only_imports", "only_logging", "only_data",
    "security_sensitive", "security_test",
})
STRUCTURE_TAGS = frozenset({
    "complete_function", "complete_class", "signature_change", "annotations_only",
    "in_single_function",
})
# Added by the rule stage as it reads a unit (``rules.registry``): Rust's inline tests, build.rs.
RULE_TAGS = frozenset({"test_code", "build_script"})
KNOWN_TAGS = PATH_TAGS | LINE_TAGS | STRUCTURE_TAGS | RULE_TAGS
