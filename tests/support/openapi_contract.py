"""Check requests and answers against a pinned subset of a forge's OpenAPI description.

The subset (``tests/data/forge/*/openapi-subset.json``, cut by
``tools/extract_openapi_subset.py``) is OpenAPI 3.0: ``nullable`` is turned into JSON Schema's
``null`` type here, then ``jsonschema`` validates against ``#/components/...`` of the same
document. A status an operation does not describe (GitHub documents no 401 or 429 for these
operations) is checked against ``basic-error``, the shape GitHub's errors share.
"""

from __future__ import annotations

import json
import re
from functools import cached_property
from pathlib import Path
from typing import Any

import jsonschema

Operations = list[tuple[str, "re.Pattern[str]", dict[str, Any]]]


def path_operations(paths: dict[str, Any]) -> Operations:
    """(method, path pattern, operation) of a description's ``paths`` (OpenAPI 3 and
    Swagger 2 alike): ``/projects/{id}`` matches any one segment in its place."""
    ops: Operations = []
    for template, item in paths.items():
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", r"[^/]+", template) + "$")
        ops += [(method.upper(), pattern, op) for method, op in item.items()]
    return ops


def find_operation(ops: Operations, method: str, path: str) -> dict[str, Any]:
    path = "/" + path.lstrip("/")
    for op_method, pattern, op in ops:
        if op_method == method and pattern.match(path):
            return op
    raise AssertionError(f"{method} {path} is not an operation of the pinned description")


def assert_valid(validator: Any, value: Any, what: str) -> None:
    """The first (by path) error of ``validator`` on ``value`` as an assertion."""
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        raise AssertionError(f"{what} does not match the description at "
                             f"{list(first.absolute_path)}: {first.message}")


def _nullable(node: Any) -> Any:
    if isinstance(node, list):
        return [_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _nullable(value) for key, value in node.items()}
    if out.pop("nullable", False):
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            return {"anyOf": [out, {"type": "null"}]}
    return out


class OpenApiContract:
    def __init__(self, path: Path) -> None:
        self.document = json.loads(path.read_text(encoding="utf-8"))
        self.info = self.document["info"]
        self._ops = path_operations(self.document["paths"])

    @cached_property
    def _components(self) -> dict[str, Any]:
        return _nullable(self.document["components"])  # type: ignore[no-any-return]

    def example(self, name: str) -> Any:
        return json.loads(json.dumps(self.document["components"]["examples"][name]["value"]))

    def operation(self, method: str, path: str) -> dict[str, Any]:
        return find_operation(self._ops, method, path)

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            _, _, kind, name = node["$ref"].split("/", 3)
            node = self.document["components"][kind][name]
        return node

    def _validate(self, schema: dict[str, Any], value: Any, what: str) -> None:
        root = {"components": self._components, **_nullable(schema)}
        assert_valid(jsonschema.Draft202012Validator(root), value, what)

    def check_request(self, method: str, path: str, body: Any) -> str:
        """Validate a request body; returns the operation id."""
        op = self.operation(method, path)
        request = op.get("requestBody")
        if request is None:
            assert body is None, f"{op['operationId']} takes no body"
        else:
            schema = self._resolve(request)["content"]["application/json"]["schema"]
            if body is None:
                assert not request.get("required"), f"{op['operationId']} needs a body"
            else:
                self._validate(schema, body, f"the {op['operationId']} request")
        return str(op["operationId"])

    def check_response(self, method: str, path: str, status: int, body: Any) -> None:
        op = self.operation(method, path)
        described = op["responses"].get(str(status))
        if described is None:
            schema: dict[str, Any] = {"$ref": "#/components/schemas/basic-error"}
            assert "basic-error" in self.document["components"]["schemas"]
        else:
            content = self._resolve(described).get("content")
            if content is None:
                return
            schema = content["application/json"]["schema"]
        self._validate(schema, body, f"the {op['operationId']} answer (HTTP {status})")
