"""The raw test client of ``_raw_client``, speaking ACP v2 to the demo agent.

Every frame the agent sends, and every request and answer the test sends, is
validated against the v2 draft schema (``schema.unstable.json``: the stable
shapes and the unstable ones the demo uses, such as subagents and ``usage`` on
``state_update``), the copy shipped in the package (``acphost/schema/v2/``,
whose ``SOURCE.md`` names the npm package and the files' digests). It runs no
acphost code: the package is only located, not imported, to read that file.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

from _raw_client import RawClient
from jsonschema import Draft202012Validator


def _packaged_schema() -> Path:
    """The folder of the v2 schema shipped in acphost (found without running the package)."""
    spec = importlib.util.find_spec("acphost")
    assert spec is not None and spec.origin is not None, "acphost is not installed"
    return Path(spec.origin).parent / "schema" / "v2"


V2_DEFS: dict[str, Any] = json.loads(
    (_packaged_schema() / "schema.unstable.json").read_text(encoding="utf-8")
)["$defs"]


def _types(side: str) -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for name, definition in V2_DEFS.items():
        if definition.get("x-side") != side or "x-method" not in definition:
            continue
        for suffix in ("Request", "Response", "Notification"):
            if name.endswith(suffix):
                table.setdefault(definition["x-method"], {})[suffix.lower()] = name
    return table


V2_AGENT_METHODS = _types("agent")  # client -> agent
V2_CLIENT_METHODS = _types("client")  # agent -> client


@cache
def _validator(def_name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": V2_DEFS})


def v2_errors(def_name: str, value: Any) -> list[str]:
    """Return the errors of ``value`` against the v2 def ``def_name`` (empty if valid)."""
    return [f"{def_name} (v2): {e.message}" for e in _validator(def_name).iter_errors(value)]


#: v1 update kinds with no v2 meaning: the v2 schema would take them as a future
#: ("other") variant, so they are refused here by name.
V1_ONLY_UPDATES = frozenset({"tool_call", "plan", "current_mode_update"})

V2_INFO = {"name": "raw-v2-client", "title": "Raw v2 client", "version": "0"}


class RawV2Client(RawClient):
    """Drives the demo agent over ACP v2 with hand-written frames."""

    v2 = True  # frames are checked as v2 until a test re-initializes with v1

    def __init__(self, env: dict[str, str] | None = None, command: list[str] | None = None) -> None:
        super().__init__(env, command)

    def _validate_incoming(self, frame: dict[str, Any]) -> list[str]:
        if not self.v2:
            return super()._validate_incoming(frame)
        if frame.get("jsonrpc") != "2.0":
            return ["missing jsonrpc 2.0"]
        method = frame.get("method")
        if method is not None:
            kind = "request" if "id" in frame else "notification"
            name = V2_CLIENT_METHODS.get(method, {}).get(kind)
            if name is None:
                return [f"agent sent unknown v2 {kind} {method}"]
            update = (frame.get("params") or {}).get("update") or {}
            if method == "session/update" and update.get("sessionUpdate") in V1_ONLY_UPDATES:
                return [f"v1-only update {update['sessionUpdate']!r} on a v2 connection"]
            return v2_errors(name, frame.get("params"))
        if "error" in frame:
            return v2_errors("Error", frame["error"])
        sent = self._sent.get(frame.get("id"))
        if sent is None:
            return [f"response to an id we never sent: {frame.get('id')!r}"]
        return v2_errors(V2_AGENT_METHODS[sent]["response"], frame.get("result"))

    def request(self, method: str, params: dict[str, Any], request_id: Any = None) -> Any:
        """Send a request, checked against the v2 schema unless ``method`` is not v2."""
        if not self.v2:
            return super().request(method, params, request_id)
        kind = V2_AGENT_METHODS.get(method, {}).get("request")
        if kind is not None:
            assert not v2_errors(kind, params), v2_errors(kind, params)
        if request_id is None:
            self._next_id += 1
            request_id = self._next_id
        self._sent[request_id] = method
        self.send({"id": request_id, "method": method, "params": params})
        return request_id

    def request_unchecked(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request that is off-schema on purpose (its answer is still checked)."""
        self._next_id += 1
        self._sent[self._next_id] = method
        self.send({"id": self._next_id, "method": method, "params": params})
        return self._next_id

    def answer(self, frame: dict[str, Any], response: Any = None) -> None:
        if not self.v2:
            super().answer(frame, response)
            return
        method = frame["method"]
        reply = response if response is not None else self.responses.get(method)
        self.answered.append(frame)
        if isinstance(reply, tuple) and reply[0] == "error":
            self.send({"id": frame["id"], "error": reply[1]})
            return
        if reply is None:
            self.send({"id": frame["id"], "error": {"code": -32601, "message": "Method not found"}})
            return
        name = V2_CLIENT_METHODS[method]["response"]
        assert not v2_errors(name, reply), v2_errors(name, reply)
        self.send({"id": frame["id"], "result": reply})

    def initialize(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a v2 ``initialize`` (``info`` and ``capabilities``)."""
        if capabilities is None:
            capabilities = {"auth": {"terminal": {}}, "elicitation": {"form": {}, "url": {}}}
        return self.call(
            "initialize", {"protocolVersion": 2, "info": V2_INFO, "capabilities": capabilities}
        )

    def new_session(self, cwd: str = "/tmp", mcp_servers: list[Any] | None = None) -> str:
        """Create a session; v2 puts its commands in the answer, no update follows."""
        result = self.call("session/new", {"cwd": cwd, "mcpServers": mcp_servers or []})
        assert result["availableCommands"]
        return str(result["sessionId"])

    def run(
        self, session_id: str, text: str, timeout: float = 10.0
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Prompt and collect this session's updates until its ``idle`` state.

        Returns:
            (the updates, in order, the prompt's answer among them as
            ``{"sessionUpdate": "<answer>", ...}``; the idle update).

        """
        request_id = self.start_prompt(session_id, text)
        updates: list[dict[str, Any]] = []
        while True:
            frame = self.next_frame(timeout)
            assert frame is not None, bytes(self.stderr[-2000:])
            if "method" not in frame and frame.get("id") == request_id:
                assert "result" in frame, frame
                updates.append({"sessionUpdate": "<answer>", **frame["result"]})
                continue
            if frame.get("method") != "session/update":
                continue
            if frame["params"]["sessionId"] != session_id:
                updates.append({"sessionUpdate": "<child>", **frame["params"]})
                continue
            update = frame["params"]["update"]
            updates.append(update)
            if update["sessionUpdate"] == "state_update" and update["state"] == "idle":
                return updates, update
