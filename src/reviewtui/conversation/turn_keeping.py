"""How an answer's turn is kept in the session: its messages and tool results, and -- when the
person stops it -- what it had got so far.

The agent loop fills an ``AgentTurn`` as the answer goes (the tool rounds done, the text of the
reply in flight). A whole answer is written by ``ChatSession.ask`` with the messages and tool
results made here; one the person stopped (Ctrl-C, the chat's stop key, or the reader of the
answer gone: a closed pipe) ends its round with the text streamed so far, marked interrupted
(``TurnKeeper.keep_interrupted``), so that it can be continued -- and ``AnswerInterrupted``
carries that round to ``reviewtui ask``, which says where it is kept.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from reviewtui.agent.loop import AgentTurn
from reviewtui.agent.memory import ToolMemory
from reviewtui.conversation.rounds import RoundManager
from reviewtui.errors import StoreError
from reviewtui.llm import TokenCounter
from reviewtui.sessions.records import MessageRecord, RoundRecord, ToolResultRecord
from reviewtui.sessions.store import SessionStore


class AnswerInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped an answer, and what it had streamed is kept as ``round`` (marked
    interrupted). A ``KeyboardInterrupt``: whatever does not know it still stops."""

    def __init__(self, round: RoundRecord) -> None:
        super().__init__(f"interrupted: round {round.index + 1} kept")
        self.round = round


def reader(on_delta: Callable[[str], None] | None,
           gone: list[Exception]) -> Callable[[str], None] | None:
    """``on_delta``, noting in ``gone`` an error it raises (its output closed)."""
    if on_delta is None:
        return None
    heard = on_delta

    def read(text: str) -> None:
        try:
            heard(text)
        except Exception as error:
            gone.append(error)
            raise

    return read


class TurnKeeper:
    """Writes one session's turns to its store (``ChatSession.keeper``)."""

    def __init__(self, store: SessionStore, session_id: str, rounds: RoundManager,
                 counter: TokenCounter, memory: ToolMemory) -> None:
        self.store = store
        self.session_id = session_id
        self.rounds = rounds
        self.counter = counter
        self.memory = memory

    def results(self, turn: AgentTurn) -> list[ToolResultRecord]:
        found = (self.memory.get(run.ref_id) for run in turn.tool_runs)
        return [record for record in found if record is not None]

    def messages(self, index: int, turn: AgentTurn) -> list[MessageRecord]:
        refs = {run.call.id: run.ref_id for run in turn.tool_runs}
        messages = []
        for message in turn.messages:
            content = message.get("content") or ""
            call_id = message.get("tool_call_id")
            messages.append(MessageRecord(
                round_index=index, role=message["role"], content=content,
                tool_calls=list(message.get("tool_calls") or []), tool_call_id=call_id,
                name=message.get("name"), ref_id=refs.get(call_id) if call_id else None,
                tokens=self.counter.count(content)))
        return messages

    def keep_interrupted(self, turn: AgentTurn) -> RoundRecord | None:
        """End the round in flight with what ``turn`` got before the person stopped it: the
        tool rounds done and the text streamed so far, marked interrupted. None when it could
        not be stored (the round stays in flight, its question kept, as before)."""
        answer = turn.streaming
        messages = [*turn.messages, {"role": "assistant", "content": answer}]
        stopped = AgentTurn(answer=answer, messages=messages, tool_runs=turn.tool_runs,
                            prompt_tokens=turn.prompt_tokens,
                            completion_tokens=turn.completion_tokens + (
                                self.counter.count(answer) if answer else 0),
                            cached_tokens=turn.cached_tokens)
        done = self.rounds.end_round(
            answer, files_used=stopped.files,
            usage=(stopped.prompt_tokens, stopped.completion_tokens, stopped.cached_tokens),
            interrupted=True)
        try:
            self.store.end_round(self.session_id, done, self.messages(done.index, stopped),
                                 self.results(stopped))
        except StoreError:
            with contextlib.suppress(StoreError):  # what the store has: the round in flight
                self.rounds.sync(self.store.rounds(self.session_id))
            return None
        return done
