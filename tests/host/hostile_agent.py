"""A hostile ACP agent in its own process: raw JSON lines, stdlib only.

On ``session/prompt`` it sends the requests listed (as JSON) in the
environment variable ``HOSTILE_STEPS``, one at a time, each a
``[method, params]`` pair in which the strings ``$SID`` and ``$CWD`` are
replaced by the session id and its cwd, and ``$TERMINAL`` by the id of the
last terminal an answer created. It then reports every response as
one ``agent_message_chunk`` (a JSON list) and ends the turn.
"""

from __future__ import annotations

import json
import os
import sys


def send(frame: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **frame}) + "\n")
    sys.stdout.flush()


def substitute(value: object, sid: str, cwd: str, terminal: str = "") -> object:
    if isinstance(value, str):
        return value.replace("$SID", sid).replace("$CWD", cwd).replace("$TERMINAL", terminal)
    if isinstance(value, list):
        return [substitute(v, sid, cwd, terminal) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, sid, cwd, terminal) for k, v in value.items()}
    return value


def main() -> None:
    steps = json.loads(os.environ.get("HOSTILE_STEPS", "[]"))
    sessions: dict[str, str] = {}
    lines = iter(sys.stdin.readline, "")
    for line in lines:
        msg = json.loads(line)
        method = msg.get("method")
        if method == "initialize":
            send({"id": msg["id"], "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            sessions["h1"] = msg["params"]["cwd"]
            send({"id": msg["id"], "result": {"sessionId": "h1"}})
        elif method == "session/prompt":
            sid = msg["params"]["sessionId"]
            answers = []
            terminal = ""
            for number, (step_method, params) in enumerate(steps, start=1):
                rid = f"hostile-{number}"
                send(
                    {
                        "id": rid,
                        "method": step_method,
                        "params": substitute(params, sid, sessions[sid], terminal),
                    }
                )
                for reply in lines:
                    frame = json.loads(reply)
                    if frame.get("id") == rid and "method" not in frame:
                        answers.append(frame)
                        result = frame.get("result")
                        if isinstance(result, dict) and "terminalId" in result:
                            terminal = result["terminalId"]
                        break
            chunk = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": json.dumps(answers)},
            }
            send({"method": "session/update", "params": {"sessionId": sid, "update": chunk}})
            send({"id": msg["id"], "result": {"stopReason": "end_turn"}})
        elif "id" in msg and method is not None:
            send({"id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
