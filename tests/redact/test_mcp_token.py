"""acphost's own MCP session token is a format the redactor knows, masked in any text.

An agent may print the ``mcpServers`` it was given (to stderr, in a message,
in a tool's output): the token then sits in free text under no credential
name, where only its form can find it.
"""

from __future__ import annotations

import json
import re

import pytest

from acphost.redact import REDACTED, Redactor
from acphost.redact._patterns import TOKEN_FORMATS

# Built, so no token-shaped literal sits in the source.
TOKEN = "acphost_mcp_" + ("Zq9-x_T4k" * 5)[:43]
R = Redactor()


@pytest.mark.parametrize(
    "text",
    [
        TOKEN,
        f"my token is {TOKEN}.",
        f"spawned with ACPHOST_MCP_SOCKET=/tmp/s X={TOKEN}\n",
        f"['{TOKEN}']",
        f"({TOKEN})",
    ],
    ids=["bare", "prose", "env-line", "list", "parens"],
)
def test_a_bare_session_token_is_masked_in_text(text: str) -> None:
    out = R.redact_text(text)
    assert TOKEN not in out and REDACTED in out, out
    assert "acphost_mcp_" + TOKEN[12:32] not in out  # no piece of it stays either


def test_a_session_token_in_printed_json_is_masked() -> None:
    """The mcpServers an agent dumps: the token under an innocent name, as JSON text."""
    servers = [
        {
            "name": "acphost",
            "command": "/usr/bin/python3",
            "env": [{"name": "X", "value": TOKEN}],
            "note": {"value": TOKEN},
        }
    ]
    for text in (
        json.dumps(servers),
        json.dumps(servers, indent=2),
        json.dumps(json.dumps(servers)),
    ):
        out = R.redact_text(text)
        assert TOKEN not in out and out.count(REDACTED) == 2, out
    frame = R.redact_frame({"params": {"content": {"text": f"my servers: {json.dumps(servers)}"}}})
    assert TOKEN not in json.dumps(frame)


def test_a_cut_token_is_masked_and_words_after_the_prefix_are_not() -> None:
    """A stderr tail may end inside the token; ordinary names stay."""
    assert R.redact_text(f"... {TOKEN[:40]}") == f"... {REDACTED}"
    for text in (
        "ACPHOST_MCP_TOKEN",
        "acphost_mcp_",
        "see acphost_mcp_server",
        "x_acphost_mcp_" + "a" * 30,
    ):
        assert R.redact_text(text) == text


def test_the_rule_is_declared_with_its_trigger() -> None:
    [rule] = [r for r in TOKEN_FORMATS if r.name == "acphost_mcp"]
    assert rule.triggers == ("acphost_mcp_",)
    assert re.fullmatch(rule.pattern, TOKEN)
