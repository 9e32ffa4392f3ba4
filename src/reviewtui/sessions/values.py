"""What may go into a row of the session store, and how: text redacted, JSON, no secrets.

Shared by the store's modules (sessions and overrides in ``store``, conversations in
``round_store``): every text column passes through ``redact_secrets``, and a value that is not
text or JSON (a settings object passed by mistake) is refused with ``StoreError`` rather than
serialised, so an API key never reaches the file.
"""

from __future__ import annotations

import json
from typing import NoReturn, TypeVar

from pydantic import BaseModel

from reviewtui.errors import StoreError
from reviewtui.llm.redact import REDACTED, redact_secrets

__all__ = ["REDACTED", "clean_json", "clean_opt_text", "clean_text", "expect",
           "redact_secrets", "refuse"]

_R = TypeVar("_R", bound=BaseModel)


def refuse(value: object) -> NoReturn:
    raise StoreError(f"refusing to store a {type(value).__name__}: the session store keeps "
                     "text and JSON only (settings and API keys are never stored)")


def clean_text(value: object) -> str:
    """``value`` if it is text, redacted; ``StoreError`` otherwise."""
    if not isinstance(value, str):
        refuse(value)
    return redact_secrets(value)


def clean_opt_text(value: object) -> str | None:
    return None if value is None else clean_text(value)


def clean_json(value: object) -> str:
    return redact_secrets(json.dumps(value, ensure_ascii=False, default=refuse))


def expect(value: object, kind: type[_R]) -> _R:
    """``value`` if it is a ``kind`` record; ``StoreError`` otherwise."""
    if not isinstance(value, kind):
        refuse(value)
    return value
