"""Text from a model made whole: UTF-16 surrogates joined or replaced.

JSON (and so an OpenAI-compatible server's stream) writes a character outside the BMP as two
escapes (a rocket is ``\\ud83d\\ude80``), and a server may split the pair between two chunks --
or send half of one.
Python then holds a lone surrogate, which no UTF-8 stream can write: printing an answer, saving
a report or validating a finding's title failed on it. A pair is joined into its character;
a lone half becomes U+FFFD.
"""

from __future__ import annotations

from typing import Any

_FIRST, _LAST = "\ud800", "\udfff"
_HIGH_LAST = "\udbff"


def has_surrogates(text: str) -> bool:
    return any(_FIRST <= char <= _LAST for char in text) if not text.isascii() else False


def whole_text(text: str) -> str:
    """``text`` with each surrogate pair joined and each lone surrogate replaced."""
    if not has_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def whole_value(value: Any) -> Any:
    """A parsed JSON value with every string (key or value) made whole."""
    if isinstance(value, str):
        return whole_text(value)
    if isinstance(value, list):
        return [whole_value(item) for item in value]
    if isinstance(value, dict):
        return {whole_text(key) if isinstance(key, str) else key: whole_value(item)
                for key, item in value.items()}
    return value


def ends_in_high_surrogate(text: str) -> bool:
    """Does ``text`` end with the first half of a pair (its second may come next)?"""
    return bool(text) and _FIRST <= text[-1] <= _HIGH_LAST
