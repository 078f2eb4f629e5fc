"""An ACP agent that answers every prompt with the session updates of a JSON file.

``script_agent.py SCRIPT``: SCRIPT holds a list of ``session/update`` update
objects; each prompt sends them in order, then ends its turn (``end_turn``).
"""

import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    SCRIPT = json.load(f)


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []},
            }
        )
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
    elif method == "session/prompt":
        for update in SCRIPT:
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {"sessionId": "s1", "update": update},
                }
            )
        send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
