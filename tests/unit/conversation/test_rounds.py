"""Rounds and context inheritance (seed 004): relevance, dynamic threshold, cap, caches."""

from __future__ import annotations

import pytest

from reviewtui.conversation.rounds import RoundManager
from reviewtui.sessions.records import RoundRecord

KNOWN = ["src/auth.py", "src/session.py", "src/payments.py", "README.md", "docs/install.md"]

HISTORY = [
    ("Is the login check in src/auth.py safe? It compares the password with ==.",
     "No: it should use hmac.compare_digest; the bug is at src/auth.py:42. The session "
     "cookie in src/session.py is fine.", ["src/auth.py", "src/session.py"]),
    ("Does payments.py round currency amounts correctly?",
     "It rounds floats; must use Decimal (src/payments.py:88).", ["src/payments.py"]),
    ("Fix the typo in the README install section.",
     "Fixed README.md#L12; docs/install.md has the same text.", []),
]


class Clock:
    def __init__(self) -> None:
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        self.t += 30.0
        return self.t


def manager(**kwargs: object) -> RoundManager:
    rounds = RoundManager(known_files=KNOWN, now=Clock(), **kwargs)  # type: ignore[arg-type]
    for question, answer, used in HISTORY:
        rounds.start_round(question)
        rounds.end_round(answer, files_used=used)
    return rounds


def test_start_and_end_record_the_round() -> None:
    rounds = RoundManager(known_files=KNOWN, now=Clock())
    record, context = rounds.start_round("Why does getUserName fail in src/auth.py?",
                                         files=["src/session.py"], units=["u1"])
    assert record.index == context.index == 0
    assert record.user_message == "Why does getUserName fail in src/auth.py?"
    assert record.keywords == list(context.keywords)
    assert {"getusername", "fail", "src/auth.py"} <= set(record.keywords)
    assert record.files == ["src/auth.py", "src/session.py"] == list(context.mentioned_files)
    assert record.units == ["u1"]
    assert record.started_at.startswith("2023-11-14T22:") and record.ended_at is None
    assert context.inherited == () and context.threshold == 0.4 and not context.cache_hit
    assert rounds.current == record and rounds.rounds == [record]

    done = rounds.end_round("The bug is in README.md and src/payments.py:3.",
                            files_used=["lib/extra.py"], units=["u2"], usage=(100, 20, 64))
    assert done.answer.startswith("The bug")
    assert done.files == ["src/auth.py", "src/session.py", "lib/extra.py", "README.md",
                          "src/payments.py"]
    assert done.units == ["u1", "u2"]
    assert (done.prompt_tokens, done.completion_tokens, done.cached_tokens) == (100, 20, 64)
    assert done.ended_at is not None and done.ended_at > done.started_at
    assert rounds.current is None and rounds.rounds == [done]
    with pytest.raises(RuntimeError):
        rounds.end_round("again")


def test_login_question_inherits_auth_files_not_readme() -> None:
    rounds = manager()
    record, context = rounds.start_round("Does the login check reject a wrong password?")
    paths = [f.path for f in context.inherited]
    assert paths[0] == "src/auth.py"
    assert set(paths) == {"src/auth.py", "src/session.py"}
    assert "README.md" not in paths and "src/payments.py" not in paths
    top = context.inherited[0]
    assert top.from_round == 0 and top.overlap == 0.0 and top.similarity > 0.5
    assert top.score == pytest.approx(0.5 * top.similarity + 0.3 * top.overlap + 0.2 * top.decay,
                                      abs=1e-3)
    assert top.decay == pytest.approx(0.5 ** (2 / 4), abs=1e-4)  # 3 rounds ago, half-life 4
    assert top.score >= context.threshold
    assert record.inherited_files == paths


def test_file_overlap_brings_in_an_old_round() -> None:
    rounds = manager()
    _, context = rounds.start_round("What about payments.py?")
    [payments] = [f for f in context.inherited if f.path == "src/payments.py"]
    assert payments.overlap == 1.0 and payments.from_round == 1
    assert context.inherited[0].path == "src/payments.py"


def test_unrelated_question_raises_the_threshold_and_inherits_nothing() -> None:
    rounds = manager()
    _, context = rounds.start_round("Explain the kubernetes deployment manifests")
    assert context.threshold == pytest.approx(0.5)
    assert context.inherited == ()


def test_threshold_moves_with_recent_relevance() -> None:
    rounds = manager()
    related = rounds.preview("The README install section typo: fixed in README.md?")
    unrelated = rounds.preview("Explain the kubernetes deployment manifests")
    assert related.threshold < 0.4 < unrelated.threshold
    assert rounds.threshold([0.9]) == pytest.approx(0.3)  # floor
    assert rounds.threshold([0.35, 0.1]) == pytest.approx(0.35)
    assert rounds.threshold([0.3]) == pytest.approx(0.4)  # the pivot: the base
    assert rounds.threshold([0.25, 0.2]) == pytest.approx(0.45)
    assert rounds.threshold([0.0]) == pytest.approx(0.5)  # ceiling
    assert rounds.threshold([]) == 0.4


def test_at_most_twenty_files_best_first() -> None:
    many = [f"src/mod{n:02d}.py" for n in range(30)]
    rounds = RoundManager(now=Clock())
    rounds.start_round("Refactor the parser module")
    rounds.end_round("Touched the parser everywhere", files_used=many)
    rounds.start_round("Refactor the parser module tokenizer")
    rounds.end_round("Tokenizer done", files_used=["src/tokenizer.py"])
    _, context = rounds.start_round("Refactor the parser module again")
    assert len(context.inherited) == 20
    scores = [f.score for f in context.inherited]
    assert scores == sorted(scores, reverse=True)
    capped = RoundManager(now=Clock(), max_inherited=5)
    capped.start_round("Refactor the parser module")
    capped.end_round("ok", files_used=many)
    assert len(capped.start_round("Refactor the parser module")[1].inherited) == 5


def test_a_file_keeps_its_best_score() -> None:
    rounds = RoundManager(now=Clock())
    rounds.start_round("cache invalidation in src/cache.py")
    rounds.end_round("ok", files_used=["src/cache.py"])
    rounds.start_round("unrelated topic about logging setup")
    rounds.end_round("ok", files_used=["src/log.py", "src/cache.py"])
    _, context = rounds.start_round("cache invalidation again in src/cache.py")
    [cache] = [f for f in context.inherited if f.path == "src/cache.py"]
    assert cache.from_round == 0  # the round about the cache scores higher than the recent one


def test_cache_hits_on_a_repeated_query_and_stats() -> None:
    rounds = manager()
    first = rounds.preview("Does the login check reject a wrong password?")
    again = rounds.preview("  does the LOGIN check reject a wrong password? ")
    assert not first.cache_hit and again.cache_hit
    assert again.inherited == first.inherited and again.threshold == first.threshold
    _, started = rounds.start_round("Does the login check reject a wrong password?")
    assert started.cache_hit and started.inherited == first.inherited
    stats = rounds.cache_stats()
    assert set(stats) == {"inheritance", "relevance"}
    inheritance = stats["inheritance"]
    assert inheritance.hits == 2 and inheritance.maxsize == 100
    assert inheritance.hit_rate == pytest.approx(inheritance.hits / (inheritance.hits
                                                                     + inheritance.misses))
    # the next round asks the same thing: a new round count (miss) but per-round relevance hits
    rounds.end_round("ok")
    before = rounds.cache_stats()["relevance"].hits
    _, later = rounds.start_round("Does the login check reject a wrong password?")
    assert not later.cache_hit
    assert rounds.cache_stats()["relevance"].hits >= before + 3


def test_long_messages_sharing_a_prefix_do_not_share_a_cache_entry() -> None:
    rounds = manager()
    prefix = "traceback line\n" * 40
    one = rounds.preview(prefix + "about payments.py")
    two = rounds.preview(prefix + "about README.md")
    assert not two.cache_hit and one.inherited != two.inherited


def test_cache_is_a_bounded_lru() -> None:
    rounds = manager(cache_size=2)
    before = rounds.cache_stats()["inheritance"].evictions
    for question in ("alpha question", "beta question", "gamma question"):
        rounds.preview(question)
    assert rounds.cache_stats()["inheritance"].evictions == before + 3
    assert rounds.cache_stats()["inheritance"].size == 2
    assert not rounds.preview("alpha question").cache_hit


def test_loaded_history_and_summaries() -> None:
    stored = [RoundRecord(index=0, user_message="Is src/auth.py safe?", files=["src/auth.py"],
                          keywords=["src/auth.py", "auth.py", "src", "auth", "safe"],
                          answer="no", started_at="2024", ended_at="2024"),
              RoundRecord(index=1, user_message="And the auth tokens?", answer="fine",
                          started_at="2024", ended_at="2024")]  # no keywords: recomputed
    rounds = RoundManager(list(reversed(stored)), now=Clock())
    assert [r.index for r in rounds.rounds] == [0, 1]
    record, context = rounds.start_round("Are auth tokens checked in auth.py?")
    assert record.index == 2
    assert record.files == ["src/auth.py"]  # known from the history: resolved by basename
    assert [f.path for f in context.inherited] == ["src/auth.py"]
    rounds.set_summary(0, "Q: auth safe? | Findings: no")
    assert rounds.rounds[0].summary == "Q: auth safe? | Findings: no"
    assert stored[0].summary is None  # the caller's records are not changed
    with pytest.raises(KeyError):
        rounds.set_summary(9, "x")


def test_a_round_never_ended_stays_and_the_next_one_moves_on() -> None:
    rounds = RoundManager(now=Clock())
    first, _ = rounds.start_round("question that failed")
    second, _ = rounds.start_round("question that failed")
    assert (first.index, second.index) == (0, 1)
    assert rounds.rounds[0].ended_at is None
    done = rounds.end_round("answer")
    assert done.index == 1


def test_a_round_ending_makes_cached_results_stale() -> None:
    rounds = RoundManager(known_files=KNOWN, now=Clock())
    rounds.start_round("Is the login check in src/auth.py safe?")
    early = rounds.preview("Is the login check in src/auth.py safe now?")
    assert [f.path for f in early.inherited] == ["src/auth.py"]
    rounds.end_round("See also src/session.py:10.")
    later = rounds.preview("Is the login check in src/auth.py safe now?")
    assert not later.cache_hit
    assert [f.path for f in later.inherited] == ["src/auth.py", "src/session.py"]
    _, started = rounds.start_round("Is the login check in src/auth.py safe now?")
    assert started.cache_hit and started.inherited == later.inherited


def test_follow_up_inherits_cited_files_first() -> None:
    rounds = RoundManager(known_files=["app/service.py", "app/views.py"], now=Clock())
    rounds.start_round("Who calls charge?")
    rounds.end_round("pay() in app/views.py:5 calls charge(10), so it now pays 30.",
                     files_used=["app/service.py", "app/views.py"])
    _, context = rounds.start_round("Does the charge change break pay?")
    assert [f.path for f in context.inherited] == ["app/views.py", "app/service.py"]
    assert context.inherited[0].similarity == pytest.approx(1 / 3, abs=1e-3)


def test_a_basename_the_answer_resolves_is_kept_as_the_path_only() -> None:
    """A question naming a file outside the change by its basename ("views.py") kept that
    bare name beside the path the answer gave (app/views.py): later rounds were told to look
    at a "views.py" that does not exist."""
    rounds = RoundManager(known_files=["app/service.py"], now=Clock())
    rounds.start_round("Does views.py still call charge?")
    done = rounds.end_round("Yes: app/views.py:5 calls charge(10).")
    assert done.files == ["app/views.py"]
    _, context = rounds.start_round("And what does views.py pay now?")
    assert [f.path for f in context.inherited] == ["app/views.py"]


def test_a_reference_nothing_resolves_is_kept_as_given() -> None:
    rounds = RoundManager(known_files=["app/service.py"], now=Clock())
    rounds.start_round("What is in lib/util.py?")
    assert rounds.end_round("I did not look.").files == ["lib/util.py"]


def test_a_continuation_inherits_for_the_question_it_goes_on_answering() -> None:
    """A continuation's relevance was taken from the fixed "go on" prompt: it inherited
    nothing of the answer it continued, and the next continuation matched the first one word
    for word -- the rest of an answer about payments was sent with src/auth.py as context."""
    rounds = RoundManager(known_files=KNOWN, now=Clock())
    go_on = "Your previous answer stopped before it was finished. Continue it."
    rounds.start_round("Is the login check in src/auth.py safe?")
    rounds.end_round("No: src/auth.py:42 compares with ==, and", cut_off=True)
    _, first = rounds.start_round(go_on, continues=0)
    assert [f.path for f in first.inherited] == ["src/auth.py"]
    rounds.end_round(" it should use hmac.compare_digest.")
    rounds.start_round("Does payments.py round currency amounts correctly?")
    rounds.end_round("It rounds floats in src/payments.py:88; it", truncated=True)
    _, second = rounds.start_round(go_on, continues=2)
    assert [f.path for f in second.inherited] == ["src/payments.py"]
    rounds.end_round(" must use Decimal.")
    _, third = rounds.start_round(go_on, continues=3)  # a continuation of a continuation
    assert [f.path for f in third.inherited] == ["src/payments.py"]
