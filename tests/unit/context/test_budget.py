"""The token budget: whole, clipped at line boundaries or dropped, and always accounted for."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from reviewtui.context.budget import (
    Fitter,
    Piece,
    Rendering,
    clip_marker,
    clip_text,
    fit_pieces,
)
from reviewtui.models import BudgetAccount


def words(text: str) -> int:
    return len(text.split())


def quarter(text: str) -> int:
    return (len(text) + 3) // 4


COUNTERS: list[Callable[[str], int]] = [words, quarter]


def lines(prefix: str, count: int) -> str:
    return "\n".join(f"{prefix} line {i} alpha beta" for i in range(count))


def hunk(name: str, count: int) -> str:
    return "\n".join([f"@@ a.py:L{count} @@", f"@@ -1,{count} +1,{count} @@",
                      *(f"    {i}     {i} +{name} {i} gamma delta" for i in range(count))])


def _status(account: BudgetAccount, name: str) -> str:
    return next(p.status for p in account.pieces if p.name == name)


@pytest.mark.parametrize("count", COUNTERS)
def test_everything_fits(count: Callable[[str], int]) -> None:
    pieces = [Piece("diff", lines("d", 5), 0), Piece("function_context", lines("f", 5), 1)]
    texts, account = fit_pieces(pieces, 10_000, count, "test")
    assert texts == {"diff": pieces[0].text, "function_context": pieces[1].text}
    assert [p.status for p in account.pieces] == ["included", "included"]
    assert account.used == sum(count(p.text or "") for p in pieces)
    assert account.limit == 10_000 and account.counter == "test"
    assert all(p.tokens == p.original_tokens for p in account.pieces)


@pytest.mark.parametrize("count", COUNTERS)
def test_included_clipped_dropped_and_empty(count: Callable[[str], int]) -> None:
    diff = lines("d", 10)
    context = lines("f", 200)
    previous = lines("p", 50)
    caller = lines("c", 2)
    limit = count(diff) + count(context) // 3
    pieces = [
        Piece("previous_version", previous, 2, clip=False),
        Piece("function_context", context, 1),
        Piece("callers[0]", caller, 3),
        Piece("diff", diff, 0),
        Piece("search[0]", None, 3),
        Piece("scanner_issues", "", 4),
    ]
    texts, account = fit_pieces(pieces, limit, count, "test")
    assert [p.name for p in account.pieces] == [p.name for p in pieces]  # the given order
    assert _status(account, "diff") == "included"
    assert _status(account, "function_context") == "clipped"
    assert _status(account, "previous_version") == "dropped"
    assert _status(account, "search[0]") == "empty"
    assert _status(account, "scanner_issues") == "empty"
    assert texts["previous_version"] is None and texts["search[0]"] is None
    assert account.used <= limit
    assert account.used == sum(p.tokens for p in account.pieces)
    clipped = texts["function_context"]
    assert clipped is not None
    kept = clipped.split("\n")
    assert kept[-1].startswith("… clipped: ") and kept[-1].endswith("more lines")
    assert kept[:-1] == context.split("\n")[: len(kept) - 1]  # whole lines, the head
    assert kept[-1] == clip_marker(200 - (len(kept) - 1))
    record = next(p for p in account.pieces if p.name == "function_context")
    assert record.tokens == count(clipped) < record.original_tokens
    assert record.note == f"kept {len(kept) - 1} of 200 lines"
    dropped = next(p for p in account.pieces if p.name == "previous_version")
    assert dropped.tokens == 0 and dropped.original_tokens == count(previous)


def test_a_small_piece_still_fits_after_a_big_one_is_dropped() -> None:
    pieces = [Piece("diff", "a b c", 0), Piece("full_file", lines("x", 500), 1, clip=False),
              Piece("callers[0]", "one two", 3)]
    texts, account = fit_pieces(pieces, 20, words, "w")
    assert [p.status for p in account.pieces] == ["included", "dropped", "included"]
    assert texts["callers[0]"] == "one two"


@pytest.mark.parametrize("count", COUNTERS)
def test_the_diff_is_never_dropped(count: Callable[[str], int]) -> None:
    diff = lines("d", 300)
    for limit in (0, 1, 3, 10, 50, 400):
        texts, account = fit_pieces([Piece("diff", diff, 0, clip=False),
                                     Piece("function_context", "x y", 1)], limit, count, "t")
        assert texts["diff"] is not None
        assert _status(account, "diff") == "clipped"
        assert account.used <= limit
        assert count(texts["diff"]) <= limit


def test_a_long_single_line_diff_is_cut_inside_the_line() -> None:
    diff = "word " * 100 + "\nsecond line"
    texts, account = fit_pieces([Piece("diff", diff, 0)], 30, words, "w")
    text = texts["diff"]
    assert text is not None and text.startswith("word word") and text.endswith("more lines")
    assert account.used <= 30


def test_whole_hunks_are_kept_before_one_is_cut() -> None:
    small_a, big, small_c = hunk("a", 3), hunk("b", 200), hunk("c", 3)
    diff = "\n".join([small_a, big, small_c])
    limit = words(small_a) + words(small_c) + 60
    texts, account = fit_pieces([Piece("diff", diff, 0)], limit, words, "w")
    text = texts["diff"]
    assert text is not None and account.used <= limit
    assert small_a in text and small_c in text  # both small hunks whole
    assert "+b 0 gamma" in text and "+b 199 gamma" not in text  # the big one cut at its head
    assert text.index(small_a) < text.index("+b 0") < text.index(small_c)  # order kept
    assert "… clipped: " in text


def test_clip_text_keeps_line_boundaries() -> None:
    text = lines("q", 40)
    original = text.split("\n")
    for room in range(5, 200, 7):
        clipped = clip_text(text, room, quarter)
        if clipped is None:
            assert quarter(original[0] + "\n" + clip_marker(39)) > room
            continue
        assert quarter(clipped) <= room
        kept = clipped.split("\n")
        assert kept[:-1] == original[: len(kept) - 1]
    assert clip_text("one single long line", 2, words) is None
    assert clip_text("one single long line", 2, words, required=True) == "one single"


def test_random_pieces_never_exceed_the_limit() -> None:
    rng = random.Random(7)
    for _ in range(200):
        pieces = [Piece(f"p{i}", lines(f"p{i}", rng.randint(0, 60)) if rng.random() > 0.1
                        else None, rng.randint(0, 4), clip=rng.random() > 0.3)
                  for i in range(rng.randint(1, 6))]
        limit = rng.randint(0, 800)
        count = rng.choice(COUNTERS)
        texts, account = fit_pieces(pieces, limit, count, "r")
        assert account.used <= limit
        assert account.used == sum(p.tokens for p in account.pieces)
        assert len(account.pieces) == len(pieces)
        for piece, record in zip(pieces, account.pieces, strict=True):
            text = texts[piece.name]
            assert record.tokens == (count(text) if text else 0)
            if piece.rank == 0 and piece.text:
                assert text is not None


def test_a_piece_not_worth_fetching_is_accounted_as_not_fetched() -> None:
    fitter = Fitter(100, words, "w")
    assert fitter.add("diff", " ".join(["x"] * 90), required=True) is not None
    assert not fitter.worth(400)  # 10 tokens left: fetching a 400-token piece is pointless
    assert fitter.worth(5)  # but a small one fits whole
    fitter.skip("search_callers 'f'", 400)
    assert fitter.add("scanner_issues[0]", "a b c") == "a b c"
    account = fitter.account()
    assert [(p.name, p.status) for p in account.pieces] == [
        ("diff", "included"), ("search_callers 'f'", "not_fetched"),
        ("scanner_issues[0]", "included")]
    skipped = account.pieces[1]
    assert skipped.tokens == 0 and skipped.original_tokens == 400
    assert skipped.note is not None and skipped.note.startswith("not fetched (over budget)")
    assert account.used == 93 <= account.limit


def test_a_required_diffs_long_lines_are_cut_around_the_change() -> None:
    old = "x = [" + ", ".join(str(i) for i in range(4000)) + "]"
    new = old.replace(", 2500, ", ", danger(), ")
    text = "\n".join(["@@ a.py:L2 @@", "@@ -1,3 +1,3 @@", "    1     1  import os",
                      f"    2       -{old}", f"          2 +{new}", "    3     3  run()"])
    for count in COUNTERS:
        clipped = clip_text(text, 300, count, required=True)
        assert clipped is not None and count(clipped) <= 300
        kept = clipped.split("\n")
        assert len(kept) == 6 and kept[2] == "    1     1  import os" and kept[5].endswith("run()")
        assert "2500," in kept[3] and "danger()" in kept[4]
        assert kept[3].startswith("    2       -[… ") and kept[4].endswith(" chars …]")
    # not required (a context piece): clipped at line boundaries, never cut inside a line
    assert "danger()" not in (clip_text(text, 300, quarter) or "")


def _head(account: BudgetAccount) -> str:
    """A metadata block as render's: the tokens used and the pieces left out, by name."""
    left_out = {s: [p.name for p in account.pieces if p.status == s]
                for s in ("clipped", "dropped", "not_fetched")}
    return f"HEAD used {account.used} " + " ".join(
        f"{s}: {' '.join(names)}" for s, names in left_out.items() if names) + "\n"


def _notes(notes: Sequence[str]) -> str:
    return "".join(f"- {n}\n" for n in notes)


def test_a_rendering_is_charged_and_the_account_is_what_is_sent() -> None:
    """The heading, the metadata naming what was left out and the notes are charged; each
    piece costs its wrapped part; when naming the left-out pieces took more than estimated
    (here: estimated as nothing), the last piece gives it back. ``used`` is what is sent."""
    def wrap(title: str) -> Callable[[str], str]:
        return lambda text: f"## {title}\n{text}\n"

    for estimate in (0, 3):
        fit = Fitter(60, words, "w", Rendering(_head, _notes,
                                               lambda s, n, first, e=estimate: e))
        fit.expect(["search 'alpha' 'beta' 'gamma'"])
        assert fit.add("diff", lines("d", 2), required=True, wrap=wrap("Diff")) is not None
        assert fit.add("context", lines("c", 8), wrap=wrap("Context")) is not None
        fit.resolve("search 'alpha' 'beta' 'gamma'")
        fit.skip("search 'alpha' 'beta' 'gamma'", 500)
        assert not fit.note("a note that finds no room left in this small budget " * 3)
        account = fit.account()
        assert account.pieces[0].name == "rendering"
        kept = {name: fit.text(name) for name in ("diff", "context")}
        sent = words(_head(account)) + sum(words(wrap(name.title())(text))
                                           for name, text in kept.items() if text)
        assert sent == account.used <= 60
        assert account.pieces[0].tokens == words(_head(account))
        assert [p.status for p in account.pieces[1:]] == ["included", "clipped", "not_fetched"]
        context = account.pieces[2]
        assert context.tokens == words(wrap("Context")(kept["context"] or ""))
    assert fit.notes == []


def test_naming_many_dropped_results_after_the_diff_does_not_go_over_the_limit() -> None:
    """A search that finds more places than there is room to even name as dropped (here the
    diff left 5 tokens; naming each dropped one costs 2): the account still names every one, and
    the diff, the only piece kept, gives back what naming them took — ``used`` stays within
    the limit (seen on flask: a 1,000-token bundle used 1,010)."""
    def wrap(title: str) -> Callable[[str], str]:
        return lambda text: f"## {title}\n{text}\n"

    def named(status: str, name: str, first: bool) -> int:
        return words(name) + 1 + (1 if first else 0)

    fit = Fitter(60, words, "w", Rendering(_head, _notes, named))
    diff = lines("d", 10)
    assert fit.add("diff", diff, required=True, wrap=wrap("Diff")) == diff
    for n in range(8):
        fit.add(f"callers[{n}]", lines(f"caller{n}", 3), wrap=wrap("Callers"))
    account = fit.account()
    assert [p.status for p in account.pieces[2:]] == ["dropped"] * 8
    sent = words(_head(account)) + words(wrap("Diff")(fit.text("diff") or ""))
    assert sent == account.used <= 60
    assert account.pieces[1].status == "clipped"
