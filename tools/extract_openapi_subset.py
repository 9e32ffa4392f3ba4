"""Cut the operations reviewtui's forge client uses, and every component they reference, out
of a forge's published OpenAPI description, for the contract tests (tests/data/forge/).

The whole GitHub description is 13 MB; the tests need six operations. Usage:

    python tools/extract_openapi_subset.py SOURCE.json OUT.json OPERATION_ID...

``SOURCE.json`` for GitHub is ``generated/api.github.com.json`` of the npm package
``@octokit/openapi`` (GitHub's description of ``github/rest-api-description``, published by
Octokit; ``npm pack @octokit/openapi@VERSION``). The output keeps ``info`` (with the version),
the chosen operations under their paths, and the transitive closure of their ``$ref``s.
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


def extract(doc: dict[str, Any], operations: set[str]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if isinstance(op, dict) and op.get("operationId") in operations:
                paths.setdefault(path, {})[method] = op
    missing = operations - {op["operationId"] for item in paths.values()
                            for op in item.values()}
    if missing:
        raise SystemExit(f"operations not in the description: {sorted(missing)}")
    components: dict[str, dict[str, Any]] = {}
    pending = _refs(paths)
    seen: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in seen or not ref.startswith("#/components/"):
            continue
        seen.add(ref)
        _, _, kind, name = ref.split("/", 3)
        target = _resolve(doc, ref)
        components.setdefault(kind, {})[name] = target
        pending += _refs(target)
    return {"openapi": doc["openapi"], "info": doc["info"], "paths": paths,
            "components": {kind: dict(sorted(items.items()))
                           for kind, items in sorted(components.items())}}


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with Path(argv[0]).open(encoding="utf-8") as handle:
        doc = json.load(handle)
    subset = extract(doc, set(argv[2:]))
    with Path(argv[1]).open("w", encoding="utf-8") as handle:
        json.dump(subset, handle, indent=1, sort_keys=False)
        handle.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
