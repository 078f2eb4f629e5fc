"""A scripted ACP agent that repeats the secret it was configured with everywhere it can.

The secret is the value of ``$LEAKY_VALUE`` (set by the settings' ``env``).
A prompt gets a message quoting it, then a permission request whose title,
command and raw input quote it; once answered, the agent writes it to stderr
and exits with code 3, so the host's crash report shows its stderr tail.

A prompt starting with ``talk`` instead quotes it in what the host reports
about the session rather than in the answer: a notice, a failed compaction,
the session's title, the cost's currency and the stop reason. Its name
(``agentInfo``) and its listed session's title quote it too.
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
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": 1,
            "agentCapabilities": {"sessionCapabilities": {"list": {}}},
            "agentInfo": {"name": f"leaky-{token}", "version": "1"}}})
    elif method == "session/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessions": [
            {"sessionId": "leaky-1", "cwd": os.getcwd(), "title": f"about {token}"}]}})
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "leaky-1"}})
    elif method == "session/prompt" and "talk" in json.dumps(msg["params"]["prompt"]):
        for update in (
            {"sessionUpdate": "session_info_update", "title": f"title {token}"},
            {"sessionUpdate": "notice", "severity": "warning", "title": f"notice {token}"},
            {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "failed",
             "error": f"compaction {token}"},
            {"sessionUpdate": "usage_update", "used": 10, "size": 100,
             "cost": {"amount": 0.01, "currency": f"C{token}"}},
            {"sessionUpdate": "agent_message_chunk",
             "content": {"type": "text", "text": "talked\n"}},
        ):
            send({"jsonrpc": "2.0", "method": "session/update",
                  "params": {"sessionId": "leaky-1", "update": update}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": f"stop-{token}"}})
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
