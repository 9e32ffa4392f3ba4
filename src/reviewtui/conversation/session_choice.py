"""Which stored session a chat goes on in: the one named, else the change's latest, else new.

A session belongs to one repository and one change (its ``repo_key`` and ``change_key``). One of
another is refused: its rounds would be sent to the model as this change's history, and this
change's rounds kept among its own. A branch amended or rebased keeps its title, so the message
names the two changes by their commits.
"""

from __future__ import annotations

import re

from reviewtui.agent.workspace import Workspace
from reviewtui.errors import UsageError
from reviewtui.sessions.records import SessionInfo
from reviewtui.sessions.store import SessionStore
from reviewtui.sessions.values import clean_text


def sides(change_key: str) -> str:
    """A change key's two sides as a person reads them: ``d5842c4..357659b``."""
    both = change_key.split(":", 1)[-1]
    return re.sub(r"\b([0-9a-f]{7})[0-9a-f]{33}\b", r"\1", both)


def choose_session(workspace: Workspace, store: SessionStore, model: str | None, *,
                   session_id: str | None = None, new: bool = False) -> SessionInfo:
    """``session_id`` (``UsageError`` when there is none, or it is another change's), else
    the latest session of this change, else a new one (``new``: a new one in any case)."""
    if session_id is not None:
        session = store.session(session_id)
        if session is None:
            raise UsageError(f"no session {session_id!r}",
                             hint="'reviewtui sessions' lists them")
        # compared as stored: a path that is not UTF-8 is kept escaped (``storable``)
        repo_key, change_key = clean_text(workspace.repo_key), clean_text(workspace.change_key)
        if (session.repo_key, session.change_key) != (repo_key, change_key):
            if session.repo_key != repo_key:
                where = f"another repository ({session.title})"
            else:  # a branch amended or rebased keeps its title: the commits tell apart
                where = (f"another change ({session.title}, {sides(session.change_key)}; "
                         f"this one is {sides(workspace.change_key)})")
            raise UsageError(f"session {session.session_id} is about {where}",
                             hint="give that change's selector and PATH, or leave "
                                  "--session out")
        return session
    meta = workspace.index.review_metadata
    title = f"{meta.mode}: {meta.old} -> {meta.new}"
    if new:
        return store.create_session(workspace.repo_key, workspace.change_key, title,
                                    model=model)
    # found or created in one transaction: runs started together share it
    return store.session_for_change(workspace.repo_key, workspace.change_key, title,
                                    model=model)
