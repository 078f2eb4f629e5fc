"""A line the agent sends that is not a JSON object is redacted in the protocol log, then cut.

It used to be kept as text without passing the redactor at all, cut to
64 KiB first: a configured value on a non-JSON line showed in clear.
"""

from __future__ import annotations

from acphost.redact import REDACTED, Redactor
from acphost.tui._frames import MAX_INVALID_TEXT, ProtocolLog

SECRET = "zq-protocol-log-canary-" + "k" * 40


def test_a_configured_value_on_a_line_that_is_not_json_is_redacted():
    log = ProtocolLog(redactor=Redactor([SECRET]))
    rec = log.record("receive", f"oops {SECRET} not json".encode())
    assert rec.kind == "invalid" and rec.payload == f"oops {REDACTED} not json"


def test_a_value_across_the_display_limit_is_redacted_before_the_cut():
    log = ProtocolLog(redactor=Redactor([SECRET]))
    line = ("x" * (MAX_INVALID_TEXT - 10) + SECRET + " tail").encode()
    rec = log.record("receive", line)
    assert rec.kind == "invalid" and SECRET[:10] not in rec.payload
    assert rec.payload.startswith("x" * (MAX_INVALID_TEXT - 10) + "[REDACTED]"[:10])
    assert rec.payload.endswith(f"… ({len(line)} bytes)")
