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


def test_security_words_are_found_in_all_the_lines_as_in_each() -> None:
    from reviewtui.units.line_tags import mask_strings, security_in_lines
    from reviewtui.units.vocabulary import default_vocabulary

    vocab = default_vocabulary()

    def line_by_line(texts: list[str], strings: bool) -> bool:
        return any(vocab.security_code.search(t) or not vocab.security_code_tokens.isdisjoint(
            _word_by_word(t if strings else mask_strings(t))) for t in texts)

    word = sorted(vocab.security_code_tokens)[0]
    cases = [[], ["x = 1"], [f"{word}_value = 2"], [f"log('{word}')"], ["a = 'open", f"{word}'"],
             [f"set{word.capitalize()}(x)"], ["\u212a = 1", f"caf\u00e9 = {word}"],
             [f"x = 'no {word} here'", "y = 2"], ["first", "Second"]]
    for texts in cases:
        for strings in (False, True):
            lines = [(n, t) for n, t in enumerate(texts)]
            assert security_in_lines(lines, vocab, strings=strings) == line_by_line(
                texts, strings), (texts, strings)


def test_prefilters_say_no_only_when_the_lines_hold_nothing() -> None:
    """``security_in_lines`` skips the regexes when no literal a match needs is in the lines,
    and the words when no piece of a security word is: random lines of security pieces, case
    changes, strings and non-ASCII letters find what searching every line for everything
    finds, with the shipped vocabulary and with one whose patterns fold case or have no
    literal at all."""
    from reviewtui.units.line_tags import mask_strings, security_in_lines
    from reviewtui.units.vocabulary import _vocabulary, default_vocabulary

    shipped = default_vocabulary()
    custom = _vocabulary({**shipped.pack.model_dump(), "security_code_patterns": [
        r"(?i)danger\w*\(", r"\d{3}-x", r"[0-9]{4}"],
        "security_code_tokens": ["Token", "authz", "au"]}, "test")
    folded_only = _vocabulary({**shipped.pack.model_dump(), "security_code_patterns": [
        r"(?i)danger"]}, "test")
    pieces = ["eval (", "EVAL(", "pickle.load(", "api_key", "Api-Key", "secret", "pass",
              "password", "Password", "'password'", '"x"', "danger(", "DANGERous(", "123-x",
              "au", "TOKEN", "authz", "\u212a", "\u00e9", "\u0130", "x", " ", "_", "(", "'",
              "subprocess.", "innerHTML", "verify = False", "csrf", "login"]
    rng = random.Random(28)
    for vocab in (shipped, custom, folded_only):
        def line_by_line(texts: list[str], strings: bool, vocab: object = vocab) -> bool:
            return any(vocab.security_code.search(t)  # type: ignore[attr-defined]
                       or not vocab.security_code_tokens.isdisjoint(  # type: ignore[attr-defined]
                           _word_by_word(t if strings else mask_strings(t))) for t in texts)

        for _ in range(1500):
            texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(4)))
                     for _ in range(rng.randrange(4))]
            lines = list(enumerate(texts))
            for strings in (False, True):
                assert security_in_lines(lines, vocab, strings=strings) == line_by_line(
                    texts, strings), (texts, strings)


def test_lines_joined_are_masked_as_each_line() -> None:
    """No string literal spans a line break: masking lines joined by line breaks (one regex
    call, as ``unit_tokens``, the words view and ``security_in_lines`` do) masks each line as
    masking it alone does -- escapes at a line's end, unclosed quotes and carriage returns
    included."""
    from reviewtui.units.line_tags import mask_strings

    pieces = ["'", '"', "`", "\\", "\\'", 'a"b"c', "x", " ", "\r", "\u00e9", "''", '""',
              "`t`", "\\\\", "it's", "\t"]
    rng = random.Random(24)
    for _ in range(20000):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
                 for _ in range(rng.randint(1, 4))]
        assert mask_strings("\n".join(lines)) == "\n".join(map(mask_strings, lines)), lines
