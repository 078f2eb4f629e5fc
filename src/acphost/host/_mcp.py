"""The Model Context Protocol, server side, without I/O: messages in, replies and tool calls out.

ACP v2 has no client ``fs/*`` or ``terminal/*`` methods: an agent gets the
client's tools from the MCP servers listed in ``session/new``'s
``mcpServers`` (ACP "Session Setup", "MCP Servers"). acphost offers its own
tools that way; this module speaks the protocol (JSON-RPC 2.0, MCP "Base
Protocol" and "Lifecycle") for one MCP connection, whatever carries it: the
stdio bridge's socket or an HTTP POST.

Feed each decoded message to :meth:`McpConnection.receive`; it returns the
events to act on, in order: :class:`Reply` (a frame to send),
:class:`CallTool` (run the tool, then pass its result to
:meth:`McpConnection.tool_result` for the frame to send) and
:class:`CancelCall` (the client gave up on a call). Only tool calls wait on
anything, so they are the only events a driver runs as tasks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from .._version import __version__

__all__ = [
    "LATEST_VERSION",
    "SUPPORTED_VERSIONS",
    "CallTool",
    "CancelCall",
    "McpConnection",
    "McpTool",
    "Reply",
    "encode",
    "error_frame",
    "tool_error",
]

#: The MCP revisions this server speaks, newest first. A client asking for
#: one of them gets it; any other gets the newest (MCP "Lifecycle",
#: "Version Negotiation": the server "MUST respond with another protocol
#: version it supports", and the client decides whether to go on).
SUPPORTED_VERSIONS: tuple[str, ...] = ("2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = SUPPORTED_VERSIONS[0]

#: Revisions that know ``structuredContent`` and ``outputSchema`` (MCP
#: 2025-06-18 "Tools", "Structured Content"); older clients get text only.
_STRUCTURED_VERSIONS = frozenset({"2025-06-18"})

# JSON-RPC 2.0 error codes (JSON-RPC 2.0 specification, section 5.1).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

_SERVER_NAME = "acphost"

RequestId = int | str


@dataclass(frozen=True, slots=True)
class McpTool:
    """One tool as ``tools/list`` describes it (MCP "Tools", ``Tool``).

    Attributes:
        name: the programmatic name the client calls.
        title: a short human-readable name.
        description: what the tool does, for the model.
        input_schema: the JSON Schema of its ``arguments`` (an object schema).
        output_schema: the JSON Schema of its ``structuredContent``, if any.
        read_only: it changes nothing (``annotations.readOnlyHint``).

    """

    name: str
    title: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None
    read_only: bool = False

    def wire(self, version: str) -> dict[str, Any]:
        """The ``Tool`` object for a client that negotiated ``version``."""
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": dict(self.input_schema),
            "annotations": {
                "title": self.title,
                "readOnlyHint": self.read_only,
                "destructiveHint": not self.read_only,
                "openWorldHint": False,
            },
        }
        if version in _STRUCTURED_VERSIONS:
            out["title"] = self.title
            if self.output_schema is not None:
                out["outputSchema"] = dict(self.output_schema)
        return out


@dataclass(frozen=True, slots=True)
class Reply:
    """A frame to send to the client, as it goes on the wire (one JSON text, no newline)."""

    frame: bytes
    #: The request it answers (``None`` for an error about an unreadable message).
    request_id: RequestId | None = None


@dataclass(frozen=True, slots=True)
class CallTool:
    """The client called a tool: run it and pass the result to :meth:`McpConnection.tool_result`.

    Attributes:
        request_id: the ``tools/call`` request's id.
        name: a tool this connection offers (unknown names were answered already).
        arguments: the call's ``arguments`` object, not yet validated.

    """

    request_id: RequestId
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CancelCall:
    """The client cancelled a request (``notifications/cancelled``): stop it, send nothing.

    MCP "Cancellation": the receiver "SHOULD stop processing the cancelled
    request" and "not send a response for the cancelled request".
    """

    request_id: RequestId


Event = Reply | CallTool | CancelCall


def encode(message: Mapping[str, Any]) -> bytes:
    """One JSON-RPC message as UTF-8 JSON text, without a line break."""
    # The standard encoder with ensure_ascii never fails: a path the host
    # quotes may hold a lone surrogate (a file name that is not UTF-8), which
    # it escapes; and it escapes U+2028 and friends too.
    return json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def error_frame(request_id: RequestId | None, code: int, message: str) -> bytes:
    """A JSON-RPC error response."""
    return encode({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def _result_frame(request_id: RequestId, result: Mapping[str, Any]) -> bytes:
    return encode({"jsonrpc": "2.0", "id": request_id, "result": result})


def tool_error(message: str) -> dict[str, Any]:
    """A ``CallToolResult`` reporting a failure the model can read (``isError``).

    MCP "Tools", "Error Handling": errors of the tool's execution are
    reported in the result, so that the model sees them, not as protocol errors.
    """
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _is_id(value: object) -> bool:
    # MCP "Requests": the id "MUST be a string or integer" and "MUST NOT be null".
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


@dataclass
class McpConnection:
    """One MCP connection's state: negotiation and the tools it offers.

    Args:
        tools: the tools offered, in the order listed.
        instructions: a note for the client about the server (``initialize``).

    Attributes:
        version: the negotiated revision, ``None`` before ``initialize``.

    """

    tools: Sequence[McpTool]
    instructions: str | None = None
    version: str | None = None
    _by_name: dict[str, McpTool] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name = {tool.name: tool for tool in self.tools}

    @property
    def structured(self) -> bool:
        """The client takes ``structuredContent`` (MCP 2025-06-18 and later)."""
        return self.version in _STRUCTURED_VERSIONS

    def receive_data(self, data: bytes) -> list[Event]:
        """Take one message as received (a line, or an HTTP body) and say what to do.

        Args:
            data: the JSON text of one JSON-RPC message.

        Returns:
            The events, in order. Bytes that are not JSON get a parse error
            reply; a batch (a JSON array) an invalid-request reply: MCP
            2025-06-18 removed batching, and no client this server meets
            sends one.

        """
        try:
            # orjson, as for ACP frames: strict UTF-8, no lone surrogates (no
            # string reaches the host that it could not encode), no NaN, and
            # a bounded depth.
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            return [Reply(error_frame(None, PARSE_ERROR, "Parse error: the message is not JSON"))]
        return self.receive(message)

    def receive(self, message: Any) -> list[Event]:
        """Take one decoded message and say what to do (see :meth:`receive_data`)."""
        if isinstance(message, list):
            text = "Invalid Request: batches are not supported; send one message at a time"
            return [Reply(error_frame(None, INVALID_REQUEST, text))]
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return [Reply(error_frame(None, INVALID_REQUEST, "Invalid Request: not JSON-RPC 2.0"))]
        method = message.get("method")
        if "id" not in message:
            if isinstance(method, str):
                return self._notification(method, message.get("params"))
            # A response to a request we never send (this server sends none): ignored.
            return []
        request_id = message["id"]
        if not _is_id(request_id):
            text = "Invalid Request: the id must be a string or an integer"
            return [Reply(error_frame(None, INVALID_REQUEST, text))]
        if not isinstance(method, str):
            if "result" in message or "error" in message:
                return []  # a response: this server sends no requests, so none is awaited
            text = "Invalid Request: the method must be a string"
            return [Reply(error_frame(request_id, INVALID_REQUEST, text), request_id)]
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            text = f"Invalid params: {method} params must be an object"
            return [Reply(error_frame(request_id, INVALID_PARAMS, text), request_id)]
        return self._request(request_id, method, params or {})

    def _notification(self, method: str, params: Any) -> list[Event]:
        if method == "notifications/cancelled" and isinstance(params, dict):
            request_id = params.get("requestId")
            if isinstance(request_id, (int, str)) and _is_id(request_id):
                return [CancelCall(request_id)]
        # notifications/initialized and any other notification need no answer.
        return []

    def _request(self, request_id: RequestId, method: str, params: dict[str, Any]) -> list[Event]:
        def reply(result: Mapping[str, Any]) -> list[Event]:
            return [Reply(_result_frame(request_id, result), request_id)]

        def fail(code: int, text: str) -> list[Event]:
            return [Reply(error_frame(request_id, code, text), request_id)]

        if method == "ping":
            return reply({})
        if method == "initialize":
            return reply(self._initialize(params))
        if self.version is None:
            # MCP "Lifecycle": the client "SHOULD NOT send requests other than
            # pings before the server has responded to the initialize request".
            return fail(INVALID_REQUEST, f"Invalid Request: send initialize before {method}")
        if method == "tools/list":
            return reply({"tools": [tool.wire(self.version) for tool in self.tools]})
        if method == "tools/call":
            name = params.get("name")
            arguments = params.get("arguments")
            if not isinstance(name, str):
                return fail(INVALID_PARAMS, "Invalid params: tools/call needs a tool name")
            if name not in self._by_name:
                # MCP "Tools", "Error Handling": unknown tools are protocol errors.
                return fail(INVALID_PARAMS, f"Unknown tool: {name[:100]!r}")
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, dict):
                return [Reply(_result_frame(request_id, tool_error("arguments must be an object")))]
            return [CallTool(request_id, name, arguments)]
        return fail(METHOD_NOT_FOUND, f"Method not found: {method[:100]}")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        self.version = asked if asked in SUPPORTED_VERSIONS else LATEST_VERSION
        result: dict[str, Any] = {
            "protocolVersion": self.version,
            # Tools only: no resources, prompts or logging (MCP "Lifecycle",
            # "Capability Negotiation").
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": _SERVER_NAME, "version": __version__},
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def tool_result(self, request_id: RequestId, result: Mapping[str, Any]) -> Reply:
        """The reply to a :class:`CallTool`, given the tool's ``CallToolResult``.

        ``structuredContent`` is dropped for a client whose revision does not know it.
        """
        if "structuredContent" in result and not self.structured:
            result = {k: v for k, v in result.items() if k != "structuredContent"}
        return Reply(_result_frame(request_id, result), request_id)
