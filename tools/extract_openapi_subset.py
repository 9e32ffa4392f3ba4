"""Cut the operations reviewtui's forge client uses, and every component they reference, out
of a forge's published OpenAPI description, for the contract tests (tests/data/forge/).

The whole GitHub description is 13 MB, GitLab's 2 MB; the tests need a handful of operations.
Usage:

    python tools/extract_openapi_subset.py [--allow-missing] SOURCE OUT.json OPERATION_ID...

``SOURCE`` for GitHub is ``generated/api.github.com.json`` of the npm package
``@octokit/openapi`` (GitHub's description of ``github/rest-api-description``, published by
Octokit; ``npm pack @octokit/openapi@VERSION``), OpenAPI 3.0: ``$ref``s to
``#/components/...``. For GitLab it is ``doc/api/openapi/openapi_v2.yaml`` of GitLab's
repository, Swagger 2.0 in YAML: ``$ref``s to ``#/definitions/...``. The output keeps ``info``
(with the version), the chosen operations under their paths, and the transitive closure of
their ``$ref``s. ``--allow-missing`` records a referenced component the source lacks under
``x-missing`` instead of failing (for a source assembled from parts of the description).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _refs(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.append(ref)
        for value in node.values():
            found += _refs(value)
    elif isinstance(node, list):
        for value in node:
            found += _refs(value)
    return found


def _resolve(doc: dict[str, Any], ref: str) -> Any:
    node: Any = doc
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            return yaml.safe_load(handle)  # type: ignore[no-any-return]
        return json.load(handle)  # type: ignore[no-any-return]


def extract(doc: dict[str, Any], operations: set[str], *,
            allow_missing: bool = False) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if isinstance(op, dict) and op.get("operationId") in operations:
                paths.setdefault(path, {})[method] = op
    missing = operations - {op["operationId"] for item in paths.values()
                            for op in item.values()}
    if missing:
        raise SystemExit(f"operations not in the description: {sorted(missing)}")
    swagger = "swagger" in doc  # 2.0: #/definitions/NAME; OpenAPI 3: #/components/KIND/NAME
    components: dict[str, dict[str, Any]] = {}
    absent: list[str] = []
    pending = _refs(paths)
    seen: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in seen or not ref.startswith("#/definitions/" if swagger else "#/components/"):
            continue
        seen.add(ref)
        parts = ref.split("/")
        kind, name = ("definitions", "/".join(parts[2:])) if swagger else (
            parts[2], "/".join(parts[3:]))
        try:
            target = _resolve(doc, ref)
        except KeyError:
            if not allow_missing:
                raise SystemExit(f"{ref} is referenced but not in the description") from None
            absent.append(name)
            continue
        components.setdefault(kind, {})[name] = target
        pending += _refs(target)
    out: dict[str, Any] = {}
    if swagger:
        out = {"swagger": doc["swagger"], "info": doc["info"], "paths": paths,
               "definitions": dict(sorted(components.get("definitions", {}).items()))}
    else:
        out = {"openapi": doc["openapi"], "info": doc["info"], "paths": paths,
               "components": {kind: dict(sorted(items.items()))
                              for kind, items in sorted(components.items())}}
    if absent:
        out["x-missing"] = sorted(absent)
    return out


def main(argv: list[str]) -> int:
    allow_missing = "--allow-missing" in argv
    argv = [arg for arg in argv if arg != "--allow-missing"]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    subset = extract(_load(Path(argv[0])), set(argv[2:]), allow_missing=allow_missing)
    with Path(argv[1]).open("w", encoding="utf-8") as handle:
        json.dump(subset, handle, indent=1, sort_keys=False)
        handle.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
