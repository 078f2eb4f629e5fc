"""The "requires authentication" report redacts the agent's words (a real agent, a real ``acphost``).

It quoted the agent's error message in clear, only cut to 2,000 characters:
an agent refusing the credential it was configured with, and saying which,
put it on the terminal.
"""

from __future__ import annotations

import json
import sys
import textwrap

from tests.cli.runner import run

SECRET = "zq-auth-canary-" + "Rt5" * 30

AGENT = textwrap.dedent(
    r"""
    import json, os, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
    for raw in sys.stdin:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}})
        elif method is not None and rid is not None:
            key = os.environ["AUTH_AGENT_KEY"]
            send({"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32000, "message": f"Authentication required: the key {key} was refused"}})
    """
)


def test_an_auth_error_quoting_the_configured_key_is_redacted(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    settings = tmp_path / "settings.json"
    spec = {"command": sys.executable, "args": [str(agent)], "env": {"AUTH_AGENT_KEY": SECRET}}
    settings.write_text(json.dumps({"agent_servers": {"auth": spec}}))
    r = run(["--settings", str(settings), "go"], cwd=tmp_path)
    assert "requires authentication but offers no method" in r.stderr, r.stderr
    assert "the key [REDACTED] was refused" in r.stderr
    assert SECRET not in r.stderr and SECRET[:20] not in r.stderr
