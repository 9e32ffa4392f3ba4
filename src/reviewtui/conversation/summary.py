"""Summaries of old rounds: the long-term layer of the prompt (seed 002).

Rounds that fall out of the recent window are sent as one line each. What must survive is what a
later answer builds on: the question, the decisions and findings, and every code reference
(``path:line``, ``path#Lx``, file names) — so a reviewer's "the bug at auth.py:42" is still
resolvable ten rounds later. ``extractive_summary`` does this by rules (deterministic, free, no
model); ``Summarizer`` asks the model for a shorter, better-written one when there is a client,
puts back any file reference the model dropped, and falls back to the extractive one on any LLM
error.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from reviewtui.conversation.keywords import file_references
from reviewtui.errors import LLMCancelledError, LLMError
from reviewtui.llm.types import ChatResult
from reviewtui.sessions.records import MessageRecord, RoundRecord

__all__ = ["ChatClient", "Summarizer", "extractive_summary", "references", "truncate_tokens"]

QUESTION_CHARS = 160
FINDING_CHARS = 220

_FINDING = re.compile(
    r"\b(?:must|should(?:n't)?|needs? to|bugs?|issues?|fix(?:es|ed)?|decid\w*|decisions?|"
    r"findings?|found|risks?|risky|vulnerab\w*|broken|incorrect|wrong|unsafe|leaks?|race|"
    r"regression|P[0-3])\b|风险|问题|建议|结论|决定|必须|应该|修复|漏洞|错误|缺陷",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")

SUMMARY_PROMPT = """\
You summarise one round of a code-review conversation so that later rounds can rely on it. \
Write at most {words} words, plain text, no preamble. Keep every decision, finding and \
recommendation, and copy every file reference (path:line, path#Lx, file names) exactly."""


class ChatClient(Protocol):
    """What ``Summarizer`` needs of ``LLMClient`` (tests pass a small fake)."""

    def chat(self, messages: Sequence[Mapping[str, Any]], *,
             max_tokens: int | None = None,
             cancel: threading.Event | None = None) -> ChatResult: ...


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 1)]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = _BULLET.sub("", piece).strip().strip("*_`#> ").strip()
        if piece and not piece.startswith("```"):
            out.append(piece)
    return out


def references(texts: Sequence[str]) -> list[str]:
    """Every file reference in ``texts``, in order, without duplicates; a bare path is left
    out when a ``path:line`` or ``path#Lx`` reference to it is there."""
    refs = list(dict.fromkeys(ref for text in texts for ref in file_references(text)))
    anchored = {ref.split("#L", 1)[0].split(":", 1)[0] for ref in refs
                if "#L" in ref or ":" in ref}
    return [ref for ref in refs if ref not in anchored]


def _dialogue(record: RoundRecord, messages: Sequence[MessageRecord]) -> tuple[str, list[str]]:
    """The question and the assistant's texts (tool outputs are not the round's conclusions)."""
    question = next((m.content for m in messages if m.role == "user"), record.user_message)
    answers = [m.content for m in messages if m.role == "assistant" and m.content]
    if record.answer and record.answer not in answers:
        answers.append(record.answer)
    return question or record.user_message, answers


def extractive_summary(round: RoundRecord, messages: Sequence[MessageRecord], *,
                       max_chars: int = 600) -> str:
    """``Q: … | Findings: … | Refs: …`` in at most ``max_chars`` characters, deterministic.

    References come first in the budget (up to half of it, then ``+N more``), the question is
    cut to 160 characters, and the findings — sentences of the answers that state a decision,
    a finding or a fix — fill the rest; without any, the answer's first sentences stand in.
    """
    question, answers = _dialogue(round, messages)
    refs = references([question, *answers])
    refs_part = ""
    if refs:
        shown: list[str] = []
        for number, ref in enumerate(refs):
            rest = len(refs) - number - 1
            candidate = "Refs: " + ", ".join([*shown, ref]) + (f" +{rest} more" if rest else "")
            if len(candidate) > max_chars // 2 and shown:
                break
            shown.append(ref)
        extra = len(refs) - len(shown)
        refs_part = "Refs: " + ", ".join(shown) + (f" +{extra} more" if extra else "")
    room = max_chars - len(refs_part) - (3 if refs_part else 0)
    question_part = "Q: " + _shorten(question, max(8, min(QUESTION_CHARS, room // 2) - 3))
    room -= len(question_part) + 3
    sentences = [s for text in answers for s in _sentences(text)]
    findings = list(dict.fromkeys(s for s in sentences if _FINDING.search(s)))
    label = "Findings: "
    if not findings:
        findings, label = sentences[:2], "A: "
    body: list[str] = []
    used = len(label)
    for finding in findings:
        short = _shorten(finding, FINDING_CHARS)
        if used + len(short) + 1 > room:
            if not body and room - used > 20:
                body.append(_shorten(finding, room - used))
            break
        body.append(short)
        used += len(short) + 1
    parts = [question_part]
    if body:
        parts.append(label + " ".join(body))
    if refs_part:
        parts.append(refs_part)
    return " | ".join(parts)[:max_chars]


def truncate_tokens(text: str, max_tokens: int, count: Callable[[str], int],
                    marker: str = "", *, partial_line: bool = False) -> str:
    """The longest line-boundary prefix of ``text`` that, with ``marker`` appended when it is
    cut, fits in ``max_tokens`` (the first line is cut mid-line if it alone does not fit;
    with ``partial_line``, the line after the last whole one fills what room is left)."""
    if max_tokens <= 0 or not text:
        return ""
    if count(text) <= max_tokens:
        return text
    room = max_tokens - (count(marker) + 1 if marker else 0)
    if room <= 0:
        return ""
    lines = text.splitlines(keepends=True)
    low, high = 0, len(lines) - 1  # how many whole lines fit (not all of them: checked above)
    while low < high:
        middle = (low + high + 1) // 2
        if count("".join(lines[:middle])) <= room:
            low = middle
        else:
            high = middle - 1
    kept = "".join(lines[:low])
    if not low or partial_line:  # a line too long to keep whole: its head
        line, short, long_ = lines[low], 0, len(lines[low])
        while short < long_:
            middle = (short + long_ + 1) // 2
            if count(kept + line[:middle]) <= room:
                short = middle
            else:
                long_ = middle - 1
        kept += line[:short]
    if not kept:
        return ""
    if marker:
        kept = kept if kept.endswith("\n") else kept + "\n"
        kept += marker
    return kept


class Summarizer:
    """Summaries by the model when there is one, by rules otherwise or when the model fails."""

    def __init__(self, client: ChatClient | None, count: Callable[[str], int], *,
                 max_words: int = 80, max_input_tokens: int = 3000) -> None:
        self.client = client
        self.count = count
        self.max_words = max_words
        self.max_input_tokens = max_input_tokens

    def transcript(self, round: RoundRecord, messages: Sequence[MessageRecord]) -> str:
        lines: list[str] = []
        for message in messages or [MessageRecord(round_index=round.index, role="user",
                                                  content=round.user_message)]:
            if message.role == "tool":
                lines.append(f"[tool {message.name or ''}] {_shorten(message.content, 300)}")
            elif message.content:
                lines.append(f"{message.role.capitalize()}: {message.content}")
        if round.answer and all(round.answer not in line for line in lines):
            lines.append(f"Assistant: {round.answer}")
        # an answer in one long paragraph: its start, not nothing
        return truncate_tokens("\n".join(lines), self.max_input_tokens, self.count,
                               "[… transcript shortened]", partial_line=True)

    def summarize(self, round: RoundRecord, messages: Sequence[MessageRecord], *,
                  cancel: threading.Event | None = None) -> str:
        """The round's summary; ``LLMCancelledError`` when ``cancel`` stops the request (no
        summary then: the one by rules would be kept as if the model had failed)."""
        extractive = extractive_summary(round, messages)
        if self.client is None:
            return extractive
        request = [
            {"role": "system", "content": SUMMARY_PROMPT.format(words=self.max_words)},
            {"role": "user", "content": self.transcript(round, messages)},
        ]
        try:
            result = self.client.chat(request, max_tokens=4 * self.max_words, cancel=cancel)
        except LLMCancelledError:
            raise
        except LLMError:
            return extractive
        text = " ".join((result.content or "").split())
        if not text:
            return extractive
        words = text.split(" ")
        if len(words) > 2 * self.max_words:  # a model that ignored the limit
            text = " ".join(words[: 2 * self.max_words]) + " …"
        missing = [ref for ref in references([extractive]) if ref not in text]
        if missing:
            text += " Refs: " + ", ".join(missing)
        return text
