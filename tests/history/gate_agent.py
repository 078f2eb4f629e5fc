"""A scripted agent whose turn waits for a gate: it answers a prompt once the file ``argv[1]`` exists.

Tests use it to act while a real run is between the start and the end of a
turn (its session is in the history, its turn begun and not yet saved).
"""

import json
import os
import sys
import time

gate = sys.argv[1]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {}}
    elif method == "session/new":
        result = {"sessionId": "gate-1"}
    elif method == "session/prompt":
        deadline = time.monotonic() + 60
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.01)  # polling a file the test creates, with a deadline
        send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": msg["params"]["sessionId"],
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "done"},
                    },
                },
            }
        )
        result = {"stopReason": "end_turn"}
    elif rid is None:
        continue
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": rid, "result": result})
