"""A scripted ACP agent that repeats the secret it was configured with everywhere it can.

The secret is the value of ``$LEAKY_VALUE`` (set by the settings' ``env``).
A prompt gets a message quoting it, then a permission request whose title,
command and raw input quote it; once answered, the agent writes it to stderr
and exits with code 3, so the host's crash report shows its stderr tail.
"""

import json
import os
import sys

token = os.environ["LEAKY_VALUE"]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "leaky-1"}})
    elif method == "session/prompt":
        send({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "leaky-1", "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": f"using {token} now\n"}}}})
        call = {"toolCallId": "t1", "title": f"deploy --key {token}", "kind": "execute",
                "rawInput": {"command": f"deploy --key {token}"}}
        send({"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "leaky-1", "update": {"sessionUpdate": "tool_call", **call}}})
        send({"jsonrpc": "2.0", "id": "perm-1", "method": "session/request_permission",
              "params": {"sessionId": "leaky-1", "toolCall": call, "options": [
                  {"optionId": "ok", "name": "Allow", "kind": "allow_once"},
                  {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}})
    elif rid == "perm-1":  # the answer: now crash, quoting the secret
        sys.stderr.write(f"fatal: could not use token {token}\n")
        sys.stderr.flush()
        sys.exit(3)
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
