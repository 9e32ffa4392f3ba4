"""Writer for the session store's kill tests: writes until it is killed.

Run as ``python store_kill_writer.py STORE``. It creates a session, prints ``session <id>``,
then adds messages in a tight loop (each one its own transaction, every third ~100 KB) and
prints the index of each message after its commit returned. The test kills it with SIGKILL at
some moment and checks that every reported message is in the store, whole.

``python store_kill_writer.py STORE rounds``: rounds the way a chat writes them — ``open_round``
with the question, then ``end_round`` with the answer's messages (a tool call, its result, the
~100 KB answer) and a tool result — printing each round's index once it has ended. The test
checks that every round is in flight with just its question, or ended with all of its answer.
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


def answer(index: int) -> list[tuple[str, str]]:
    """(role, content) of round ``index``'s answer messages, after its question."""
    return [("assistant", f"<call {index}>"), ("tool", f"<result {index}>"),
            ("assistant", content(3 * index + 2))]


def rounds(path: Path) -> None:
    from reviewtui.sessions.records import MessageRecord, RoundRecord, ToolResultRecord
    from reviewtui.sessions.store import SessionStore

    store = SessionStore(path)
    session_id = store.create_session("/kill/repo", "kill", "kill rounds").session_id
    sys.stdout.write(f"session {session_id}\n")
    sys.stdout.flush()
    while True:
        question = MessageRecord(round_index=0, role="user", content="question")
        record = store.open_round(session_id, RoundRecord(index=0, user_message="question"),
                                  [question])
        messages = [MessageRecord(round_index=record.index, role=role,  # type: ignore[arg-type]
                                  content=text) for role, text in answer(record.index)]
        result = ToolResultRecord(ref_id=f"tm_{record.index}", round_index=record.index,
                                  tool="read", arguments="{}", content=content(record.index))
        store.end_round(session_id, record.model_copy(update={"answer": messages[-1].content}),
                        messages, [result])
        sys.stdout.write(f"{record.index}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[2:] == ["rounds"]:
        rounds(Path(sys.argv[1]))
    else:
        main(Path(sys.argv[1]))
