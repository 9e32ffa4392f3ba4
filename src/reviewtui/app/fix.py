"""From finding to fix: ask the model for one, preview, apply and undo it, in the working tree.

One use case for ``reviewtui findings apply|undo`` and the workbench's preview (``a``pply,
``u``ndo), so both refuse the same things the same way. The model only proposes (its tools stay
read-only); only this module writes, and only:

* a file inside the repository: no absolute path, no ``..``, nothing under ``.git``, no symlink
  as the file itself and no folder that resolves outside the root;
* a regular file that is writable: read-only mode bits are refused even when the process could
  write anyway (as root), since the person marked the file so;
* when the working tree's lines of the fix's range are still exactly the reviewed ones (their
  bytes' hash): when the reviewed after side *is* the working tree, the finding and its fix
  have followed their lines (``agent.follow``) to where they are now, and otherwise only if the
  file still holds those lines where the review saw them.

An applied fix keeps the file's exact previous bytes in the session; ``undo`` restores them
once, and only over the bytes the fix wrote (a later edit is never overwritten). After applying,
a finding whose lines' text changed becomes ``fixed``; undo puts its state back.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from reviewtui.agent.fixes import check_fix, holds, patched, unified_diff
from reviewtui.agent.record import line_hash
from reviewtui.errors import FixError
from reviewtui.sessions.review_records import AppliedFix, StoredFinding, StoredFix
from reviewtui.sessions.store import SessionStore

if TYPE_CHECKING:
    from reviewtui.agent.fix_request import FixAnswer
    from reviewtui.agent.loop import ToolRun
    from reviewtui.agent.workspace import Workspace
    from reviewtui.llm import LLMClient, TokenCounter

ID_LENGTH = 8


def finding_id(finding: StoredFinding) -> str:
    """The short id ``reviewtui findings`` shows (a prefix of the fingerprint)."""
    return finding.fingerprint[:ID_LENGTH]


def find_finding(findings: Sequence[StoredFinding], ref: str) -> StoredFinding:
    """The finding whose fingerprint starts with ``ref``; ``FixError`` when none or several."""
    ref = ref.strip().lower()
    matches = [f for f in findings if ref and f.fingerprint.startswith(ref)]
    if not matches:
        raise FixError(f"no finding {ref!r} in this change's review",
                       hint="'reviewtui findings' lists them with their ids")
    if len(matches) > 1:
        raise FixError(f"{ref!r} names {len(matches)} findings: give more of its id")
    return matches[0]


@dataclass(frozen=True)
class FixPreview:
    """What applying a fix would write, checked: the file, its bytes before and after."""

    finding: StoredFinding
    fix: StoredFix
    target: Path
    before: bytes
    after: bytes

    @property
    def diff(self) -> str:
        return unified_diff(self.finding.file_path, self.fix)


def patch_text(finding: StoredFinding) -> str:
    """The fix as a patch against the reviewed lines (what to copy when it does not apply);
    a text-only fix outside the file: its replacement text."""
    fix = finding.fix
    if fix is None:
        return ""
    if not fix.original and not fix.applicable:
        return fix.replacement
    return unified_diff(finding.file_path, fix)


def target_path(root: Path, path: str) -> Path:
    """``root / path`` when it is a regular, writable file inside the repository; ``FixError``
    otherwise (the reason named)."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or not pure.parts or {"..", ".git"} & set(pure.parts):
        raise FixError(f"{path}: not a path inside the repository")
    real_root = root.resolve()
    candidate = real_root / pure
    try:
        parent = candidate.parent.resolve(strict=True)
    except OSError:
        raise FixError(f"{path}: its folder does not exist in the working tree") from None
    if parent != real_root and real_root not in parent.parents:
        raise FixError(f"{path}: a folder on its way is a link out of the repository; "
                       "nothing written")
    target = parent / pure.name
    try:
        info = os.lstat(target)
    except OSError:
        raise FixError(f"{path} is not in the working tree") from None
    if stat.S_ISLNK(info.st_mode):
        raise FixError(f"{path} is a symbolic link: reviewtui does not write through links")
    if not stat.S_ISREG(info.st_mode):
        raise FixError(f"{path} is not a regular file")
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(
            target, os.W_OK):
        raise FixError(f"{path} is read-only: nothing written")
    return target


def preview_fix(root: Path, finding: StoredFinding) -> FixPreview:
    """The fix of ``finding`` checked against the working tree; ``FixError`` with the reason
    when it would not apply."""
    fix = finding.fix
    ident = finding_id(finding)
    if fix is None:
        raise FixError(f"finding {ident} has no fix (ask the model for one: 'reviewtui findings "
                       f"fix {ident}', or the workbench's fix key)")
    if not fix.applicable:
        raise FixError(f"finding {ident}'s fix is text only: {fix.reason or 'not checked'}")
    target = target_path(root, finding.file_path)
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise FixError(f"cannot read {finding.file_path}: {exc.strerror or exc}") from None
    if not holds(fix, data):
        raise FixError(f"the working tree moved on: {finding.file_path} {fix.lines} are no "
                       "longer the reviewed lines; nothing written",
                       hint="--dry-run prints the patch to apply by hand")  # (the CLI's way)
    return FixPreview(finding, fix, target, data, patched(data, fix))


def _write(target: Path, data: bytes) -> None:
    """Replace ``target``'s bytes with ``data`` (a temporary file renamed over it, same mode)."""
    mode = stat.S_IMODE(target.stat().st_mode)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        temporary.chmod(mode)
        temporary.replace(target)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise FixError(f"cannot write {target.name}: {exc.strerror or exc}") from None


def _line_text(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").split("\n")


def apply_fix(store: SessionStore, session_id: str, root: Path,
              finding: StoredFinding) -> tuple[FixPreview, StoredFinding]:
    """Write the fix and keep the previous bytes to undo it; the finding, as stored after
    (``fixed`` when its lines' text changed)."""
    if store.applied_fix(session_id, finding.fingerprint) is not None:
        raise FixError(f"the fix of {finding_id(finding)} is already applied (undo takes it "
                       "back)")
    preview = preview_fix(root, finding)
    lines = _line_text(preview.after)
    now = line_hash(finding.file_path, finding.start_line, finding.end_line,
                    lambda _path, n: lines[n - 1] if 0 < n <= len(lines) else None)
    # a finding on removed lines is about the lines the fix writes elsewhere: fixed by it
    changed = finding.side == "old" or now != finding.line_hash
    after = finding.model_copy(update={"state": "fixed"}) if changed else finding
    _write(preview.target, preview.after)
    try:
        store.record_applied_fix(session_id, AppliedFix(
            fingerprint=finding.fingerprint, file_path=finding.file_path,
            before=preview.before, after_sha=hashlib.sha256(preview.after).hexdigest(),
            state_before=finding.state), after)
    except Exception:
        _write(preview.target, preview.before)  # not kept, so not undoable: take it back
        raise
    return preview, after


def undo_fix(store: SessionStore, session_id: str, root: Path,
             findings: Sequence[StoredFinding], fingerprint: str | None = None) -> AppliedFix:
    """Restore the exact bytes from before the latest applied fix (of ``fingerprint``, or any),
    once; refused when the file changed since the fix wrote it."""
    applied = store.applied_fix(session_id, fingerprint)
    if applied is None:
        raise FixError("no applied fix to undo" + (f" for finding {fingerprint[:ID_LENGTH]}"
                                                    if fingerprint else ""))
    target = target_path(root, applied.file_path)
    try:
        current = target.read_bytes()
    except OSError as exc:
        raise FixError(f"cannot read {applied.file_path}: {exc.strerror or exc}") from None
    if hashlib.sha256(current).hexdigest() != applied.after_sha:
        raise FixError(f"{applied.file_path} changed since the fix was applied: undoing would "
                       "lose that edit; nothing written")
    _write(target, applied.before)
    finding = next((f for f in findings if f.fingerprint == applied.fingerprint), None)
    restored = (finding.model_copy(update={"state": applied.state_before})
                if finding is not None else None)
    try:
        store.record_undone_fix(session_id, applied, restored)
    except Exception:
        _write(target, current)  # not marked undone: leave the fix in place, undoable
        raise
    return applied


def request_fix(ws: Workspace, client: LLMClient, counter: TokenCounter, store: SessionStore,
                session_id: str, finding: StoredFinding, *, max_tool_rounds: int = 8,
                on_tool: Callable[[ToolRun], None] | None = None,
                cancel: threading.Event | None = None) -> tuple[StoredFinding, FixAnswer]:
    """Ask the model for a fix to ``finding``, check it against the file as reviewed and keep
    it on the finding (its state unchanged); ``FixError`` when the model proposes none."""
    from reviewtui.agent.fix_request import ask_fix
    from reviewtui.plan.extract import PlanParseError

    if store.applied_fix(session_id, finding.fingerprint) is not None:
        # a new fix would take the applied one's place: the patch in the file would no longer
        # be the one kept, and the new one would show as applied though never written
        raise FixError(f"finding {finding_id(finding)}'s fix is applied: undo it first, then "
                       "ask for another")
    try:
        answer = ask_fix(ws, client, counter, finding, max_tool_rounds=max_tool_rounds,
                         on_tool=on_tool, cancel=cancel)
    except PlanParseError as problem:
        raise FixError(f"the model gave no usable fix: {problem}") from None
    if answer.fix is None:
        raise FixError("the model proposed no fix" + (f": {answer.explanation}"
                                                      if answer.explanation else ""))
    checked = check_fix(answer.fix, finding.file_path, ws.file_bytes(finding.file_path))
    checked = checked.model_copy(update={"explanation": " ".join(answer.explanation.split())})
    updated = finding.model_copy(update={"fix": checked})
    store.update_findings(session_id, [updated])
    return updated, answer
