"""The chat's static review context: whole diffs, the others named, never cut mid-fence."""

from __future__ import annotations

from reviewtui.conversation.static import CUT_MARKER, fit_static
from reviewtui.llm import token_counter

COUNT = token_counter("gpt-4o-mini").count
HEAD = "## Review index\n\n| u_a | a.py |\n\n## Diffs\n\n"


def _diff(lines: int) -> str:
    return "\n".join(f"   {n} +x = {n}" for n in range(lines))


def test_everything_that_fits_is_sent_whole() -> None:
    static = fit_static(HEAD, [("u_a", "a.py:L1", _diff(3))], COUNT, 1000)
    assert static.complete and static.text.endswith("```")
    assert "left out" not in static.text


def test_a_small_diff_after_a_large_one_still_gets_in_and_the_large_one_is_named() -> None:
    diffs = [("u_big", "big.py:L1-400", _diff(400)), ("u_small", "small.py:L1", _diff(2))]
    static = fit_static(HEAD, diffs, COUNT, 400)
    assert (static.diffs_sent, static.diffs_kept) == (1, 2)
    assert "### small.py:L1 (u_small)" in static.text and "### big.py" not in static.text
    assert static.text.endswith("get_unit or get_bundle: u_big (big.py:L1-400).]")
    assert COUNT(static.text) <= 400


def test_an_index_over_the_share_is_cut_with_a_marker() -> None:
    head = "## Review index\n\n" + "".join(f"| u_{n} | f{n}.py |\n" for n in range(500))
    static = fit_static(head, [("u_a", "a.py:L1", _diff(3))], COUNT, 300)
    assert static.diffs_sent == 0 and static.text.endswith(CUT_MARKER)
    assert COUNT(static.text) <= 300
