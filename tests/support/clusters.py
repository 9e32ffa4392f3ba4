"""Grapheme clusters of several code points each: the cases the chat input's arithmetic
(``text_cursor``, ``text_wrap``) must keep whole."""

from __future__ import annotations

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧, five code points
FR = "\U0001f1eb\U0001f1f7"  # 🇫🇷
DE = "\U0001f1e9\U0001f1ea"  # 🇩🇪
THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽
E_ACUTE = "e\u0301"  # e + combining acute
GAK = "\u1100\u1161\u11a8"  # 각 as conjoining jamo
HEART = "\u2764\ufe0f"  # ❤️
CJK = "中文"
