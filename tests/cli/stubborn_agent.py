"""An agent that ignores session/cancel and SIGTERM (for the second-Ctrl-C test)."""

import json
import os
import signal
import sys

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubborn.pid"), "w") as f:
    f.write(str(os.getpid()))
for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {}}
    elif method == "session/new":
        result = {"sessionId": "stubborn-1"}
    elif method == "session/prompt":
        continue  # never answers
    elif rid is None:
        continue
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
