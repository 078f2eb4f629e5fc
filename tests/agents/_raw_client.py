"""A tiny hand-written ACP client for testing the demo agent over real pipes.

It uses no acphost module: frames are written and read by hand, and every
frame either side sends is validated against ACP schema-v1.25.0 (``schema/``).
Requests from the agent (permission, fs, terminal) get canned answers that a
test can override per method.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
# The wire shapes of ACP schema-v1.25.0 (stable and unstable), as shipped in the npm
# package @agentclientprotocol/sdk@2.4.0 (schema/v1/); see schema/README.md.
SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
SCHEMA: dict[str, Any] = json.loads((SCHEMA_DIR / "schema.json").read_text(encoding="utf-8"))
UNSTABLE: dict[str, Any] = json.loads(
    (SCHEMA_DIR / "schema.unstable.json").read_text(encoding="utf-8")
)
DEFS: dict[str, Any] = SCHEMA["$defs"]
UNSTABLE_DEFS: dict[str, Any] = UNSTABLE["$defs"]


def _types(defs: dict[str, Any], side: str) -> dict[str, dict[str, str]]:
    """Map each method handled by ``side`` to its Request/Response/Notification def names."""
    table: dict[str, dict[str, str]] = {}
    for name, definition in defs.items():
        if definition.get("x-side") != side or "x-method" not in definition:
            continue
        for suffix in ("Request", "Response", "Notification"):
            if name.endswith(suffix):
                table.setdefault(definition["x-method"], {})[suffix.lower()] = name
    return table


AGENT_METHODS = _types(DEFS, "agent")  # client -> agent (initialize, session/prompt, ...)
CLIENT_METHODS = _types(DEFS, "client")  # agent -> client (session/update, fs/..., ...)
# Methods only schema.unstable.json defines (session/set_title, auth/status, ...).
UNSTABLE_AGENT_METHODS = {
    k: v for k, v in _types(UNSTABLE_DEFS, "agent").items() if k not in AGENT_METHODS
}
UNSTABLE_CLIENT_METHODS = {
    k: v for k, v in _types(UNSTABLE_DEFS, "client").items() if k not in CLIENT_METHODS
}


@cache
def validator(def_name: str, unstable: bool = False) -> Draft202012Validator:
    """Return a validator for ``#/$defs/<def_name>`` of the stable or unstable schema."""
    defs = UNSTABLE_DEFS if unstable else DEFS
    return Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": defs})


def schema_errors(def_name: str, value: Any) -> list[str]:
    """Return the errors of ``value`` against ``def_name`` (empty if valid).

    A value must satisfy the stable schema where it defines ``def_name`` and the
    unstable schema too: the stable shapes leave unknown fields open, and the
    unstable schema types the ones it adds (``PromptResponse.usage``,
    ``SessionInfo.archived``, ...).
    """
    errors: list[str] = []
    if def_name in DEFS:
        errors += [f"{def_name}: {e.message}" for e in validator(def_name).iter_errors(value)]
    errors += [
        f"{def_name} (unstable): {e.message}" for e in validator(def_name, True).iter_errors(value)
    ]
    return errors


def canned_responses() -> dict[str, Any]:
    """Default answers to the agent's requests: a result dict or ``("error", {...})``."""
    return {
        "session/request_permission": {
            "outcome": {"outcome": "selected", "optionId": "allow-once"}
        },
        "fs/read_text_file": {"content": "first line\nsecond line\n"},
        "fs/write_text_file": {},
        "terminal/create": {"terminalId": "term-1"},
        "terminal/output": {"output": "hello\n", "truncated": False, "exitStatus": {"exitCode": 0}},
        "terminal/wait_for_exit": {"exitCode": 0},
        "terminal/release": {},
        "terminal/kill": {},
        "elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
    }


def agent_method(method: str) -> dict[str, str]:
    """Return the def names of a method the agent handles, stable or unstable."""
    return AGENT_METHODS.get(method) or UNSTABLE_AGENT_METHODS.get(method) or {}


class RawClient:
    """Drives ``python -m acphost.agents.demo`` with hand-written JSON-RPC frames."""

    def __init__(self, env: dict[str, str] | None = None, command: list[str] | None = None) -> None:
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT / "src"), full_env.get("PYTHONPATH", "")) if p
        )
        full_env["ACPHOST_DEMO_STEP"] = "0"
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            command or [sys.executable, "-m", "acphost.agents.demo"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
        )
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.invalid: list[tuple[dict[str, Any], list[str]]] = []
        self.expected_invalid: list[
            dict[str, Any]
        ] = []  # frames a test sends off-schema on purpose
        self.received: list[dict[str, Any]] = []  # every frame the agent sent, in order
        self.answered: list[dict[str, Any]] = []  # the agent's requests we answered
        self.responses = canned_responses()
        self.auto_answer = True
        self.stderr = bytearray()
        self.stderr_done = threading.Event()  # set once the agent's stderr is closed
        self._sent: dict[Any, str] = {}
        self._next_id = 0
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- plumbing ---------------------------------------------------------------

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            frame = json.loads(line)
            assert line.endswith(b"\n") and line.count(b"\n") == 1
            self.received.append(frame)
            errors = self._validate_incoming(frame)
            if errors:
                self.invalid.append((frame, errors))
            self.frames.put(frame)
        self.frames.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := self.proc.stderr.read1(65536):
            self.stderr += chunk
        self.stderr_done.set()

    def _validate_incoming(self, frame: dict[str, Any]) -> list[str]:
        if frame.get("jsonrpc") != "2.0":
            return ["missing jsonrpc 2.0"]
        method = frame.get("method")
        if method is not None:
            kind = "request" if "id" in frame else "notification"
            name = {**UNSTABLE_CLIENT_METHODS, **CLIENT_METHODS}.get(method, {}).get(kind)
            if name is None:
                return [f"agent sent unknown {kind} {method}"]
            return schema_errors(name, frame.get("params"))
        if "error" in frame:
            return schema_errors("Error", frame["error"])
        sent = self._sent.get(frame.get("id"))
        if sent is None:
            return [f"response to an id we never sent: {frame.get('id')!r}"]
        return schema_errors(agent_method(sent)["response"], frame.get("result"))

    def send(self, frame: dict[str, Any]) -> None:
        """Write one raw frame (``jsonrpc`` is added)."""
        assert self.proc.stdin is not None
        data = json.dumps({"jsonrpc": "2.0", **frame}).encode() + b"\n"
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], request_id: Any = None) -> Any:
        """Send a request (validated against the schema first) and return its id."""
        kind = agent_method(method).get("request")
        if kind is not None:
            assert not schema_errors(kind, params), schema_errors(kind, params)
        if request_id is None:
            self._next_id += 1
            request_id = self._next_id
        self._sent[request_id] = method
        self.send({"id": request_id, "method": method, "params": params})
        return request_id

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification."""
        self.send({"method": method, "params": params})

    def next_frame(self, timeout: float = 5.0) -> dict[str, Any] | None:
        """Return the next frame from the agent (None at EOF), answering its requests."""
        frame = self.frames.get(timeout=timeout)
        if frame is not None and "method" in frame and "id" in frame and self.auto_answer:
            self.answer(frame)
        return frame

    def answer(self, frame: dict[str, Any], response: Any = None) -> None:
        """Answer one agent request with ``response`` or the canned answer for its method."""
        method = frame["method"]
        reply = response if response is not None else self.responses.get(method)
        self.answered.append(frame)
        if isinstance(reply, tuple) and reply[0] == "error":
            self.send({"id": frame["id"], "error": reply[1]})
            return
        if reply is None:
            self.send({"id": frame["id"], "error": {"code": -32601, "message": "Method not found"}})
            return
        name = {**UNSTABLE_CLIENT_METHODS, **CLIENT_METHODS}[method]["response"]
        assert not schema_errors(name, reply), schema_errors(name, reply)
        self.send({"id": frame["id"], "result": reply})

    def until_response(
        self, request_id: Any, timeout: float = 5.0
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Collect frames until the response to ``request_id``; return (others, response)."""
        deadline = time.monotonic() + timeout
        others: list[dict[str, Any]] = []
        while True:
            frame = self.next_frame(max(0.01, deadline - time.monotonic()))
            if frame is None:
                raise AssertionError(f"agent exited; stderr={bytes(self.stderr[-2000:])!r}")
            if "method" not in frame and frame.get("id") == request_id:
                return others, frame
            others.append(frame)

    def call(self, method: str, params: dict[str, Any], request_id: Any = None) -> dict[str, Any]:
        """Send a request and return its result; fail on an error response."""
        _, response = self.until_response(self.request(method, params, request_id))
        assert "result" in response, response
        result: dict[str, Any] = response["result"]
        return result

    # -- conveniences -------------------------------------------------------------

    def initialize(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run ``initialize`` with full client capabilities unless told otherwise."""
        if capabilities is None:
            capabilities = {
                "fs": {"readTextFile": True, "writeTextFile": True},
                "terminal": True,
                "session": {"configOptions": {"boolean": {}}, "notices": {}, "compaction": {}},
                "elicitation": {"form": {}, "url": {}},
            }
        return self.call(
            "initialize",
            {
                "protocolVersion": 1,
                "clientCapabilities": capabilities,
                "clientInfo": {"name": "raw-test-client", "version": "0"},
            },
        )

    def new_session(self, cwd: str = "/tmp") -> str:
        """Create a session, consume the commands update that follows, return the id."""
        result = self.call("session/new", {"cwd": cwd, "mcpServers": []})
        follow = self.next_frame()
        assert follow is not None
        assert follow["params"]["update"]["sessionUpdate"] == "available_commands_update"
        return str(result["sessionId"])

    def start_prompt(self, session_id: str, text: str) -> Any:
        """Send a one-text-block prompt and return its request id."""
        return self.request(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
        )

    def prompt(
        self, session_id: str, text: str, timeout: float = 5.0
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Send a one-text-block prompt; return (updates' update objects, response)."""
        request_id = self.start_prompt(session_id, text)
        frames, response = self.until_response(request_id, timeout)
        updates = [
            f["params"]["update"]
            for f in frames
            if f.get("method") == "session/update" and f["params"]["sessionId"] == session_id
        ]
        return updates, response

    def close(self, timeout: float = 5.0) -> int:
        """Close stdin and wait for the agent to exit; return its exit code."""
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


# -- reading what the agent sent ---------------------------------------------------


def texts(updates: list[dict[str, Any]], kind: str = "agent_message_chunk") -> str:
    """Join the text blocks of the ``kind`` chunks (other content kinds are skipped)."""
    return "".join(
        u["content"]["text"]
        for u in updates
        if u["sessionUpdate"] == kind and u["content"]["type"] == "text"
    )


def chunks(updates: list[dict[str, Any]], kind: str = "agent_message_chunk") -> list[Any]:
    """Return the content blocks of the ``kind`` chunks, in order."""
    return [u["content"] for u in updates if u["sessionUpdate"] == kind]


def tool_contents(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        c
        for u in updates
        if u["sessionUpdate"] in ("tool_call", "tool_call_update")
        for c in u.get("content") or []
    ]


def kinds(updates: list[dict[str, Any]]) -> list[str]:
    return [u["sessionUpdate"] for u in updates]
