"""What the store's mixins (rounds, the person's review and decisions) need from the store.

``RoundStore`` (over ``MessageStore``), ``ReviewStore`` and ``DecisionStore`` each hold one
part of the store's queries; the connection handling, the clock and the session checks live in
``SessionStore``. This base names those for the type checker once, instead of in every mixin.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import BaseModel


class StorePart:
    if TYPE_CHECKING:
        def _writing(self) -> AbstractContextManager[sqlite3.Connection]: ...
        def _reading(self) -> AbstractContextManager[sqlite3.Connection]: ...
        def _now(self) -> str: ...
        def _require_session(self, conn: sqlite3.Connection, session_id: str) -> None: ...
        def _touch(self, conn: sqlite3.Connection, session_id: str, now: str) -> None: ...
        def _dump(self, record: BaseModel) -> str: ...
