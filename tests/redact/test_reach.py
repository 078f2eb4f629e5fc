"""Every text rule knows within ``REACH`` characters of a match's start that it matches.

A text redacted in pieces (the history's long turns) keeps ``REACH``
characters after each cut; that is sound only if no rule can wait longer
than that before it knows: the gap between a name and its value, a quoted
value, a URL's user name and password, a JWT's header are bounded. Past the
bound a name and a value are no pair; configured values and token formats
are found anywhere.
"""

from __future__ import annotations

import re

import pytest

from acphost.redact import REACH, REDACTED, Redactor
from acphost.redact._patterns import _GAP, _LONG, TOKEN_FORMATS

RULES = {rule.name: re.compile(rule.pattern) for rule in TOKEN_FORMATS}
LONG = 50_000  # far more than REACH
CONFIGURED = "Zq9-configured-value-77"
GH = "ghp_" + "A1b2C3d4E5" * 4

# Matches at the rules' bounds, and ones that go on far past REACH.
AT_THE_BOUND = [
    ("assignment", "password" + " " * _GAP + "=" + " " * _GAP + "hunter2hunter2"),
    ("assignment", "Authorization:" + " " * _GAP + "Bearer" + "\n" * _GAP + "abcdefgh12345678"),
    ("assignment", 'token="' + "Q" * _LONG + '"'),
    ("assignment", "password=" + "v" * LONG),
    ("bearer", "Bearer" + "\n" * _GAP + "abcdefgh12345678"),
    ("bearer", "Bearer " + "a" * LONG),
    ("basic", "Basic" + " " * _GAP + "dXNlcjpwYXNzd29yZA=="),
    ("basic", "Basic " + "a" * LONG + "1"),
    ("flag", "--" + "x" * (_GAP - 1) + "-token" + "\t" * _GAP + "flagvalue"),
    ("flag", "--api-key '" + "Q" * _LONG + "'"),
    ("userinfo", "://" + "u" * _LONG + ":" + "p" * _LONG + "@example.com"),
    ("pem", "-----BEGIN PRIVATE KEY-----\n" + "MIIE\n" * LONG),
    ("jwt", "eyJ" + "h" * _LONG + ".eyJ" + "p" * LONG + ".sig12345"),
    ("sendgrid", "SG." + "a" * _LONG + "." + "b" * LONG),
    ("github", GH + "a" * LONG),
]


@pytest.mark.parametrize(("rule", "text"), AT_THE_BOUND)
def test_a_rule_knows_within_its_reach(rule, text):
    pattern = RULES[rule]
    assert pattern.match(text) is not None
    assert pattern.match(text[:REACH]) is not None  # known before REACH characters


@pytest.mark.parametrize(
    "text",
    [
        "password=" + " " * LONG + "hunter2hunter2",
        "password" + " " * (_GAP + 1) + "= hunter2hunter2",
        "use Bearer" + "\n" * LONG + "abcdefghijklmnop0123",
        "run --api-token" + "\t" * LONG + "flagvalue0123",
        "--" + "x" * LONG + "-token flagvalue0123",
        "see https://" + "u" * LONG + ":s3cr3tpassw0rdXYZ@example.com/",
        'token="' + "Q" * LONG + 'SECRETTAILxyz" end',
    ],
    ids=["spaces", "gap+1", "newlines", "tabs", "flag-name", "userinfo", "quoted"],
)
def test_past_the_bound_a_name_and_a_value_are_no_pair(text):
    assert Redactor().redact_text(text) == text


@pytest.mark.parametrize("gap", ["", " ", " " * LONG, "\n" * LONG, "x " * LONG])
def test_configured_values_and_token_formats_are_found_however_far(gap):
    redactor = Redactor([CONFIGURED])
    text = f"password={gap}{CONFIGURED} and token:{gap}{GH} and{gap}{CONFIGURED}{gap}"
    out = redactor.redact_text(text)
    assert CONFIGURED not in out and GH not in out
    assert out.endswith(f"and{gap}{REDACTED}{gap}")


def test_a_jwt_is_found_whatever_its_payload_length():
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJ" + "c3ViIjoi" * 2000 + ".c2lnbmF0dXJl"
    out = Redactor().redact_text(f"id_token {jwt} end")
    assert out == f"id_token {REDACTED} end"


def test_whether_a_value_is_a_number_is_known_from_its_start():
    """A count is kept; a run of digits too long to be one is a value like any other."""
    redactor = Redactor()
    assert (
        redactor.redact_text("max_tokens=4096 password=12345") == "max_tokens=4096 password=12345"
    )
    digits = "1" * 65
    assert redactor.redact_text(f"password={digits}") == f"password={REDACTED}"
    assert redactor.redact_text(f"password={digits}abc") == f"password={REDACTED}"
