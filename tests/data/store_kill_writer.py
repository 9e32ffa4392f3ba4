"""Writer for the session store's kill test: appends messages until it is killed.

Run as ``python store_kill_writer.py STORE``. It creates a session, prints ``session <id>``,
then adds messages in a tight loop (each one its own transaction, every third ~100 KB) and
prints the index of each message after its commit returned. The test kills it with SIGKILL at
some moment and checks that every reported message is in the store, whole.
"""

from __future__ import annotations

import sys
from pathlib import Path


def content(index: int) -> str:
    """The message written at ``index``: framed, so a torn write would show."""
    size = 100_000 if index % 3 == 2 else 40 + index
    return f"<{index}>" + chr(97 + index % 26) * size + f"</{index}>"


def main(path: Path) -> None:
    from reviewtui.sessions.records import MessageRecord, RoundRecord
    from reviewtui.sessions.store import SessionStore

    store = SessionStore(path)
    session_id = store.create_session("/kill/repo", "kill", "kill test").session_id
    sys.stdout.write(f"session {session_id}\n")
    sys.stdout.flush()
    index = 0
    while True:
        if index % 10 == 0:
            store.start_round(session_id, RoundRecord(index=index // 10, user_message="q"))
        store.add_message(session_id, MessageRecord(round_index=index // 10, role="assistant",
                                                    content=content(index)))
        sys.stdout.write(f"{index}\n")
        sys.stdout.flush()
        index += 1


if __name__ == "__main__":
    main(Path(sys.argv[1]))
