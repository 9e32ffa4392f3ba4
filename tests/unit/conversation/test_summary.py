"""Summaries of old rounds: extractive by rules, or by the model with references put back."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from reviewtui.config import LLMSettings
from reviewtui.conversation.summary import Summarizer, extractive_summary, truncate_tokens
from reviewtui.errors import LLMRateLimitError
from reviewtui.llm import ChatResult, resolve_llm, token_counter
from reviewtui.llm.client import LLMClient
from reviewtui.sessions.records import MessageRecord, RoundRecord
from tests.support.openai_server import Reply, ScriptedOpenAIServer

QUESTION = ("Can you check whether the session handling in src/auth/session.py is safe when "
            "two requests refresh the same token at the same time, and what we should do?")
ANSWER = (
    "I read the refresh path. The token is looked up and then rewritten without a lock.\n"
    "- P1: race condition at src/auth/session.py:118 — two refreshes can both succeed.\n"
    "- The fix should wrap the lookup and update in one transaction (see db.py#L40-L52).\n"
    "Everything else in the module looks fine. I also looked at the tests in passing.\n"
    "We decided to keep the cookie format unchanged."
)


def round_and_messages() -> tuple[RoundRecord, list[MessageRecord]]:
    record = RoundRecord(index=4, user_message=QUESTION, answer=ANSWER)
    messages = [
        MessageRecord(round_index=4, role="user", content=QUESTION),
        MessageRecord(round_index=4, role="assistant", content="",
                      tool_calls=[{"id": "c1", "type": "function",
                                   "function": {"name": "search_in_project",
                                                "arguments": "{}"}}]),
        MessageRecord(round_index=4, role="tool", tool_call_id="c1", name="search_in_project",
                      content="noise/file.py:1: refresh\nother/thing.py:9: refresh"),
        MessageRecord(round_index=4, role="assistant", content=ANSWER),
    ]
    return record, messages


def test_extractive_keeps_question_findings_and_references() -> None:
    record, messages = round_and_messages()
    summary = extractive_summary(record, messages)
    assert len(summary) <= 600
    assert summary.startswith("Q: Can you check whether the session handling")
    assert "P1: race condition at src/auth/session.py:118" in summary
    assert "fix should wrap the lookup" in summary
    assert "decided to keep the cookie format" in summary
    assert "Everything else in the module looks fine" not in summary  # not a finding
    refs = summary.split("Refs: ")[1]
    assert refs.split(", ") == ["src/auth/session.py:118", "db.py#L40-L52"]
    assert "noise/file.py" not in summary  # tool output is not the round's conclusion
    assert extractive_summary(record, messages) == summary  # deterministic


def test_extractive_is_bounded_and_references_survive() -> None:
    record, messages = round_and_messages()
    short = extractive_summary(record, messages, max_chars=200)
    assert len(short) <= 200
    assert "src/auth/session.py:118" in short and "db.py#L40-L52" in short
    many = RoundRecord(index=0, user_message="where?",
                       answer=" ".join(f"pkg/m{n}.py:{n}" for n in range(80)))
    summary = extractive_summary(many, [], max_chars=300)
    assert len(summary) <= 300 and "pkg/m0.py:0" in summary and "more" in summary


def test_extractive_without_findings_uses_the_answer_and_chinese_findings() -> None:
    plain = RoundRecord(index=0, user_message="What does utils.py do?",
                        answer="It formats dates. It also parses durations. And more.")
    assert extractive_summary(plain, []) == ("Q: What does utils.py do? | A: It formats dates. "
                                             "It also parses durations. | Refs: utils.py")
    chinese = RoundRecord(index=1, user_message="登录函数为什么报错？",
                          answer="看过了。问题在 src/login.py:12，建议先判空。其余正常。")
    summary = extractive_summary(chinese, [])
    assert "问题在 src/login.py:12，" in summary and "建议先判空。" in summary
    assert "其余正常" not in summary


class FakeClient:
    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.requests: list[list[Mapping[str, Any]]] = []

    def chat(self, messages: Sequence[Mapping[str, Any]], *,
             max_tokens: int | None = None,
             cancel: threading.Event | None = None) -> ChatResult:
        self.requests.append(list(messages))
        if isinstance(self.reply, Exception):
            raise self.reply
        return ChatResult(content=self.reply, tool_calls=(), finish_reason="stop", usage=None,
                          model="fake")


def test_model_summary_gets_dropped_references_back() -> None:
    record, messages = round_and_messages()
    client = FakeClient("Race on token refresh (P1) at src/auth/session.py:118; fix with one "
                        "transaction. Cookie format unchanged.")
    summary = Summarizer(client, token_counter(None).count).summarize(record, messages)
    assert summary.startswith("Race on token refresh (P1) at src/auth/session.py:118;")
    assert summary.endswith(" Refs: db.py#L40-L52")
    [request] = client.requests
    assert "80 words" in request[0]["content"]
    assert QUESTION in request[1]["content"] and "[tool search_in_project]" in request[1]["content"]


def test_model_summary_with_every_reference_is_kept_as_is() -> None:
    record, messages = round_and_messages()
    text = "Race at src/auth/session.py:118; fix per db.py#L40-L52."
    assert Summarizer(FakeClient(text), len).summarize(record, messages) == text


def test_no_client_error_or_empty_answer_gives_the_extractive_summary() -> None:
    record, messages = round_and_messages()
    expected = extractive_summary(record, messages)
    assert Summarizer(None, len).summarize(record, messages) == expected
    failing = FakeClient(LLMRateLimitError("slow down"))
    assert Summarizer(failing, len).summarize(record, messages) == expected
    assert Summarizer(FakeClient("   "), len).summarize(record, messages) == expected


def test_with_the_real_client_over_http(fake_llm: ScriptedOpenAIServer) -> None:
    record, messages = round_and_messages()
    fake_llm.script(Reply.text("Token refresh race at src/auth/session.py:118."),
                    Reply.error(500, "boom"))
    client = LLMClient(resolve_llm(LLMSettings(timeout=5.0, max_retries=0)))
    summarizer = Summarizer(client, token_counter("test-model").count)
    summary = summarizer.summarize(record, messages)
    assert summary == "Token refresh race at src/auth/session.py:118. Refs: db.py#L40-L52"
    body = fake_llm.requests[0].body
    assert body["messages"][0]["role"] == "system" and body["max_tokens"] == 320
    assert summarizer.summarize(record, messages) == extractive_summary(record, messages)


def test_truncate_tokens() -> None:
    text = "".join(f"line {n}\n" for n in range(100))
    count = token_counter(None).count
    cut = truncate_tokens(text, 50, count, "[cut]")
    assert count(cut) <= 50 and cut.endswith("[cut]") and cut.startswith("line 0\n")
    assert truncate_tokens(text, 10_000, count, "[cut]") == text
    assert truncate_tokens("x" * 1000, 5, count) == "x" * len(truncate_tokens("x" * 1000, 5,
                                                                              count))
    assert count(truncate_tokens("x" * 1000, 5, count)) <= 5
    assert truncate_tokens(text, 0, count) == ""


def test_a_transcript_over_the_limit_keeps_the_start_of_a_long_answer() -> None:
    """An answer written as one long paragraph did not fit whole, so the transcript the model
    was asked to summarise held the question alone: the summary said nothing of the answer."""
    count = token_counter(None).count
    answer = "The refresh at src/auth/session.py:118 races. " + "It rewrites the token. " * 400
    record = RoundRecord(index=0, user_message="Is refresh safe?", answer=answer)
    messages = [MessageRecord(round_index=0, role="user", content="Is refresh safe?"),
                MessageRecord(round_index=0, role="assistant", content=answer)]
    transcript = Summarizer(None, count, max_input_tokens=300).transcript(record, messages)
    assert count(transcript) <= 300
    assert transcript.startswith("User: Is refresh safe?\nAssistant: The refresh at "
                                 "src/auth/session.py:118 races.")
    assert transcript.endswith("[… transcript shortened]")
