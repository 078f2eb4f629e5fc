"""Which schema-v1.25 updates do the pinned agents send? Tool names, notices, compactions.

Run it by hand (``python -m tests.interop.probe_v125``) after moving a pin; it
prints one line per agent for docs/INTEROP.md. It drives each agent with raw
JSON-RPC frames, advertising ``clientCapabilities.session.notices`` and
``.compaction`` (which acphost's client does not yet), against the fake model:
a turn that calls the agent's write tool (permission granted), then the
agent's own compaction command. Every frame it sends is validated against
ACP schema-v1.25.0 (``tests/agents/schema``).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tests.interop import install
from tests.interop.agents import AGENTS, Agent
from tests.interop.fake_model import FakeModel, Text

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "agents" / "schema" / "schema.json").read_text()
)
COMPACT_COMMAND = {"claude": "/compact", "gemini": "/compress", "qwen": "/compress"}
REQUESTS = {
    "initialize": "InitializeRequest",
    "session/new": "NewSessionRequest",
    "session/prompt": "PromptRequest",
}


def _check(def_name: str, value: Any) -> None:
    validator = Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": SCHEMA["$defs"]})
    errors = [e.message for e in validator.iter_errors(value)]
    assert not errors, (def_name, errors)


class Probe:
    """One agent process on raw pipes; records every frame it sends."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **env},
            cwd=cwd,
        )
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.updates: list[dict[str, Any]] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.frames.put(json.loads(line))
            except ValueError:
                continue
        self.frames.put(None)

    def send(self, frame: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **frame}).encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict[str, Any], timeout: float = 90) -> dict[str, Any]:
        _check(REQUESTS[method], params)
        self.next_id += 1
        rid = f"probe-{self.next_id}"
        self.send({"id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            frame = self.frames.get(timeout=max(0.1, deadline - time.monotonic()))
            if frame is None:
                raise RuntimeError(f"the agent exited during {method}")
            if frame.get("id") == rid and "method" not in frame:
                return frame
            if frame.get("method") == "session/update":
                self.updates.append(frame["params"]["update"])
            elif "method" in frame and "id" in frame:
                self._answer(frame)

    def _answer(self, frame: dict[str, Any]) -> None:
        method = frame["method"]
        if method == "session/request_permission":
            options = frame["params"]["options"]
            allow = next((o for o in options if o["kind"].startswith("allow")), options[0])
            result: dict[str, Any] = {
                "outcome": {"outcome": "selected", "optionId": allow["optionId"]}
            }
            _check("RequestPermissionResponse", result)
            self.send({"id": frame["id"], "result": result})
        elif method == "fs/read_text_file":
            path = Path(frame["params"]["path"])
            text = path.read_text() if path.exists() else ""
            self.send({"id": frame["id"], "result": {"content": text}})
        elif method == "fs/write_text_file":
            Path(frame["params"]["path"]).write_text(frame["params"]["content"])
            self.send({"id": frame["id"], "result": {}})
        else:
            self.send({"id": frame["id"], "error": {"code": -32601, "message": "Method not found"}})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def probe(agent: Agent, root: Path) -> dict[str, Any]:
    """Run the two turns; return what the agent sent."""
    home = Path(tempfile.mkdtemp(prefix="probe-home-"))
    ws = Path(os.path.realpath(tempfile.mkdtemp(prefix="probe-ws-")))
    script = [agent.write(str(ws / "out.txt"), "hi\n")] if agent.write else []
    with FakeModel(script=[*script, Text("Done.")], side_text="A short summary.") as model:
        agent.prepare_home(home, model)  # Codex and Vibe name the model's port there
        fake = None if agent.scripted else model
        p = Probe(agent.argv(root, fake), agent.env(home, fake), ws)
        try:
            caps = {
                "fs": {"readTextFile": True, "writeTextFile": True},
                "terminal": False,
                "session": {"notices": {}, "compaction": {}},
            }
            p.call("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
            sid = p.call("session/new", {"cwd": str(ws), "mcpServers": []})["result"]["sessionId"]
            prompt = [{"type": "text", "text": "write out.txt"}]
            p.call("session/prompt", {"sessionId": sid, "prompt": prompt})
            command = COMPACT_COMMAND.get(agent.name)
            if command is not None:
                text = [{"type": "text", "text": command}]
                p.call("session/prompt", {"sessionId": sid, "prompt": text})
        finally:
            p.close()
    calls = [u for u in p.updates if u.get("sessionUpdate") == "tool_call"]
    kinds = sorted({str(u.get("sessionUpdate")) for u in p.updates})
    return {
        "tool names": sorted({str(u["name"]) for u in calls if u.get("name")}),
        "tool calls": len(calls),
        "notices": [u for u in p.updates if u.get("sessionUpdate") == "notice"],
        "compaction updates": [u for u in p.updates if "compaction" in str(u.get("sessionUpdate"))],
        "update kinds": kinds,
    }


def main() -> int:
    """Probe every pinned agent and print what it sent."""
    root = install.ensure(log=print).resolve()
    for name in sorted(AGENTS):
        agent = AGENTS[name]
        try:
            here = install.ensure_pypi(name, log=print) if agent.pypi else root
            seen = probe(agent, here)
        except (RuntimeError, queue.Empty, AssertionError, install.Unavailable) as exc:
            print(f"{name}: probe failed: {exc!r}")
            continue
        print(f"{name}: {json.dumps(seen)[:1500]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
