"""The security gate's one-pass answers are the substring tests' answers."""

from __future__ import annotations

import random

from reviewtui.units.security_gate import SecurityGate
from reviewtui.units.vocabulary import default_vocabulary


def _texts() -> list[str]:
    vocab = default_vocabulary()
    rng = random.Random(3)
    pieces = [*vocab.security_token_needles, *vocab.pack.security_code_patterns,
              "eval(", "verify=False", "pass", "word", "authz", "passwordpassword", "x",
              " ", "\n", "é", "\u212a", "\u0130", "\U0001f600", "AUTH", "Password", ""]
    texts = ["", "nothing here", "a password", "auth", "autauth", "pas\nsword"]
    for _ in range(2000):
        texts.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))))
    return texts


def test_the_gate_answers_as_the_substring_tests() -> None:
    vocab = default_vocabulary()
    gate = SecurityGate(vocab.security_code, vocab.security_token_needles)
    holds = 0
    for text in _texts():
        lowered = text.lower()
        expected = any(piece in lowered for piece in vocab.security_token_needles)
        assert gate.may_hold_word(lowered) is expected, text
        holds += expected
        # the scan worked the regex's needles out: asked alone, it answers from them too
        assert gate.may_hold_construct(text) is vocab.security_code.may_match(text), text
    assert holds > 100


def test_no_pieces_no_word() -> None:
    vocab = default_vocabulary()
    gate = SecurityGate(vocab.security_code, ())
    assert not gate.may_hold_word("password")
