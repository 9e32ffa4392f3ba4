"""The secret patterns blanked in everything stored or sent (the store and the intent use them)."""

from __future__ import annotations

from reviewtui.llm.redact import redact_secrets, redact_text, redact_value


def test_keys_tokens_and_aws_credentials_are_blanked() -> None:
    text = ("sk-proj-Abcdefghijklmnop0123456789 Bearer abcdefghijklmnop0123 AKIAIOSFODNN7EXAMPLE "
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    assert redact_secrets(text) == ("[REDACTED] Bearer [REDACTED] [REDACTED] "
                                    "aws_secret_access_key = [REDACTED]")


def test_ordinary_words_stay() -> None:
    kept = "task-0123456789abcdefghijkl AKIA is a prefix; AKIAIOSFODNN7EXAMPLEX is too long"
    assert redact_secrets(kept) == kept


def test_redact_value_blanks_every_string_and_the_configured_key() -> None:
    key = "zq-local-KEY-998877"
    data = {"quote": [f'    2 | token = "{key}"', "    3 | sk-" + "a" * 30],
            "nested": {"body": f"uses {key}", "line": 3, "ok": True, "none": None},
            "pair": ("plain", key)}
    assert redact_value(data, key) == {
        "quote": ['    2 | token = "[REDACTED]"', "    3 | [REDACTED]"],
        "nested": {"body": "uses [REDACTED]", "line": 3, "ok": True, "none": None},
        "pair": ["plain", "[REDACTED]"]}
    assert redact_text("ok short", "short") == "ok short"  # too short a key to blank
