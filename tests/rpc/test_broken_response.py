"""A real agent process answers ``session/prompt`` with a frame that is not JSON.

``NaN`` is not JSON (RFC 8259 §6); the strict decoder refuses the frame. Its id
can still be read, so the turn ends with an error saying what was wrong
instead of waiting forever for an answer that already came.
"""

from __future__ import annotations

import os
import subprocess
import sys

AGENT = r"""
import json, sys
def send(text):
    sys.stdout.write(text + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1}}))
    elif method == "session/new":
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}}))
    elif method == "session/prompt":
        send('{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn",'
             '"_meta":{"x":NaN,"y":Infinity}}}' % rid)
"""


def test_a_prompt_response_that_is_not_json_ends_the_turn_with_an_error(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "-o", "simple",
         "--agent-command", f"{sys.executable} {agent}", "hi"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ACPHOST_SETTINGS": "", "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
             "ACPHOST_NO_HISTORY": "1"},
    )  # fmt: skip
    assert r.returncode != 0
    assert "the agent's response to session/prompt is not valid JSON" in r.stderr, r.stderr
