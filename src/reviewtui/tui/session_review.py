"""The person's review in the workbench's session: findings, comments and the verdict.

Each is written to the change's session on its own (``write_in_session``: one store write, a problem
comes back as one line and the decision stays on screen); the findings and comments kept are
followed to the lines as they are now (``agent.follow``) when first read and after a refresh.
A mixin of ``TuiSession`` (``tui.session``). No Textual here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from reviewtui.errors import CommentGoneError, StoreError
from reviewtui.pipeline import LoadedChange
from reviewtui.sessions.review_records import (
    FindingState,
    ReviewComment,
    ReviewVerdict,
    StoredFinding,
)
from reviewtui.sessions.store import SessionStore

if TYPE_CHECKING:
    from reviewtui.agent.follow import Followed


class _Host(Protocol):
    """What the review records need of the session they are mixed into."""

    loaded: LoadedChange
    _lock: threading.Lock
    _store_problem: str | None
    _followed: bool

    def store(self) -> SessionStore | None: ...

    def _session(self, create: bool) -> str | None: ...


class SessionReview:
    def follow_findings(self: _Host, loaded: LoadedChange) -> Followed | None:
        """Every finding and comment kept followed to ``loaded``'s lines (``agent.follow``):
        "fixed?" where its lines' text is gone (``lost``), a store problem in ``problem``;
        None when there is nothing to follow."""
        with self._lock:
            followed = _follow(self, loaded)
        if followed is None or not (followed.findings or followed.comments or followed.problem):
            return None
        return followed

    def review_records(self: _Host) -> tuple[list[StoredFinding], list[ReviewComment],
                                             ReviewVerdict | None]:
        store = self.store()
        sid = self._session(create=False)
        if store is None or sid is None:
            return [], [], None
        try:
            if not self._followed:  # lines may have moved since they were kept
                followed = _follow(self, self.loaded)
                if followed is not None and followed.problem is None:
                    return followed.findings, followed.comments, store.verdict(sid)
            return store.findings(sid), store.comments(sid), store.verdict(sid)
        except StoreError:
            return [], [], None

    def set_finding_state(self: _Host, fingerprint: str, state: FindingState,
                          reason: str | None = None) -> str | None:
        return write_in_session(
            self, lambda s, sid: s.set_finding_state(sid, fingerprint, state, reason))

    def save_comment(self: _Host, comment: ReviewComment) -> str | None:
        """Keep ``comment`` with the hash of its lines' text, which it follows."""
        from reviewtui.agent.follow import anchored
        from reviewtui.git.contents import SideLines

        lines = SideLines(self.loaded.change_set, self.loaded.reader)
        kept = anchored(comment, lines.line)

        def save(store: SessionStore, sid: str) -> None:
            try:
                store.save_comment(sid, kept)
            except CommentGoneError:  # deleted by another workbench while this one edited
                # it: the text typed is kept, as a new comment, not lost with the refusal
                store.save_comment(sid, kept.model_copy(update={"comment_id": None}))

        return write_in_session(self, save)

    def delete_comment(self: _Host, comment_id: int) -> str | None:
        return write_in_session(self, lambda s, sid: s.delete_comment(sid, comment_id))

    def set_verdict(self: _Host, verdict: ReviewVerdict) -> str | None:
        return write_in_session(self, lambda s, sid: s.set_verdict(sid, verdict))


def _follow(host: _Host, loaded: LoadedChange) -> Followed | None:
    """The session's findings and comments followed to ``loaded``'s lines, and kept there
    (``agent.follow``); None without a session."""
    from reviewtui.agent.follow import Followed, follow_change

    store, sid = host.store(), host._session(create=False)
    if store is None or sid is None:
        return None
    host._followed = True
    try:
        return follow_change(store, sid, loaded)
    except StoreError as error:
        return Followed([], [], problem=str(error))


def write_in_session(host: _Host, write: Callable[[SessionStore, str], object]) -> str | None:
    """Run one store write in this change's session; a problem comes back as one line."""
    with host._lock:
        store = host.store()
        if store is None:
            return host._store_problem or "the session store is unavailable"
        try:
            sid = host._session(create=True)
            assert sid is not None
            write(store, sid)
        except StoreError as error:
            return str(error)
    return None
