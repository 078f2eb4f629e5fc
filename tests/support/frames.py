"""Validate every frame the client sends against the vendored ACP schema.

The checker follows a connection's traffic in both directions: it learns the
method of each request the agent sends, so that the client's responses are
validated against that method's response type.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema


@cache
def _schema(unstable: bool = False) -> dict[str, Any]:
    name = "schema.unstable.json" if unstable else "schema.json"
    return json.loads(resources.files("acphost.schema").joinpath("v1", name).read_text())


@cache
def _method_types(unstable: bool = False) -> dict[tuple[str, str, str], str]:
    """(method, side, role) -> $defs name; role is request/response/notification."""
    out: dict[tuple[str, str, str], str] = {}
    for name, d in _schema(unstable)["$defs"].items():
        method = d.get("x-method")
        if not method:
            continue
        role = (
            "response"
            if name.endswith("Response")
            else ("notification" if name.endswith("Notification") else "request")
        )
        out[(method, d["x-side"], role)] = name
    return out


@cache
def _validator(name: str, unstable: bool = False) -> jsonschema.Draft202012Validator:
    schema = {"$ref": f"#/$defs/{name}", "$defs": _schema(unstable)["$defs"]}
    return jsonschema.Draft202012Validator(schema)


def validate_def(name: str, value: Any, unstable: bool = False) -> list[str]:
    """Errors of ``value`` against ``$defs[name]`` (empty when valid)."""
    return [
        f"{name}: {e.message} at {list(e.absolute_path)}"
        for e in _validator(name, unstable).iter_errors(value)
    ]


class FrameChecker:
    """Feed it every frame (direction, bytes); it records schema violations of ours."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.sent = 0
        self._agent_requests: dict[Any, str] = {}

    def __call__(self, direction: str, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            if direction == "send":
                self.errors.append(f"client sent invalid JSON: {line[:200]!r}")
            return
        if direction == "receive":
            if isinstance(msg, dict) and "method" in msg and "id" in msg:
                self._agent_requests[msg["id"]] = msg["method"]
            return
        self.sent += 1
        self.errors.extend(self.check_sent(msg))

    def check_sent(self, msg: Any) -> list[str]:
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            return [f"not a JSON-RPC 2.0 object: {msg!r}"]
        types = _method_types()
        if "method" in msg:
            method = msg["method"]
            role = "request" if "id" in msg else "notification"
            name = types.get((method, "agent", role)) or types.get((method, "protocol", role))
            unstable = False
            if name is None:
                name = _method_types(True).get((method, "agent", role))
                unstable = True
            if name is None:
                return [f"client sent unknown method {method!r}"]
            if "id" in msg and not isinstance(msg["id"], (int, str)):
                return [f"bad id {msg['id']!r}"]
            return validate_def(name, msg.get("params"), unstable)
        if "id" not in msg:
            return [f"response without id: {msg!r}"]
        method = self._agent_requests.pop(msg["id"], None)
        if "error" in msg:
            return validate_def("Error", msg["error"])
        if method is None:
            return [f"response to an unknown agent request {msg['id']!r}"]
        name = types.get((method, "client", "response"))
        if name is None:
            return [f"no response type for {method}"]
        return validate_def(name, msg["result"])
