"""An ACP agent that outlives the end of its stdin (and ignores SIGTERM and SIGHUP).

It answers ``initialize`` and ``session/new``, never answers a prompt, and
writes its pid to ``deaf.pid`` in its working directory once a prompt
arrived (the turn is then under way). When its stdin ends it keeps running,
as some real agents do: only a signal it cannot ignore ends it.
"""

import json
import os
import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {}}
    elif method == "session/new":
        result = {"sessionId": "deaf-1"}
    elif method == "session/prompt":
        with open("deaf.pid.tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace("deaf.pid.tmp", "deaf.pid")
        continue  # never answers
    elif rid is None:
        continue
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
while True:  # stdin has ended: deaf to it
    time.sleep(3600)
