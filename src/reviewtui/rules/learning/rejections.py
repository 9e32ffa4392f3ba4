"""Rejected candidates, remembered in ``<git dir>/reviewtui/rejected_rules.json``.

Next to the evidence log they judge: both are this clone's own (the evidence is what this
person's planner runs and overrides said), neither is committed, and ``.reviewtui/`` keeps only
rule packs. A rejected candidate is not proposed again until its samples reach twice what they
were when it was rejected. A file that cannot be read is reported and never overwritten.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from reviewtui.errors import LearningError
from reviewtui.rules.learning.model import Candidate, Rejection, Rejections

FILE_NAME = "rejected_rules.json"


def rejections_path(git_dir: Path) -> Path:
    return git_dir / "reviewtui" / FILE_NAME


def read_rejections(path: Path) -> Rejections:
    """The remembered rejections; ``LearningError`` (one line) when the file is unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Rejections()
    except (OSError, UnicodeDecodeError) as exc:
        raise LearningError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}",
                            hint="fix or remove the file; it is left as it is") from None
    try:
        return Rejections.model_validate_json(text)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"]) or "(top level)"
        raise LearningError(f"{path}: {where}: {error['msg']}",
                            hint="fix or remove the file; it is left as it is") from None


def remember_rejection(path: Path, candidate: Candidate) -> Rejection:
    """Add (or renew) the rejection of ``candidate``; the file is replaced atomically."""
    current = read_rejections(path)
    rejection = Rejection(id=candidate.id,
                          rejected=datetime.now(UTC).isoformat(timespec="seconds"),
                          samples=candidate.samples, key=candidate.key, level=candidate.level)
    updated = Rejections(rejected={**current.rejected, candidate.id: rejection})
    write_atomically(path, json.dumps(updated.model_dump(mode="json"), indent=2) + "\n")
    return rejection


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename, so
    a failure leaves the old file whole; ``LearningError`` names the file and the reason."""
    if path.parent.exists() and not path.parent.is_dir():
        raise LearningError(f"cannot write {path}: {path.parent} is not a folder",
                            hint="nothing was changed")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise LearningError(f"cannot write {path}: {exc.strerror or exc}",
                            hint="nothing was changed") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        Path(temp).chmod(mode)
        Path(temp).replace(path)
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        raise LearningError(f"cannot write {path}: {exc.strerror or exc}",
                            hint="nothing was changed") from None
