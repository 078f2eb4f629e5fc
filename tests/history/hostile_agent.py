"""A scripted agent that tells things outside its turns and splits secrets: the history must cope.

Each prompt's first word picks the script:

- ``late``: answers the prompt, then sends an update and asks a permission
  question for the same session (after the turn), then an ``AFTER-ANSWER``
  update once answered.
- ``cross``: during the turn, sends an update and asks a permission question
  for the *other* session (``s1``/``s2``), then its own text.
- ``split``: the configured value ``$HOSTILE_TOKEN`` split across two messages
  with a thought between them, and a GitHub token split across a tool call.
- ``far``: ``password=``, ``Bearer``, ``--api-token`` and a quoted ``token=``
  whose values come 300,000 characters after their names (then the
  configured value the same way), in 2,000-character chunks.
- anything else: ``plain turn``.
"""

import json
import os
import sys

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
FAR = 300_000


def far_text(token):
    """The ``far`` script's text (the test builds the same)."""
    return (
        "config:\npassword=" + " " * FAR + "hunter2hunter2hunter2\n"
        "Authorization: Bearer" + "\n" * FAR + "abcdefghijklmnopqrstuvwxyz012345\n"
        "run --api-token" + "\t" * FAR + "flagvalue0123456789 end\n"
        'token="' + "Q" * FAR + 'SECRETTAILxyz" end\n'
        "api_key=" + " " * FAR + token + "\nend\n"
    )


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def say(sid, text, kind="agent_message_chunk"):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {
        "sessionUpdate": kind, "content": {"type": "text", "text": text}}}})  # fmt: skip


pending = []  # messages read while waiting for an answer


def ask(sid, call_id):
    """Ask a permission question and wait for its answer."""
    send({"jsonrpc": "2.0", "id": 900, "method": "session/request_permission", "params": {
        "sessionId": sid, "toolCall": {"toolCallId": call_id, "title": f"asked {call_id}"},
        "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}]}})  # fmt: skip
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("id") == 900 and "method" not in msg:
            return
        pending.append(msg)


def prompt(rid, sid, words):
    token = os.environ.get("HOSTILE_TOKEN", "")
    script = words.split()[0] if words.split() else ""
    done = {"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}}
    if script == "late":
        say(sid, "turn text")
        send(done)
        say(sid, "LATE-update ")
        ask(sid, "late-call")
        say(sid, "AFTER-ANSWER")
        return
    if script == "cross":
        other = "s2" if sid == "s1" else "s1"
        say(other, f"INJECTED-into-{other} ")
        ask(other, f"cross-call-{other}")
        say(sid, f"own text of {sid}")
    elif script == "split":
        say(sid, "token is " + token[:12])
        say(sid, "thinking", "agent_thought_chunk")
        say(sid, token[12:] + " and gh " + GH[:14])
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {
            "sessionUpdate": "tool_call", "toolCallId": "t1", "title": "x",
            "status": "completed"}}})  # fmt: skip
        say(sid, GH[14:] + " done")
    elif script == "far":
        text = far_text(token)
        for i in range(0, len(text), 2000):
            say(sid, text[i : i + 2000])
    else:
        say(sid, "plain turn")
    send(done)


def handle(msg):
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send(
            {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}}
        )
    elif method == "session/new":
        handle.sessions += 1
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"s{handle.sessions}"}})
    elif method == "session/prompt":
        params = msg["params"]
        words = " ".join(b.get("text", "") for b in params["prompt"])
        prompt(rid, params["sessionId"], words)
    elif rid is not None and method:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})


handle.sessions = 0
if __name__ == "__main__":
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line))
        while pending:
            handle(pending.pop(0))
