"""A scripted ACP agent process speaking raw JSON lines (stdlib only, its own process).

It is the other side of the wire for TUI tests that need an agent to do what
the demo does not: send hostile text, ask for elicitations, send media blocks,
notices and compactions, lack session/load, crash with a chosen stderr.

The script is a JSON file named by ``SCRIPTED_AGENT_SCRIPT``::

    {"capabilities": {...agentCapabilities...},
     "agentInfo": {...},
     "session_prefix": "s-",
     "sessions": [...SessionInfo...],
     "prompts": {"<first word of the prompt>": [action, ...]}}

New sessions are named ``<session_prefix><n>``; ``session/list`` answers
``sessions`` in one page (only when the script has that key); ``session/load``
first replays the updates of ``load_replay`` (a list of update objects).

Actions, run in order for a prompt (``{sid}`` in any string is replaced by the
session id, a string ``{last.KEY}`` by that key of the last response's result):

- ``{"update": {...}}``: a ``session/update`` notification;
- ``{"notify": method, "params": {...}}``: any notification;
- ``{"request": method, "params": {...}}``: a request to the client; the
  response is kept, and ``{"say_response": true}`` writes it as a message;
  with ``"nowait": true`` the script goes on at once (requests overlap), and
  ``{"say_responses": n}`` waits for the first ``n`` and writes them all;
- ``{"wait_cancel": true}``: block until ``session/cancel`` arrives;
- ``{"stderr": text}``, ``{"exit": code}``: die like a crashing agent;
- ``{"stop": reason}``: the stop reason (default ``end_turn``).

Every frame received is appended to the file named by ``SCRIPTED_AGENT_LOG``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

_lock = threading.Lock()
_responses: dict[int, dict[str, Any]] = {}
_arrived: dict[int, threading.Event] = {}
_cancelled: dict[str, threading.Event] = {}
_next_id = [1000]
_session_seq = [0]


def send(frame: dict[str, Any]) -> None:
    line = json.dumps({"jsonrpc": "2.0", **frame}) + "\n"
    with _lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def log(frame: dict[str, Any]) -> None:
    path = os.environ.get("SCRIPTED_AGENT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(frame) + "\n")


def fill(value: Any, sid: str) -> Any:
    if isinstance(value, str):
        return value.replace("{sid}", sid)
    if isinstance(value, list):
        return [fill(v, sid) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, sid) for k, v in value.items()}
    return value


def fill_last(value: Any, last: dict[str, Any]) -> Any:
    """Replace ``{last.KEY}`` with ``KEY`` of the last response's result."""
    if isinstance(value, str) and value.startswith("{last.") and value.endswith("}"):
        result = last.get("result") if isinstance(last.get("result"), dict) else {}
        return str(result.get(value[6:-1], ""))
    if isinstance(value, list):
        return [fill_last(v, last) for v in value]
    if isinstance(value, dict):
        return {k: fill_last(v, last) for k, v in value.items()}
    return value


def request(method: str, params: Any) -> dict[str, Any]:
    with _lock:
        rid = _next_id[0]
        _next_id[0] += 1
        event = _arrived[rid] = threading.Event()
    send({"id": rid, "method": method, "params": params})
    event.wait()
    return _responses.pop(rid)


def run_prompt(script: dict[str, Any], rid: Any, params: dict[str, Any]) -> None:
    sid = params["sessionId"]
    words = "".join(b.get("text", "") for b in params.get("prompt", []) if isinstance(b, dict))
    key = (words.split() or [""])[0]
    actions = script.get("prompts", {}).get(key, [])
    stop = "end_turn"
    last: dict[str, Any] = {}
    pending: list[dict[str, Any]] = []
    threads: list[threading.Thread] = []
    for raw_action in fill(actions, sid):
        action = fill_last(raw_action, last)
        if "update" in action:
            send(
                {
                    "method": "session/update",
                    "params": {"sessionId": sid, "update": action["update"]},
                }
            )
        elif "notify" in action:
            send({"method": action["notify"], "params": action.get("params", {})})
        elif "request" in action and action.get("nowait"):
            thread = threading.Thread(
                target=lambda a=action: pending.append(request(a["request"], a.get("params", {}))),
                daemon=True,
            )
            thread.start()
            threads.append(thread)
        elif "request" in action:
            last = request(action["request"], action.get("params", {}))
        elif "say_responses" in action:
            for thread in threads:
                thread.join()
            text = json.dumps([r.get("result", r.get("error")) for r in pending], sort_keys=True)
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            }
            send({"method": "session/update", "params": {"sessionId": sid, "update": update}})
        elif action.get("say_response"):
            text = json.dumps(last.get("result", last.get("error")), sort_keys=True)
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            }
            send({"method": "session/update", "params": {"sessionId": sid, "update": update}})
        elif action.get("wait_cancel"):
            _cancelled.setdefault(sid, threading.Event()).wait()
            stop = "cancelled"
        elif "stderr" in action:
            sys.stderr.write(action["stderr"])
            sys.stderr.flush()
        elif "exit" in action:
            os._exit(int(action["exit"]))
        elif "stop" in action:
            stop = action["stop"]
    send({"id": rid, "result": {"stopReason": stop}})


def main() -> None:
    with open(os.environ["SCRIPTED_AGENT_SCRIPT"], encoding="utf-8") as f:
        script = json.load(f)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        log(msg)
        method = msg.get("method")
        rid = msg.get("id")
        if method is None:
            with _lock:
                event = _arrived.pop(rid, None)
                _responses[rid] = msg
            if event is not None:
                event.set()
        elif method == "initialize":
            result = {
                "protocolVersion": 1,
                "agentCapabilities": script.get("capabilities", {}),
                "authMethods": [],
                "agentInfo": script.get("agentInfo", {"name": "scripted", "version": "1.0"}),
            }
            send({"id": rid, "result": result})
        elif method == "session/new":
            _session_seq[0] += 1
            prefix = script.get("session_prefix", "s-")
            send({"id": rid, "result": {"sessionId": f"{prefix}{_session_seq[0]}"}})
        elif method == "session/list" and "sessions" in script:
            send({"id": rid, "result": {"sessions": script["sessions"]}})
        elif method in ("session/load", "session/resume"):
            if method == "session/load":
                for update in script.get("load_replay", []):
                    send(
                        {
                            "method": "session/update",
                            "params": {"sessionId": msg["params"]["sessionId"], "update": update},
                        }
                    )
            send({"id": rid, "result": {}})
        elif method == "session/prompt":
            _cancelled.pop(msg["params"]["sessionId"], None)
            threading.Thread(
                target=run_prompt, args=(script, rid, msg["params"]), daemon=True
            ).start()
        elif method == "session/cancel":
            _cancelled.setdefault(msg["params"]["sessionId"], threading.Event()).set()
        elif rid is not None:
            send({"id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    main()
