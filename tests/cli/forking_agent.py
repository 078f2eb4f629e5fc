"""An agent whose turn leaves processes behind: a forked child and a terminal.

On ``session/prompt`` it starts ``sleep`` as its own child (same process
group), asks the client for a terminal running ``sleep`` (the shell writes its
pid to ``term.pid`` first), writes ``child.pid`` and ``agent.pid`` into the
session's cwd, and never answers the prompt.
"""

import json
import os
import subprocess
import sys

state = {}


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif method == "session/new":
        state["cwd"] = msg["params"]["cwd"]
        send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "fork-1"}})
    elif method == "session/prompt":
        child = subprocess.Popen(["sleep", "300"])
        send({"jsonrpc": "2.0", "id": 900, "method": "terminal/create", "params": {
            "sessionId": "fork-1", "command": "sh",
            "args": ["-c", "echo $$ > term.pid.tmp && mv term.pid.tmp term.pid && exec sleep 300"],
            "cwd": state["cwd"]}})
        state["child"] = child.pid
    elif rid == 900:  # the terminal exists (or was refused): say where everything is
        for name, pid in (("child", state["child"]), ("agent", os.getpid())):
            path = os.path.join(state["cwd"], name + ".pid")
            with open(path + ".tmp", "w") as f:
                f.write(str(pid))
            os.replace(path + ".tmp", path)
    elif rid is not None and method is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
