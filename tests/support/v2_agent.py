"""A scripted ACP v2 agent: a real subprocess that plays frames from a script.

``python tests/support/v2_agent.py claude|codex|SCRIPT.json`` speaks ACP v2 on
stdin/stdout the way today's adapters do (their frames are in the research
captures): ``claude`` imitates claude-agent-acp 0.101.0 and ``codex`` codex-acp
2.6.0, in the shapes of the v2 draft schema. It is a test double for the client
side, so it shares no code with acphost.

Negotiation as the SDK 2.4.0 router does it: a v2-shaped ``initialize`` (with
``info``) for 2 or more gets version 2; for exactly 2 without ``info``, -32602 and
the connection stays open; version 1 gets a v1 answer unless the script's
``versions`` lacks 1 (then -32602 too). A script whose ``versions`` is ``[1]``
is a v1-only agent: it answers 1 to everything.

A script is a JSON object:

- ``versions``: the versions it speaks (default ``[1, 2]``);
- ``initialize``: the v2 ``InitializeResponse``; ``session``: the ``session/new``
  result (``$session`` is its id);
- ``turns``: one list of steps per prompt (the last repeats). A step is one of
  ``{"update": U}`` (on the session, or ``"on": ID`` for a child), ``{"answer":
  true}`` (the prompt's ``{messageId}`` now), ``{"request": METHOD, "params": P}``
  (waits for the client's answer), ``{"notify": METHOD, "params": P}``,
  ``{"wait_cancel": true}`` (until ``session/cancel``) and ``{"exit": CODE}``;
- ``replay``: the updates a ``session/resume`` with ``replayFrom`` sends.

In every string ``$session``, ``$message`` and ``$prompt_text`` are replaced; an
update whose value is ``"$prompt"`` gets the prompt's content blocks. A cancelled
turn ends with ``state_update`` idle ``cancelled``. With ``V2_AGENT_LOG`` set,
every frame the client sent is appended there, one JSON line each.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

Json = dict[str, Any]

SESSION = "a2f4c0de-5201-4a5e-a073-ef0c25c2a94e"
CHILD_CLAUDE = "a5fcedb0c3ba1b8ee"
CHILD_CODEX = "$session:subagent:01a21f17-19f5-7360-8c07-9294290afbba"
QUOTA = {
    "token_count": {"totalTokens": 140, "inputTokens": 100, "outputTokens": 40},
    "model_usage": [{"model": "fake-model", "token_count": {"totalTokens": 140}}],
}
USAGE = {"totalTokens": 140, "inputTokens": 100, "outputTokens": 40, "cachedReadTokens": 0}
OPTIONS = [
    {"optionId": "allow-once", "name": "Yes", "kind": "allow_once"},
    {"optionId": "reject", "name": "No", "kind": "reject_once"},
]


def _config(mode: str) -> list[Json]:
    return [
        {
            "configId": "mode",
            "name": "Mode",
            "category": "mode",
            "type": "select",
            "currentValue": mode,
            "options": [{"value": "default", "name": "Manual"}, {"value": "auto", "name": "Auto"}],
        },
        {"configId": "fast", "name": "Fast mode", "type": "boolean", "currentValue": False},
    ]


def _state(value: str, background: bool, **fields: Any) -> Json:
    update = {"sessionUpdate": "state_update", "state": value, **fields}
    if background:  # only claude reports its (empty) background work
        update["background"] = []
    return {"update": update}


def _terminal(call: str, claude: bool) -> list[Json]:
    """A command run as the adapter's own terminal: announced, output in base64, exit."""
    command = {"command": "echo hi", "cwd": "/ws"} if not claude else {"command": "echo hi"}
    steps: list[Json] = [
        {"update": {"sessionUpdate": "terminal_update", "terminalId": call, **command}},
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call,
                "name": "Bash" if claude else "exec_command",
                "kind": "execute",
                "title": "echo hi",
                "status": "pending" if claude else "in_progress",
                "rawInput": {"command": "echo hi"},
                "content": [{"type": "terminal", "terminalId": call}],
            }
        },
        _state("requires_action", claude),
        {
            "request": "session/request_permission",
            "params": {
                "sessionId": "$session",
                "title": "echo hi",
                **({} if claude else {"description": "probe needs to run a command"}),
                "subject": {
                    "type": "tool_call",
                    "toolCall": {"toolCallId": call, "title": "echo hi", "kind": "execute"},
                },
                "options": OPTIONS,
            },
        },
        _state("running", claude),
    ]
    output = {"output": {"data": "aGkK"}}  # "hi\n"
    exit_status = {"exitStatus": {"exitCode": 0, "signal": None}}
    if claude:  # claude sends the output and the exit in separate upserts
        steps += [
            {"update": {"sessionUpdate": "terminal_update", "terminalId": call, **output}},
            {"update": {"sessionUpdate": "terminal_update", "terminalId": call, **exit_status}},
        ]
    else:
        update = {"sessionUpdate": "terminal_update", "terminalId": call, **output, **exit_status}
        steps.append({"update": update})
    steps.append(
        {"update": {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"}}
    )
    return steps


def _chunk(text: str, message: str) -> Json:
    content = {"type": "text", "text": text}
    return {
        "update": {"sessionUpdate": "agent_message_chunk", "messageId": message, "content": content}
    }


def claude() -> Json:
    """claude-agent-acp's v2 turn: a write with a diff, a command, a subagent."""
    write = "toolu_fake_53"
    patch = "diff --git a/ws/a.txt b/ws/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/ws/a.txt\n@@ -0,0 +1 @@\n+hello\n"
    child = CHILD_CLAUDE
    turn: list[Json] = [
        {
            "update": {
                "sessionUpdate": "user_message",
                "messageId": "$message",
                "content": "$prompt",
            }
        },
        {"answer": True},
        _state("running", True),
        _chunk("Calling Write.", "msg_fake_53"),
        # rawInput streams in over several upserts; omitted fields keep their values.
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": write,
                "name": "Write",
                "rawInput": {},
                "status": "pending",
                "title": "Preparing file…",
                "kind": "edit",
            }
        },
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": write,
                "rawInput": {"file_path": "/ws/a.txt"},
                "title": "Write a.txt",
                "locations": [{"path": "/ws/a.txt"}],
            }
        },
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": write,
                "rawInput": {"file_path": "/ws/a.txt", "content": "hello\n"},
                "content": [
                    {
                        "type": "diff",
                        "changes": [{"operation": "add", "path": "/ws/a.txt", "fileType": "text"}],
                        "patch": {"format": "git_patch", "text": patch},
                    }
                ],
            }
        },
        {
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": write,
                "status": "completed",
                "rawOutput": "File created successfully at: /ws/a.txt",
            }
        },
        *_terminal("toolu_fake_55", claude=True),
        {
            "update": {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "title": "probe subagent",
                "description": "general-purpose",
                "capabilities": {"cancel": {}},
                "state": {"state": "running", "background": []},
            }
        },
        {"on": child, **_state("running", True)},
        {
            "update": {
                "sessionUpdate": "session_message",
                "messageId": "toolu_fake_36",
                "senderSessionId": "$session",
                "recipientSessionId": child,
                "content": [{"type": "text", "text": "Reply with the word pong."}],
                "recipientMessageId": "toolu_fake_36",
            }
        },
        {"on": child, **_chunk("pong", "msg_fake_38")},
        {
            "update": {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "state": {"state": "idle", "stopReason": "end_turn", "background": []},
            }
        },
        {"on": child, **_state("idle", True, stopReason="end_turn")},
        _chunk("DONE: pong", "msg_fake_39"),
        {"update": {"sessionUpdate": "usage_update", "used": 70, "size": 1000000}},
        _state("idle", True, stopReason="end_turn", usage=USAGE, _meta={"quota": QUOTA}),
    ]
    return {
        "initialize": _init("@agentclientprotocol/claude-agent-acp", "Claude Agent"),
        "turns": [turn],
    }


def codex() -> Json:
    """codex-acp's v2 turn: a chunked echo, a command, a child that outlives the turn."""
    child = CHILD_CODEX
    turn: list[Json] = [
        _state("running", False),
        {
            "update": {
                "sessionUpdate": "user_message_chunk",
                "messageId": "$message",
                "content": {"type": "text", "text": "$prompt_text"},
            }
        },
        {"answer": True},
        *_terminal("call_fake_24", claude=False),
        {
            "update": {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "capabilities": {},
                "description": "Reply with the word pong.",
            }
        },
        {"on": child, **_state("running", False)},
        {
            "update": {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "state": {"state": "running"},
            }
        },
        {
            "update": {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "capabilities": {"cancel": {}},
            }
        },
        _chunk("DONE: spawned", "msg_fake_6"),
        _state("idle", False, stopReason="end_turn", usage=USAGE, _meta={"quota": QUOTA}),
        # The child keeps streaming after the parent's turn ended.
        {"on": child, **_chunk("Hello from the child.", "msg_fake_7")},
        {"on": child, **_state("idle", False, stopReason="end_turn")},
        {
            "update": {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "state": {"state": "idle", "stopReason": "end_turn"},
            }
        },
        {
            "update": {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "capabilities": {"cancel": None},
            }
        },
    ]
    return {"initialize": _init("@agentclientprotocol/codex-acp", "Codex"), "turns": [turn]}


def _init(name: str, title: str) -> Json:
    return {
        "protocolVersion": 2,
        "info": {"name": name, "title": title, "version": "0.0.0-scripted"},
        "capabilities": {
            "session": {
                "prompt": {"image": {}, "embeddedContext": {}},
                "mcp": {"stdio": {}, "http": {}},
            },
        },
        "authMethods": [],
    }


V1_INIT = {
    "protocolVersion": 1,
    "agentCapabilities": {"loadSession": False},
    "agentInfo": {"name": "scripted-v1", "version": "0"},
    "authMethods": [],
}


class Agent:
    """Plays a script on stdin/stdout."""

    def __init__(self, script: Json) -> None:
        self.script = script
        self.versions = script.get("versions", [1, 2])
        self.lock = threading.Lock()
        self.replies: dict[int, threading.Event] = {}
        self.next_id = 0  # the adapters number their requests from 0
        self.cancelled = threading.Event()
        self.turns = 0
        self.log = os.environ.get("V2_AGENT_LOG")

    def send(self, frame: Json) -> None:
        with self.lock:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", **frame}) + "\n")
            sys.stdout.flush()

    def run(self) -> int:
        for line in sys.stdin:
            if not line.strip():
                continue
            frame = json.loads(line)
            if self.log:
                with open(self.log, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(frame) + "\n")
            if "method" not in frame:
                event = self.replies.pop(frame.get("id"), None)
                if event is not None:
                    event.set()
                continue
            self.receive(frame)
        return 0

    def receive(self, frame: Json) -> None:
        method, params, rid = frame["method"], frame.get("params") or {}, frame.get("id")
        if method == "session/cancel":
            self.cancelled.set()
            for event in list(self.replies.values()):  # stop waiting for an answer
                event.set()
            return
        if rid is None:
            return
        if method == "initialize":
            self.initialize(rid, params)
        elif method == "session/new":
            result = self.script.get("session") or {
                "sessionId": SESSION,
                "configOptions": _config("auto"),
            }
            self.send({"id": rid, "result": self.fill(result, {})})
        elif method == "session/set_config_option":
            if "type" not in params:  # v2 requires it, as both adapters check
                self.fail(rid, "invalid params: [type] expected")
            else:
                self.send(
                    {"id": rid, "result": {"configOptions": _config(str(params.get("value")))}}
                )
        elif method == "session/resume":
            if params.get("replayFrom") is not None:
                for update in self.script.get("replay", []):
                    self.update(SESSION, update)
            self.update(SESSION, {"sessionUpdate": "state_update", "state": "idle"})
            self.send({"id": rid, "result": {"configOptions": _config("auto")}})
        elif method == "session/prompt":
            self.cancelled.clear()
            threading.Thread(target=self.turn, args=(rid, params), daemon=True).start()
        elif method == "session/close":
            self.send({"id": rid, "result": {}})
        else:
            self.send(
                {"id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}
            )

    def fail(self, rid: Any, data: str) -> None:
        self.send({"id": rid, "error": {"code": -32602, "message": "Invalid params", "data": data}})

    def initialize(self, rid: Any, params: Json) -> None:
        asked = params.get("protocolVersion")
        if not isinstance(asked, int):
            self.fail(rid, "invalid initialize params: [protocolVersion] expected number")
        elif 2 in self.versions and asked >= 2 and isinstance(params.get("info"), dict):
            self.send(
                {
                    "id": rid,
                    "result": self.script.get("initialize") or _init("scripted", "Scripted"),
                }
            )
        elif 2 in self.versions and asked == 2:
            self.fail(rid, "invalid initialize params: [info] expected object")
        elif 1 in self.versions:
            self.send({"id": rid, "result": V1_INIT})
        else:
            self.fail(rid, "unsupported protocol version")

    def update(self, session: str, update: Json) -> None:
        self.send({"method": "session/update", "params": {"sessionId": session, "update": update}})

    def fill(self, value: Any, names: dict[str, Any]) -> Any:
        """Replace ``$session``, ``$message``, ``$prompt_text`` and ``"$prompt"`` in ``value``."""
        if isinstance(value, dict):
            return {k: self.fill(v, names) for k, v in value.items()}
        if isinstance(value, list):
            return [self.fill(v, names) for v in value]
        if value == "$prompt":
            return names.get("prompt", [])
        if isinstance(value, str):
            for key in ("$prompt_text", "$message", "$session"):
                value = value.replace(
                    key, str(names.get(key[1:], SESSION if key == "$session" else ""))
                )
        return value

    def turn(self, rid: Any, params: Json) -> None:
        turns = self.script.get("turns") or [[{"answer": True}]]
        steps = turns[min(self.turns, len(turns) - 1)]
        self.turns += 1
        prompt = params.get("prompt") or []
        text = "".join(b.get("text", "") for b in prompt if isinstance(b, dict))
        names = {
            "session": SESSION,
            "message": f"user-{self.turns}",
            "prompt": prompt,
            "prompt_text": text,
        }
        for step in self.fill(steps, names):
            if self.cancelled.is_set():
                self.update(
                    SESSION,
                    {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"},
                )
                return
            if "update" in step:
                self.update(step.get("on", SESSION), step["update"])
            elif "answer" in step:
                self.send({"id": rid, "result": {"messageId": names["message"]}})
            elif "request" in step:
                self.request(step["request"], step.get("params", {}))
            elif "notify" in step:
                self.send({"method": step["notify"], "params": step.get("params", {})})
            elif "wait_cancel" in step:
                self.cancelled.wait()
                self.update(
                    SESSION,
                    {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"},
                )
                return
            elif "exit" in step:
                sys.stdout.flush()
                os._exit(int(step["exit"]))

    def request(self, method: str, params: Json) -> None:
        event = threading.Event()
        with self.lock:
            rid = self.next_id
            self.next_id += 1
            self.replies[rid] = event
        self.send({"id": rid, "method": method, "params": params})
        event.wait()  # the client's answer, or session/cancel


def command(script: str = "claude") -> list[str]:
    """The command line that starts this agent with ``script`` (a flavor or a JSON file)."""
    return [sys.executable, os.path.abspath(__file__), script]


def load(name: str) -> Json:
    """The built-in flavor ``name`` or the script in the JSON file ``name``."""
    if name == "claude":
        return claude()
    if name == "codex":
        return codex()
    with open(name, encoding="utf-8") as handle:
        script: Json = json.load(handle)
    return script


if __name__ == "__main__":
    sys.exit(Agent(load(sys.argv[1] if len(sys.argv) > 1 else "claude")).run())
