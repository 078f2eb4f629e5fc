"""A redactor compiles a rule's expression only when some text wakes that rule."""

from __future__ import annotations

from acphost.redact import REDACTED, Redactor


def test_plain_text_compiles_no_token_format():
    redactor = Redactor.from_config(host_env={})
    assert redactor.redact_text("This was a tour: a plan, a tool call and a diff.") == (
        "This was a tour: a plan, a tool call and a diff."
    )
    compiled = redactor._rules._compiled
    assert set(compiled) <= set(redactor._always)


def test_a_woken_rule_is_compiled_once_and_redacts():
    redactor = Redactor.from_config(host_env={})
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert REDACTED in redactor.redact_text(f"token {key}")
    first = dict(redactor._rules._compiled)
    assert first
    assert REDACTED in redactor.redact_text(f"again {key}")
    assert all(redactor._rules._compiled[i] is first[i] for i in first)
