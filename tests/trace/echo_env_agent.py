"""A scripted ACP agent that echoes the values of variables it inherited or was given.

``$ECHO_NAMES`` lists the variables (comma-separated). A prompt gets, per
value, a message quoting it as is, with CRLF line endings, percent-encoded
with lower-case hexadecimal digits, form-encoded (``+`` for a space),
percent-encoded then lower-cased, and upper-cased; and a tool call whose
title quotes it. With ``$ECHO_FAIL`` set, the prompt
instead fails with an error message quoting one line of the value named by
``$ECHO_FAIL`` (its second), which the host shows on the terminal.
"""

import json
import os
import re
import sys
import urllib.parse


def send(msg):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **msg}) + "\n")
    sys.stdout.flush()


def update(sid, body):
    send({"method": "session/update", "params": {"sessionId": sid, "update": body}})


def say(sid, text):
    update(sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})


for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif method == "session/new":
        send({"id": rid, "result": {"sessionId": "s1"}})
    elif method == "session/prompt":
        fail = os.environ.get("ECHO_FAIL")
        if fail:
            piece = os.environ[fail].splitlines()[1]
            send({"id": rid, "error": {"code": -32603, "message": f"boom: key {piece} rejected"}})
            continue
        for n, name in enumerate(os.environ["ECHO_NAMES"].split(",")):
            value = os.environ.get(name, "?")
            crlf = value.replace("\n", "\r\n")
            lower = re.sub(
                "%[0-9A-F]{2}", lambda m: m[0].lower(), urllib.parse.quote(value, safe="")
            )
            form = urllib.parse.quote_plus(value)
            shout = urllib.parse.quote(value, safe="").lower() + " " + value.upper()
            say("s1", f"{name} is {value} / {crlf} / ?v={lower} / f={form} / {shout}\n")
            update("s1", {"sessionUpdate": "tool_call", "toolCallId": f"t{n}",
                          "title": f"psql with {value}", "kind": "execute",
                          "status": "completed"})  # fmt: skip
        send({"id": rid, "result": {"stopReason": "end_turn"}})
