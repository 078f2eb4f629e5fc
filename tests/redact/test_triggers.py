"""The trigger search: every trigger that occurs wakes its rules, overlapping ones too.

The search scans without overlaps (:mod:`acphost.redact._triggers`); these
tests hold it to the definition (each trigger that is a substring of the
lower-cased text), on texts made of overlapping triggers, and through the
redactor where a missed overlap would leave a secret in clear.
"""

from __future__ import annotations

import random
import re

import pytest

from acphost.redact import REDACTED, Redactor
from acphost.redact._patterns import TOKEN_FORMATS
from acphost.redact._triggers import Triggers


def expected(rules: dict[str, set[int]], lowered: str) -> set[int]:
    """The definition: the rules of every trigger that is a substring of the text."""
    out: set[int] = set()
    for trigger, ids in rules.items():
        if trigger in lowered:
            out |= ids
    return out


def texts(triggers: list[str], seed: int, count: int) -> list[str]:
    """Texts glued from triggers, their prefixes and suffixes (overlaps everywhere)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(1, 8)):
            t = rng.choice(triggers)
            cut = rng.randint(0, len(t))
            pieces.append(rng.choice((t, t[:cut], t[cut:], rng.choice("ax- _\n"))))
        out.append("".join(pieces))
    return out


def redactor_rules(redactor: Redactor) -> dict[str, set[int]]:
    return redactor._woken


@pytest.mark.parametrize(
    "secrets",
    [(), ("en-very-secret-1", "sk-configured-secret-value", "cret-value-token-abc")],
)
def test_woken_is_every_trigger_in_the_text(secrets: tuple[str, ...]) -> None:
    rules = redactor_rules(Redactor(secrets))
    search = Triggers(rules)
    words = sorted(rules)
    for text in texts(words, seed=len(secrets), count=3000):
        assert search.woken(text) == expected(rules, text), text


def test_overlaps_of_made_up_triggers() -> None:
    # Triggers that overlap one another in every way: prefixes, suffixes, inside.
    rules = {"ab": {0}, "bc": {1}, "cab": {2}, "abcab": {3}, "b": {4}, "ca": {5}, "bca": {6}}
    search = Triggers(rules)
    for text in texts(sorted(rules), seed=7, count=5000):
        assert search.woken(text) == expected(rules, text), text


def test_a_private_key_right_after_an_openai_prefix_is_redacted() -> None:
    # ``sk-`` ends where ``-----BEGIN`` starts: a scan that goes on after
    # ``sk-`` sees ``----BEGIN`` and would not wake the private-key rule.
    key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    text = f"xsk-----BEGIN PRIVATE KEY-----\n{key}\n-----END PRIVATE KEY-----\n"
    out = Redactor().redact_text(text)
    assert key not in out
    assert REDACTED in out


def test_a_configured_value_overlapping_a_trigger_is_redacted() -> None:
    # The value begins inside the word ``token`` (a trigger of its own).
    secret = "en-very-secret-1"
    out = Redactor([secret]).redact_text("the token-very-secret-1 is here, TOKEN-VERY-SECRET-1 too")
    assert "very-secret" not in out.lower()
    assert out.count(REDACTED) == 2


def test_every_match_of_a_rule_holds_what_it_needs() -> None:
    # A rule is skipped where none of its ``needs`` is: that must never skip a match.
    rng = random.Random(11)
    alphabet = "tokenTOKENsecretpasswordkeyKEYapi_-:=@ \t\"'/.xyz0123456789\n"
    samples = [
        "token=abc",
        'API_KEY: "v4lue"',
        "https://user:pw@example.com/x",
        "password = hunter22",
        "Secret:x",
        *("".join(rng.choice(alphabet) for _ in range(rng.randint(5, 40))) for _ in range(20000)),
    ]
    rules = [rule for rule in TOKEN_FORMATS if rule.needs]
    assert {rule.name for rule in rules} >= {"assignment", "userinfo"}
    for rule in rules:
        pattern = re.compile(rule.pattern)
        hits = 0
        for text in samples:
            for match in pattern.finditer(text):
                hits += 1
                assert any(n in match.group(0) for n in rule.needs), (rule.name, text)
        assert hits > 0, rule.name


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("token token token=s3cr3t-value token", "s3cr3t-value"),
        ("see https://me:pa55word@host.example/ and more", "pa55word"),
        ("the token is here\nAPI_TOKEN: abcdef123456", "abcdef123456"),
    ],
)
def test_a_rule_that_needs_a_literal_still_finds_its_secret(text: str, secret: str) -> None:
    out = Redactor().redact_text(text)
    assert secret not in out
    assert REDACTED in out


def test_text_without_what_a_rule_needs_is_left_alone() -> None:
    text = "token 1 token 2 see https://example.com/token"
    assert Redactor().redact_text(text) is text
