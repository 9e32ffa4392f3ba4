"""What may go into a row of the session store, and how: text redacted, JSON, no secrets.

Shared by the store's modules (sessions and overrides in ``store``, conversations in
``round_store``): every text column passes through ``redact_secrets``, and a value that is not
text or JSON (a settings object passed by mistake) is refused with ``StoreError`` rather than
serialised, so an API key never reaches the file.
"""

from __future__ import annotations

import json
import re
from typing import NoReturn, TypeVar

from pydantic import BaseModel

from reviewtui.errors import StoreError
from reviewtui.llm.redact import REDACTED, redact_secrets

__all__ = ["REDACTED", "clean_json", "clean_opt_text", "clean_text", "expect",
           "redact_secrets", "refuse", "storable"]

_R = TypeVar("_R", bound=BaseModel)
_SURROGATE = re.compile("[\ud800-\udfff]")


def refuse(value: object) -> NoReturn:
    raise StoreError(f"refusing to store a {type(value).__name__}: the session store keeps "
                     "text and JSON only (settings and API keys are never stored)")


def clean_text(value: object) -> str:
    """``value`` if it is text, redacted and storable; ``StoreError`` otherwise."""
    if not isinstance(value, str):
        refuse(value)
    return storable(redact_secrets(value))


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "\ufffd"


def storable(text: str) -> str:
    """``text`` as SQLite can keep it (UTF-8): a byte a path or an argument held undecoded
    (Python's lone surrogate for it: a repository at ``/src/caf\\xe9``) is written ``\\xe9``,
    so the same path is always the same key and another path never is; any other lone
    surrogate becomes U+FFFD."""
    return _SURROGATE.sub(_escaped, text)


def clean_opt_text(value: object) -> str | None:
    return None if value is None else clean_text(value)


def clean_json(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=refuse)
    # as in ``storable``, each written as a JSON string holds it
    return redact_secrets(_SURROGATE.sub(lambda m: json.dumps(_escaped(m))[1:-1], text))


def expect(value: object, kind: type[_R]) -> _R:
    """``value`` if it is a ``kind`` record; ``StoreError`` otherwise."""
    if not isinstance(value, kind):
        refuse(value)
    return value
