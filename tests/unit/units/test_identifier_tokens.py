"""``identifier_tokens`` splits names into lower-case words the same way on any text.

ASCII text takes a shortcut (camel joints turned into separators, the whole text lowered at
once); it must give exactly the words of splitting on separators, then at camel joints, then
lowering each word -- which the rest of the text still gets (lowering can turn a separator
into a letter there: the Kelvin sign becomes ``k``).
"""

from __future__ import annotations

import random
import re

import pytest

from reviewtui.units.path_tags import identifier_tokens

_SPLIT = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _word_by_word(text: str) -> list[str]:
    return [w.lower() for part in _SPLIT.split(text) if part
            for w in _CAMEL.split(part) if w]


@pytest.mark.parametrize("text", [
    "", "getUserPassword", "user_password", "a/b-c.py", "ABCDef", "a1B2c", "HTTPServerError",
    "__init__", "x", "  spaced   out  ", "csrf_token = request.COOKIES['csrftoken']",
    "\u212aelvin", "\u0130stanbul", "stra\u017fse", "caf\u00e9Latte", "\u00e9A", "a\u00e9B",
])
def test_words_are_the_word_by_word_split(text: str) -> None:
    assert identifier_tokens(text) == _word_by_word(text)


def test_random_texts_split_alike() -> None:
    rng = random.Random(28)
    alphabet = "aZq09_ -./:\u212a\u0130\u017f\u00e9K"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(16)))
        assert identifier_tokens(text) == _word_by_word(text), text
