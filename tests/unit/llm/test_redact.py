"""The secret patterns blanked in everything stored or sent (the store and the intent use them)."""

from __future__ import annotations

from reviewtui.llm.redact import redact_secrets


def test_keys_tokens_and_aws_credentials_are_blanked() -> None:
    text = ("sk-proj-Abcdefghijklmnop0123456789 Bearer abcdefghijklmnop0123 AKIAIOSFODNN7EXAMPLE "
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    assert redact_secrets(text) == ("[REDACTED] Bearer [REDACTED] [REDACTED] "
                                    "aws_secret_access_key = [REDACTED]")


def test_ordinary_words_stay() -> None:
    kept = "task-0123456789abcdefghijkl AKIA is a prefix; AKIAIOSFODNN7EXAMPLEX is too long"
    assert redact_secrets(kept) == kept
