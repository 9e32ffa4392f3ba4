"""A content-addressed cache of scanner results, one small JSON file per tool x file.

Linters are slow, and a review session scans the same unchanged files again and again. The key
covers everything a result depends on that is cheap to know: the tool and its identity (version
string or executable stamp), its arguments and local configuration, the repo-relative path and
the SHA-256 of the scanned content. Reading never fails (a broken entry is a miss and is
overwritten); writing is atomic (temporary file + ``os.replace``) and best effort.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reviewtui.rules.scanners.model import SEVERITIES, ScannerIssue

CACHE_FORMAT = 1


_FIELDS = ("path", "line", "column", "severity", "message", "rule_id", "tool")


def content_digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def cache_key(*, tool: str, identity: str, args: Sequence[str], config: str, path: str,
              digest: str) -> str:
    """A stable hex key; ``config`` is a fingerprint of the tool's local configuration."""
    material = json.dumps([CACHE_FORMAT, tool, identity, list(args), config, path, digest])
    return hashlib.sha256(material.encode()).hexdigest()


def _issue_from_json(item: Any, *, tool: str, path: str) -> ScannerIssue:
    if not isinstance(item, dict) or set(item) != set(_FIELDS):
        raise ValueError("bad issue entry")
    issue = ScannerIssue(
        path=str(item["path"]), line=int(item["line"]), column=int(item["column"]),
        severity=str(item["severity"]), message=str(item["message"]),
        rule_id=str(item["rule_id"]), tool=str(item["tool"]),
    )
    if issue.tool != tool or issue.path != path or issue.severity not in SEVERITIES:
        raise ValueError("issue does not belong to this entry")
    return issue


class ScanCache:
    """``directory=None`` turns the cache off: every lookup misses, nothing is written."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def _file(self, key: str) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, *, tool: str, path: str) -> list[ScannerIssue] | None:
        file = self._file(key)
        if file is None:
            return None
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
            if data.get("format") != CACHE_FORMAT or data.get("key") != key:
                return None
            items = data["issues"]
            if not isinstance(items, list):
                return None
            return [_issue_from_json(item, tool=tool, path=path) for item in items]
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def put(self, key: str, issues: Sequence[ScannerIssue]) -> None:
        file = self._file(key)
        if file is None:
            return
        payload = {
            "format": CACHE_FORMAT,
            "key": key,
            "issues": [{name: getattr(issue, name) for name in _FIELDS} for issue in issues],
        }
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(payload, handle)
                Path(tmp).replace(file)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return  # a read-only or full cache directory must not break the scan
