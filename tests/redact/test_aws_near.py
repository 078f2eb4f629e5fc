"""An AWS secret access key is found near AWS context, and only near it.

The key has no prefix; it is a secret within the bound of its context (a key
id or the word aws, before or after it), the same in a text redacted whole as
in the parts the history writes.
"""

from __future__ import annotations

from acphost.redact import REDACTED, Redactor
from acphost.redact._patterns import _GAP

KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEK3Y"
OTHER = "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fE9dC8bA7z"
R = Redactor()


def test_a_key_after_or_before_its_context_is_masked():
    for text in (
        f"AKIAIOSFODNN7EXAMPL3 {KEY}",
        f"aws credentials: {KEY}",
        f"{KEY} is the secret of the AWS account",
        "AWS" + " " * _GAP + KEY,
    ):
        out = R.redact_text(text)
        assert KEY not in out and REDACTED in out, text


def test_every_key_after_one_context_is_masked():
    out = R.redact_text(f"aws keys: {KEY} and {OTHER}, then {KEY}")
    assert KEY not in out and OTHER not in out


def test_a_key_far_from_any_context_is_ordinary_text():
    text = "aws" + " " * (_GAP + 1) + KEY
    assert R.redact_text(text) == text
    assert R.redact_text(KEY) == KEY
