"""Validators for the exports built from the formats' published JSON schemas
(``tests/data/schemas``, kept verbatim with their origin): SARIF 2.1.0 from OASIS and the
Reviewdog Diagnostic Format (rdjson) from reviewdog.

Each validator checks the schema itself first (``check_schema``), honours ``format`` where
jsonschema can check it, and loads reviewdog's nine files into one ``referencing`` registry
so a ``$ref`` from one file to another resolves without any network.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator, FormatChecker
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from reviewtui.sessions.export import SARIF_SCHEMA

SCHEMAS = Path(__file__).resolve().parents[1] / "data" / "schemas"
SARIF_FILE = "sarif-schema-2.1.0.json"
RDF_ROOT = "DiagnosticResult.json"
DRAFT4_META = "http://json-schema.org/draft-04/schema#"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def sarif_validator() -> Validator:
    """The OASIS SARIF 2.1.0 (Errata 01) schema, checked to be that one."""
    schema = _load(SCHEMAS / SARIF_FILE)
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    assert schema["id"] == SARIF_SCHEMA and schema["$schema"] == DRAFT4_META
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    Draft4Validator.check_schema(schema)
    checker = FormatChecker()
    # jsonschema checks a format only when its checker's library is installed: without
    # rfc3986-validator (a test extra) every artifactLocation.uri would pass unchecked.
    assert {"uri", "uri-reference"} <= set(checker.checkers), "pip install rfc3986-validator"
    return Draft4Validator(schema, format_checker=checker)


def sarif_errors(document: Any) -> list[str]:
    """Every violation of the SARIF schema in ``document`` (none: it is valid)."""
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
            for error in sarif_validator().iter_errors(document)]


@cache
def rdjson_validator() -> Validator:
    """reviewdog's ``DiagnosticResult`` schema, the other eight files in its registry."""
    resources = []
    for path in sorted((SCHEMAS / "rdf").glob("*.json")):
        schema = _load(path)
        Draft4Validator.check_schema(schema)
        resources.append((path.name, Resource.from_contents(schema, default_specification=DRAFT4)))
    registry: Registry[Any] = Registry().with_resources(resources)
    root = registry[RDF_ROOT].contents
    return Draft4Validator(root, registry=registry, format_checker=FormatChecker())


def rdjson_errors(document: Any) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
            for error in rdjson_validator().iter_errors(document)]
