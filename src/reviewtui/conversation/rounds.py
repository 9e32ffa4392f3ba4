"""Conversation rounds and context inheritance between them (seed 004).

The seed's ConversationManager kept no real round history and *inferred* rounds from the message
list; here every question starts a ``RoundRecord`` (its keywords, the files it mentions, the files
it inherits) and ``end_round`` completes it with the answer, the files the tools read and those
the answer mentions — so a later question can inherit the files of the earlier rounds it is
about. Pure logic over records: the session store persists them, the packer turns the inherited
files into prompt text.

How much an earlier round matters to a new question, and which of its files are inherited, is
``inheritance``'s (the seed's weights, decay and dynamic threshold); this module keeps the history
and the caches that feed it.

Two LRU caches (100 entries each): whole inheritance results keyed by the message's hash, its
explicit files, the round count and how many rounds have ended (hit when a question is previewed
— while it is typed — and then asked); per-round (similarity, overlap) keyed by message, the
files it mentions, the round index and whether that round has ended (hit when a question comes
back in a later round: only the new rounds are scored). Messages are hashed whole
(``query_hash(limit=None)``): two long pasted messages sharing their first 256 characters must
not share a result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from reviewtui.conversation import inheritance
from reviewtui.conversation.inheritance import InheritedFile, ScoredRound, file_overlap
from reviewtui.conversation.keywords import (
    FileIndex,
    file_references,
    keywords,
    query_hash,
    similarity,
)
from reviewtui.conversation.lru import CacheStats, LRUCache
from reviewtui.sessions.records import RoundRecord

__all__ = ["RoundContext", "RoundManager", "iso_time"]

@dataclass(frozen=True)
class RoundContext:
    index: int
    keywords: tuple[str, ...]
    mentioned_files: tuple[str, ...]
    inherited: tuple[InheritedFile, ...]
    threshold: float
    cache_hit: bool


def iso_time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")


def _merge(*groups: Collection[str]) -> list[str]:
    return list(dict.fromkeys(item for group in groups for item in group if item))


class RoundManager:
    """The rounds of one conversation, and what each new round inherits from them.

    Not thread-safe by itself (one chat session drives it); ``cache_stats`` may be read from
    any thread. A round that was started but never ended (an error, a crash) stays in the
    history with ``ended_at`` unset; the next ``start_round`` simply takes the next index.
    """

    def __init__(self, rounds: Sequence[RoundRecord] = (), *,
                 known_files: Collection[str] = (), now: Callable[[], float] = time.time,
                 max_inherited: int = 20, base_threshold: float = 0.4,
                 half_life_rounds: float = 4.0, cache_size: int = 100) -> None:
        self._rounds: list[RoundRecord] = sorted(rounds, key=lambda record: record.index)
        self._current: int | None = None  # position in _rounds of the round in flight
        self._files = FileIndex(known_files)
        for record in self._rounds:
            self._files.add(record.files)
        self._now = now
        self.max_inherited = max_inherited
        self.base_threshold = base_threshold
        self.half_life_rounds = half_life_rounds
        self._inheritance: LRUCache[tuple[str, int, int, tuple[str, ...]],
                                    tuple[tuple[InheritedFile, ...], float]] = LRUCache(cache_size)
        self._relevance: LRUCache[tuple[str, tuple[str, ...], int, bool],
                                  tuple[float, float]] = LRUCache(cache_size)
        self._words: dict[int, list[str]] = {}  # keywords of rounds stored without them
        self._ended = 0  # end_round calls: a cached result from before one is stale
        self._citations: dict[tuple[int, bool], set[str]] = {}

    # -- the history ---------------------------------------------------------------------------
    @property
    def rounds(self) -> list[RoundRecord]:
        """Every round so far, the one in flight last (a copy: edit through the methods)."""
        return list(self._rounds)

    @property
    def current(self) -> RoundRecord | None:
        """The round in flight (started, not yet ended), if any."""
        return self._rounds[self._current] if self._current is not None else None

    def set_summary(self, index: int, summary: str) -> None:
        """Remember a round's summary (the store persists it separately)."""
        for position, record in enumerate(self._rounds):
            if record.index == index:
                self._rounds[position] = record.model_copy(update={"summary": summary})
                return
        raise KeyError(f"no round {index}")

    def sync(self, stored: Sequence[RoundRecord]) -> None:
        """Take the session's rounds as the store has them now: other processes (the workbench,
        another ``reviewtui ask``) may have added rounds since. The store numbers rounds, so an
        index names the same round everywhere; a result cached before new rounds came in is
        not used again. Call it between rounds, not with one in flight."""
        fresh = sorted(stored, key=lambda record: record.index)
        if [(r.index, r.ended_at) for r in fresh] == [(r.index, r.ended_at)
                                                     for r in self._rounds]:
            return
        self._rounds = fresh
        self._current = None
        self._ended += 1
        for record in fresh:
            self._files.add(record.files)

    def renumber(self, index: int) -> RoundRecord:
        """Give the round in flight the index the store allotted it (``open_round``)."""
        if self._current is None:
            raise RuntimeError("no round in flight: call start_round first")
        record = self._rounds[self._current].model_copy(update={"index": index})
        self._rounds[self._current] = record
        return record

    def cache_stats(self) -> dict[str, CacheStats]:
        return {"inheritance": self._inheritance.stats(), "relevance": self._relevance.stats()}

    # -- one round -----------------------------------------------------------------------------
    def files_in(self, text: str) -> list[str]:
        """Files ``text`` mentions: known ones resolved to their paths (also by unique basename
        or ``path:line``), plus path-looking references to files nobody has seen yet."""
        found = self._files.mentioned(text)
        for reference in file_references(text):
            path = reference.split("#L", 1)[0]
            path = path.split(":", 1)[0]
            if self._files.resolve(path) is None:
                found.append(path.removeprefix("./"))
        return _merge(found)

    def preview(self, message: str, *, files: Collection[str] = ()) -> RoundContext:
        """What a round for ``message`` would inherit now, without starting it (the UI can show
        it while the question is typed; the following ``start_round`` is then a cache hit)."""
        index = self._rounds[-1].index + 1 if self._rounds else 0
        return self._context(message, files, index)

    def start_round(self, message: str, *, files: Collection[str] = (),
                    units: Collection[str] = (),
                    continues: int | None = None) -> tuple[RoundRecord, RoundContext]:
        """Open a round for ``message``; ``files`` are files the UI says it is about (e.g. the
        focused unit's); ``continues``: the round whose unfinished answer this one goes on
        with. Returns the in-flight record and what it inherits."""
        index = self._rounds[-1].index + 1 if self._rounds else 0
        # a continuation's words are a fixed "go on": what it is about, and so what it
        # inherits, is the question whose answer it goes on with
        topic = self._question_continued(continues) if continues is not None else None
        context = self._context(topic if topic is not None else message, files, index)
        record = RoundRecord(index=index, user_message=message, keywords=list(context.keywords),
                             files=list(context.mentioned_files), units=_merge(units),
                             inherited_files=[f.path for f in context.inherited],
                             started_at=iso_time(self._now()), continues=continues)
        self._rounds.append(record)
        self._current = len(self._rounds) - 1
        return record, context

    def _question_continued(self, index: int) -> str | None:
        """The question a chain of continuations ending at round ``index`` goes on answering."""
        by_index = {record.index: record for record in self._rounds}
        record, seen = by_index.get(index), set()
        while record is not None and record.continues is not None and record.index not in seen:
            seen.add(record.index)
            record = by_index.get(record.continues)
        return record.user_message if record is not None else None

    def _context(self, message: str, files: Collection[str], index: int) -> RoundContext:
        words = keywords(message)
        explicit = tuple(sorted(set(files)))
        mentioned = _merge(self.files_in(message), explicit)
        key = (query_hash(message, limit=None), len(self._rounds), self._ended, explicit)
        cached = self._inheritance.get(key)
        hit = cached is not None
        if cached is None:
            cached = self._inherit(message, words, mentioned, index)
            self._inheritance.put(key, cached)
        inherited, threshold = cached
        return RoundContext(index=index, keywords=tuple(words), mentioned_files=tuple(mentioned),
                            inherited=inherited, threshold=threshold, cache_hit=hit)

    def end_round(self, answer: str, *, files_used: Collection[str] = (),
                  units: Collection[str] = (),
                  usage: tuple[int, int, int] = (0, 0, 0),
                  cut_off: bool = False, truncated: bool = False,
                  interrupted: bool = False, filtered: bool = False) -> RoundRecord:
        """Complete the round in flight: the answer, the files the tools read and the files the
        answer mentions, units, token usage (prompt, completion, cached), ``ended_at``, and
        whether the answer was ``cut_off`` by the server (``filtered``: by the provider's content
        filter), ``truncated`` by the model's output token limit or ``interrupted`` by the
        person."""
        if self._current is None:
            raise RuntimeError("no round in flight: call start_round first")
        record = self._rounds[self._current]
        answered = _merge(files_used, self.files_in(answer))
        # a file the question named but nobody knew then ("views.py"), that the tools or the
        # answer gave as a path (app/views.py), is that path: the bare name names no file
        found = FileIndex(answered)
        asked = [path if path in self._files else found.resolve(path) or path
                 for path in record.files]
        files = _merge(asked, answered)
        prompt, completion, cached = usage
        done = record.model_copy(update={
            "answer": answer, "files": files, "units": _merge(record.units, units),
            "prompt_tokens": prompt, "completion_tokens": completion, "cached_tokens": cached,
            "ended_at": iso_time(self._now()), "cut_off": cut_off, "truncated": truncated,
            "interrupted": interrupted, "filtered": filtered,
        })
        self._rounds[self._current] = done
        self._current = None
        self._ended += 1
        self._files.add(files)
        return done

    # -- inheritance ---------------------------------------------------------------------------
    def decay(self, rounds_ago: int) -> float:
        return inheritance.decay(rounds_ago, self.half_life_rounds)

    def threshold(self, recent: Sequence[float]) -> float:
        """The dynamic threshold for the relevances of the most recent rounds."""
        return inheritance.threshold(recent, self.base_threshold)

    def _cited(self, record: RoundRecord) -> set[str]:
        """The files a round's question or answer names (not only read by its tools)."""
        key = (record.index, record.ended_at is None)
        if key not in self._citations:
            self._citations[key] = set(self.files_in(record.user_message + "\n" + record.answer))
        return self._citations[key]

    def _parts(self, message: str, words: Sequence[str], mentioned: Sequence[str],
               record: RoundRecord) -> tuple[float, float]:
        key = (query_hash(message, limit=None), tuple(sorted(mentioned)), record.index,
               record.ended_at is None)
        parts = self._relevance.get(key)
        if parts is None:
            theirs = record.keywords or self._words.get(record.index)
            if theirs is None:
                theirs = self._words[record.index] = keywords(record.user_message)
            parts = (similarity(words, theirs), file_overlap(mentioned, record.files))
            self._relevance.put(key, parts)
        return parts

    def _inherit(self, message: str, words: Sequence[str], mentioned: Sequence[str],
                 index: int) -> tuple[tuple[InheritedFile, ...], float]:
        scored: list[ScoredRound] = []
        for record in self._rounds:
            sim, overlap = self._parts(message, words, mentioned, record)
            decay = self.decay(index - record.index)
            scored.append((record, inheritance.relevance(sim, overlap, decay), sim, overlap, decay))
        return inheritance.inherit(scored, base_threshold=self.base_threshold,
                                   max_inherited=self.max_inherited, cited=self._cited)
