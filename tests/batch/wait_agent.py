"""A tiny ACP agent bound by its "model", not by CPU: ``wait SECONDS`` waits, then answers.

Raw JSON-RPC over stdio, standard library only (it starts in ~20 ms). The
prompt's first word picks what it does:

- ``wait S``: wait S seconds (``session/cancel`` ends the wait: stopReason
  ``cancelled``), then answer "waited S s";
- ``touch NAME``: write the file NAME in its working directory itself (as
  real agents write), then answer;
- ``ignore-cancel S``: wait S seconds and ignore ``session/cancel``;
- ``fail TEXT``: answer the prompt with a JSON-RPC error whose message is TEXT;
- ``block``: wait until the file named by ``WAIT_AGENT_RELEASE`` exists (or a cancel);
- anything else: answer "ok".

``WAIT_AGENT_PIDFILE_DIR``: each process writes its pid in a file there, and
``PID.prompted`` once a prompt has reached it.
"""

from __future__ import annotations

import json
import os
import sys
import threading

_lock = threading.Lock()
_cancels: dict[str, threading.Event] = {}


def send(message: dict) -> None:
    with _lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def say(session_id: str, text: str) -> None:
    send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": session_id,
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": text},
                },
            },
        }
    )


def prompt(request_id: object, params: dict, cwd: str) -> None:
    session_id = params["sessionId"]
    text = " ".join(b.get("text", "") for b in params["prompt"] if b.get("type") == "text")
    words = text.split()
    cancel = _cancels.setdefault(session_id, threading.Event())
    cancel.clear()
    stop = "end_turn"
    if words[:1] == ["fail"]:
        error = {"code": -32603, "message": text.partition(" ")[2]}
        send({"jsonrpc": "2.0", "id": request_id, "error": error})
        return
    if words[:1] == ["wait"]:
        seconds = float(words[1])
        if cancel.wait(seconds):
            stop = "cancelled"
        say(session_id, f"waited {seconds:g} s")
    elif words[:1] == ["block"]:
        release = os.environ["WAIT_AGENT_RELEASE"]
        while not os.path.exists(release):
            if cancel.wait(0.01):
                stop = "cancelled"
                break
        say(session_id, "released")
    elif words[:1] == ["ignore-cancel"]:
        threading.Event().wait(float(words[1]))
        say(session_id, "done, whatever you said")
    elif words[:1] == ["touch"]:
        with open(os.path.join(cwd, words[1]), "w", encoding="utf-8") as f:
            f.write("written by the wait agent\n")
        say(session_id, f"wrote {words[1]}")
    else:
        say(session_id, "ok")
    send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": stop}})


def main() -> None:
    pid_dir = os.environ.get("WAIT_AGENT_PIDFILE_DIR")
    if pid_dir:
        with open(os.path.join(pid_dir, f"{os.getpid()}.pid"), "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
    cwds: dict[str, str] = {}
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "session/new":
            session_id = f"wait-{len(cwds) + 1}"
            cwds[session_id] = params["cwd"]
            send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": session_id}})
        elif method == "session/prompt":
            if pid_dir:  # tests wait on this instead of guessing how long a prompt takes
                with open(os.path.join(pid_dir, f"{os.getpid()}.prompted"), "w"):
                    pass
            cwd = cwds[params["sessionId"]]
            threading.Thread(target=prompt, args=(request_id, params, cwd), daemon=True).start()
        elif method == "session/cancel":
            _cancels.setdefault(params["sessionId"], threading.Event()).set()
        elif request_id is not None and method is not None:
            error = {"code": -32601, "message": f"method not found: {method}"}
            send({"jsonrpc": "2.0", "id": request_id, "error": error})


if __name__ == "__main__":
    main()
