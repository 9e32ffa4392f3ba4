"""The session store: everything a person's review of a change keeps, in one SQLite file.

Entry point: ``SessionStore`` (``store``): sessions keyed by repository and change, their
rounds, messages and tool results (``records``, ``round_store``: the store numbers rounds and
writes each whole, so several processes can talk in one session; ``message_store``), the
person's overrides and "reviewed" marks (``decision_store``, each decision written on its own;
``marks``: kept by each unit's content), and the person's review (``review_records``,
``review_store``: findings by fingerprint with their state, the reviewer's comments, the
verdict), rendered by ``export`` as Markdown, JSON or SARIF. ``schema`` says where the file
lives and migrates it; ``values`` keeps secrets out. WAL and one transaction per write: a killed
process loses at most the message in flight. No LLM, no Textual: the conversation, the agent and
the workbench all persist through here.
"""

from __future__ import annotations

from reviewtui.sessions.store import SessionStore, default_store_path

__all__ = ["SessionStore", "default_store_path"]
