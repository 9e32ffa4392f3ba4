"""Check requests and answers against Swagger 2.0 descriptions: GitLab's pinned subset, and the
discussions API written by hand from GitLab's docs (``tests/data/forge/gitlab/``).

Several documents are merged (their ``paths`` and ``definitions``; hand-written definitions are
named ``Handwritten_*``). A request body is checked against the operation's ``in: body``
parameter, an answer against the schema of its status. An error the operation does not
describe, or describes without a schema (GitLab's description has no 400, 401 or 429 for most
of these operations, and its 404 has no schema) is checked against ``Handwritten_Error``, the
``{"message": ...}`` GitLab's REST docs give for errors; a success without a schema (204) must
have no body, and a success the operation does not describe is a violation.

One reading of GitLab's generator, stated where it is applied: an entity field whose schema is
exactly ``{"type": "string"}`` (no format, example, enum or description) is a field the
generator had no type for, not a string: ``labels`` (a list on the wire), ``source_project_id``
(an integer), ``sha``, ``web_url``... It is accepted whatever its type; every field the
description does type (``iid``, ``title``, ``author.username``, the draft note's ``id``...) is
checked as typed.
"""

from __future__ import annotations

import copy
import json
from functools import cached_property
from pathlib import Path
from typing import Any

import jsonschema

from tests.support.openapi_contract import (
    Operations,
    assert_valid,
    find_operation,
    path_operations,
)


def _untyped_as_any(definitions: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(definitions)
    for name, schema in out.items():
        if not name.startswith("API_Entities_"):
            continue
        for key, field in (schema.get("properties") or {}).items():
            if field == {"type": "string"}:
                schema["properties"][key] = {}
    return out


class SwaggerContract:
    def __init__(self, *paths: Path) -> None:
        self.documents = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
        self.definitions: dict[str, Any] = {}
        self._ops: Operations = []
        for document in self.documents:
            self.definitions.update(document.get("definitions", {}))
            self._ops += path_operations(document["paths"])

    @cached_property
    def _checked_definitions(self) -> dict[str, Any]:
        return _untyped_as_any(self.definitions)

    def operation(self, method: str, path: str) -> dict[str, Any]:
        return find_operation(self._ops, method, path)

    def _validate(self, schema: dict[str, Any], value: Any, what: str) -> None:
        root = {"definitions": self._checked_definitions, **schema}
        assert_valid(jsonschema.Draft7Validator(root), value, what)

    def check_request(self, method: str, path: str, body: Any) -> str:
        """Validate a request body; returns the operation id."""
        op = self.operation(method, path)
        params = [p for p in op.get("parameters", []) if p.get("in") == "body"]
        if not params:
            assert body is None, f"{op['operationId']} takes no body"
        elif body is None:
            assert not params[0].get("required"), f"{op['operationId']} needs a body"
        else:
            self._validate(params[0]["schema"], body, f"the {op['operationId']} request")
        return str(op["operationId"])

    def check_response(self, method: str, path: str, status: int, body: Any) -> None:
        op = self.operation(method, path)
        described = op.get("responses", {}).get(str(status))
        if status >= 400 and (described is None or "schema" not in described):
            schema: dict[str, Any] = {"$ref": "#/definitions/Handwritten_Error"}
        elif described is None:
            raise AssertionError(f"{op['operationId']} describes no HTTP {status}")
        elif "schema" not in described:
            assert body is None, f"{op['operationId']} answers HTTP {status} without a body"
            return
        else:
            schema = described["schema"]
        self._validate(schema, body, f"the {op['operationId']} answer (HTTP {status})")
