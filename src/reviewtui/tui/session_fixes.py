"""The workbench's fixes and export, beside its session (``tui.session``).

A finding's fix is asked for, previewed, applied and undone through ``app.fix``, the same use
case as ``reviewtui findings fix|apply|undo``; the export is ``reviewtui export``'s. They live
here, as a mixin of ``TuiSession``, so the session's module keeps to the store, the model and
the refresh. No Textual here.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from reviewtui.errors import ReviewTuiError, StoreError
from reviewtui.llm import token_counter
from reviewtui.pipeline import LoadedChange
from reviewtui.plan import FusedPlan
from reviewtui.sessions.review_records import AppliedFix, StoredFinding
from reviewtui.sessions.store import SessionStore

if TYPE_CHECKING:  # the agent and the model client load when first used
    from reviewtui.agent.workspace import Workspace
    from reviewtui.app.fix import FixPreview
    from reviewtui.llm.client import LLMClient
    from reviewtui.llm.settings import LLMConfig


def workspace_for(loaded: LoadedChange, plan: FusedPlan) -> Workspace:
    from reviewtui.agent.workspace import Workspace

    return Workspace(loaded, plan)


def client_for(config: LLMConfig) -> LLMClient:
    from reviewtui.llm.client import LLMClient

    return LLMClient(config)


class _Session(Protocol):
    """What the fixes need of the session they are mixed into."""

    loaded: LoadedChange
    config: LLMConfig
    _lock: threading.Lock
    _store_problem: str | None

    def store(self) -> SessionStore | None: ...

    def _session(self, create: bool) -> str | None: ...


def _fix_store(session: _Session) -> tuple[SessionStore, str]:
    store = session.store()
    sid = session._session(create=True) if store is not None else None
    if store is None or sid is None:
        raise ReviewTuiError(session._store_problem or "the session store is unavailable")
    return store, sid


class SessionFixes:
    def request_fix(self: _Session, plan: FusedPlan, finding: StoredFinding, *,
                    cancel: threading.Event | None = None) -> tuple[StoredFinding, str]:
        """Ask the model for a fix to ``finding`` (a worker thread calls this); the finding
        with its checked fix, and the model's explanation."""
        from reviewtui.app.fix import request_fix

        workspace = workspace_for(self.loaded, plan)
        store, sid = _fix_store(self)
        updated, answer = request_fix(workspace, client_for(self.config),
                                      token_counter(self.config.model), store, sid, finding,
                                      cancel=cancel)
        return updated, answer.explanation

    def preview_fix(self: _Session, finding: StoredFinding) -> FixPreview:
        """What applying would write; ``FixError`` says why it would not apply."""
        from reviewtui.app.fix import preview_fix

        return preview_fix(self.loaded.root, finding)

    def apply_fix(self: _Session, finding: StoredFinding) -> StoredFinding:
        from reviewtui.app.fix import apply_fix

        with self._lock:
            store, sid = _fix_store(self)
            _, after = apply_fix(store, sid, self.loaded.root, finding)
        return after

    def applied_fix(self: _Session, fingerprint: str) -> AppliedFix | None:
        store = self.store()
        sid = self._session(create=False)
        if store is None or sid is None:
            return None
        try:
            return store.applied_fix(sid, fingerprint)
        except StoreError:
            return None

    def undo_fix(self: _Session, fingerprint: str | None) -> AppliedFix:
        """Undo the fix applied to ``fingerprint``'s finding (None: the latest applied)."""
        from reviewtui.app.fix import undo_fix

        with self._lock:
            store, sid = _fix_store(self)
            return undo_fix(store, sid, self.loaded.root, store.findings(sid), fingerprint)

    def export(self: _Session, plan: FusedPlan, fmt: str, path: str, everything: bool) -> Path:
        """Write the review (``reviewtui export``'s) to ``path``; ``ReviewTuiError`` says why
        not."""
        from reviewtui.agent.deliverable import export_review, write_export

        store = self.store()
        if store is None:
            raise ReviewTuiError(self._store_problem or "the session store is unavailable")
        with self._lock:
            text, _ = export_review(workspace_for(self.loaded, plan), store, fmt,
                                    everything=everything)
        target = Path(path).expanduser()
        return write_export(text, target if target.is_absolute() else self.loaded.root / target)
