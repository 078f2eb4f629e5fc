"""ACP v2 on the wire, one model inside: the one place the client's versions differ.

ACP v2 (``acp-schema/v2``, the draft the newest adapters answer to) changes
shapes more than meaning. The library keeps one model, the v1 one its
sessions, turns, state, view and faces already speak, and this module maps
the v2 wire onto it in both directions, as the official SDK's router maps a
v2 connection onto its v1 agent:

- requests we send: ``session/load`` is ``session/resume`` with
  ``replayFrom: {type: start}``; ``authenticate`` is ``auth/login``;
  ``session/set_config_option`` carries ``type`` (v2 ``SetSessionConfigOptionRequest``);
  config options come back keyed ``configId``;
- updates: v2 updates are upserts keyed by id, with patch semantics (omitted
  = unchanged, ``null`` = cleared, chunks append). ``tool_call_update`` for a
  new id is v1's ``tool_call``; ``agent_message``/``agent_thought`` upserts
  become the chunks that extend what was shown; ``terminal_update`` and
  ``terminal_output_chunk`` (base64) become the agent-run terminal output of
  the tool call that shows the terminal; ``plan_update`` is ``plan``;
  ``state_update`` is not shown: its ``idle`` ends the turn
  (:meth:`SessionWire.expect_idle`);
- requests the agent sends: a v2 permission request names its ``subject``
  (a tool call, or a command); v2 has no client ``fs/*`` or ``terminal/*``.

Everything here is raw JSON in, raw JSON out, beside the codec: nothing
above it sees a v2 shape.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from .. import schema as s
from ..errors import MethodNotFound
from ..schema.strict import decode_update_line, decode_update_lines
from ._v2_updates import SessionWire, commands, config_options, content_items

__all__ = [
    "V2",
    "SessionWire",
    "V2Wire",
    "initialize_params",
    "initialize_result",
    "strict_line",
    "strict_lines",
]

logger = logging.getLogger("acphost.client")

#: The protocol version this module speaks.
V2 = 2

_AGENT_METHODS_GONE = ("fs/", "terminal/")


def _drop_none(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def initialize_params(client_info: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
    """The v2 ``initialize`` params for what the host offers in v1 terms.

    v2 ``InitializeRequest`` requires ``info``; its ``ClientCapabilities``
    hold only ``auth`` and ``elicitation``: there are no client ``fs`` or
    ``terminal`` methods, and notices, compaction, boolean config options
    and subagents are baseline.
    """
    caps: dict[str, Any] = {}
    auth = capabilities.get("auth")
    if isinstance(auth, dict) and auth.get("terminal"):
        caps["auth"] = {"terminal": {}}
    elicitation = capabilities.get("elicitation")
    if isinstance(elicitation, dict):
        caps["elicitation"] = {k: {} for k in ("form", "url") if elicitation.get(k) is not None}
    return {"protocolVersion": V2, "info": client_info, "capabilities": caps}


def _flag(value: Any) -> bool:
    # v2 capabilities are objects ({} = supported); v1's are booleans.
    return value is not None and value is not False


def initialize_result(result: Any) -> dict[str, Any]:
    """A v2 ``InitializeResponse`` in the v1 shape the client reads.

    Resuming, closing and listing sessions are baseline in v2 (v2
    ``SessionCapabilities`` has no key for them); loading is resuming with a
    replay.
    """
    if not isinstance(result, dict):
        return {"protocolVersion": V2}
    caps = result.get("capabilities")
    caps = caps if isinstance(caps, dict) else {}
    session = caps.get("session")
    session = session if isinstance(session, dict) else {}
    prompt = session.get("prompt")
    prompt = prompt if isinstance(prompt, dict) else {}
    mcp = session.get("mcp")
    mcp = mcp if isinstance(mcp, dict) else {}
    session_caps: dict[str, Any] = {"resume": {}, "close": {}, "list": {}}
    for key in ("delete", "additionalDirectories", "systemPrompt", "fork", "title"):
        if isinstance(session.get(key), dict):
            session_caps[key] = session[key]
    agent_caps: dict[str, Any] = {
        "loadSession": True,
        "promptCapabilities": {
            "image": _flag(prompt.get("image")),
            "audio": _flag(prompt.get("audio")),
            "embeddedContext": _flag(prompt.get("embeddedContext")),
        },
        # stdio is baseline in v1 only: v2 McpCapabilities says it, kept beside.
        "mcpCapabilities": {
            "http": _flag(mcp.get("http")),
            "sse": False,
            "stdio": _flag(mcp.get("stdio")),
        },
        "sessionCapabilities": session_caps,
        "auth": {"logout": {}},
    }
    if isinstance(caps.get("_meta"), dict):
        agent_caps["_meta"] = caps["_meta"]
    methods = []
    listed = result.get("authMethods")
    for method in listed if isinstance(listed, list) else ():
        if not isinstance(method, dict):
            continue
        mapped = {k: v for k, v in method.items() if k not in ("methodId", "type")}
        mapped["id"] = method.get("methodId", method.get("id", ""))
        kind = method.get("type")
        if kind not in (None, "agent"):
            mapped["type"] = kind
        methods.append(mapped)
    v1: dict[str, Any] = {
        "protocolVersion": result.get("protocolVersion"),
        "agentCapabilities": agent_caps,
        "authMethods": methods,
    }
    if isinstance(result.get("info"), dict):
        v1["agentInfo"] = result["info"]
    if isinstance(result.get("_meta"), dict):
        v1["_meta"] = result["_meta"]
    return v1


#: The updates whose v1 decoding is v2's (a text chunk with its ``messageId``):
#: the flood a v2 turn streams, read from bytes by the strict decoder as on v1.
_SAME_ON_V2 = (s.AgentMessageChunk, s.AgentThoughtChunk)


def strict_line(line: bytes | memoryview) -> tuple[str, s.SessionUpdate]:
    """Decode one v2 ``session/update`` line strictly, when v1's decoding is v2's.

    Raises:
        Exception: any other line (it takes the general path, and the mapping).

    """
    decoded = decode_update_line(line)
    if type(decoded[1]) not in _SAME_ON_V2:
        raise ValueError("mapped from v2 on the general path")
    return decoded


def strict_lines(block: bytes | memoryview) -> list[tuple[str, s.SessionUpdate]]:
    """:func:`strict_line` for a block of lines, all or nothing."""
    decoded = decode_update_lines(block)
    for _, update in decoded:
        if type(update) not in _SAME_ON_V2:
            raise ValueError("mapped from v2 on the general path")
    return decoded


class V2Wire:
    """The v2 mapping of one connection: requests both ways, each session's updates.

    Args:
        routes: whether updates for a session id go to an open session or
            subagent: only those keep mapping state (an agent naming a
            hundred thousand ids makes nothing grow).

    """

    def __init__(self, routes: Callable[[str], bool]) -> None:
        self._routes = routes
        self.sessions: dict[str, SessionWire] = {}
        self._permissions = 0
        # The ids the mapping makes up begin with this, unique to the
        # connection: no id of the agent's can be one of them.
        self._made = f"acphost-{secrets.token_hex(4)}-"

    def session(self, session_id: str) -> SessionWire:
        """The mapping state of one session: kept while the session is routed.

        An update for an id no session or subagent has yet (it came before
        its ``session/new`` answer, or names nothing) is mapped on its own.
        """
        wire = self.sessions.get(session_id)
        if wire is None:
            wire = SessionWire(f"{self._made}terminal-")
            if self._routes(session_id):
                self.sessions[session_id] = wire
        return wire

    def drop(self, session_id: str) -> None:
        """The session (or subagent) is no longer routed: forget its mapping state."""
        self.sessions.pop(session_id, None)

    def track(self, decoded: Sequence[tuple[str, s.SessionUpdate]]) -> None:
        """Text chunks the strict decoder read (:func:`strict_lines`): kept for upserts."""
        sessions = self.sessions
        for sid, update in decoded:
            wire = sessions.get(sid)
            if wire is None:
                continue  # not routed: kept nowhere
            mid = update.message_id  # type: ignore[union-attr]  # a chunk: see _SAME_ON_V2
            content = update.content  # type: ignore[union-attr]
            if mid is not None and type(content) is s.TextContentBlock:
                wire.keep_text(mid, content.text)

    # -- requests we send ------------------------------------------------------

    def outgoing(self, method: str, params: Any) -> tuple[str, Any]:
        """The v2 method and params of a request the client builds in v1 terms."""
        if not isinstance(params, dict):
            return method, params
        if method == s.SESSION_LOAD:
            return "session/resume", {**params, "replayFrom": {"type": "start"}}
        if method == s.AUTHENTICATE:
            return "auth/login", _drop_none(
                {"methodId": params.get("methodId"), "_meta": params.get("_meta")}
            )
        if method == s.SESSION_SET_CONFIG_OPTION:
            value = params.get("value")
            return method, {**params, "type": "boolean" if isinstance(value, bool) else "id"}
        if method == s.LOGOUT:
            return "auth/logout", {}
        return method, params

    def result(self, method: str, params: Any, result: Any) -> Any:
        """A v2 result in the v1 shape ``method``'s caller reads."""
        if not isinstance(result, dict):
            return result
        if method in (s.SESSION_NEW, s.SESSION_LOAD, s.SESSION_RESUME, s.SESSION_SET_CONFIG_OPTION):
            result = {**result, "configOptions": config_options(result.get("configOptions"))}
            result.pop("availableCommands", None)
        return result

    def opened_commands(self, result: Any) -> list[Any] | None:
        """The commands a v2 ``session/new``/``session/resume`` answered with, in v1 terms.

        v1 sends them as an ``available_commands_update``; v2 in the answer.
        """
        listed = result.get("availableCommands") if isinstance(result, dict) else None
        mapped = commands(listed)
        return mapped if isinstance(mapped, list) else None

    # -- requests the agent sends ----------------------------------------------

    def incoming(self, method: str, params: Any) -> Any:
        """A v2 agent request's params in v1 terms.

        Raises:
            MethodNotFound: a client ``fs/*`` or ``terminal/*`` method, which
                v2 does not have (the host's tools are an MCP server there).

        """
        if method.startswith(_AGENT_METHODS_GONE):
            raise MethodNotFound(f"Method not found: {method} (not in ACP v2)")
        if (
            method == s.SESSION_REQUEST_PERMISSION
            and isinstance(params, dict)
            and "toolCall" not in params
        ):
            return self._permission(params)
        return params

    def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        # v2 RequestPermissionRequest: a title, an optional description, and a
        # subject (a tool call, a command, or one we do not know).
        subject = params.get("subject")
        title = params.get("title") if isinstance(params.get("title"), str) else ""
        description = params.get("description")
        self._permissions += 1
        call: dict[str, Any]
        if (
            isinstance(subject, dict)
            and subject.get("type") == "tool_call"
            and isinstance(subject.get("toolCall"), dict)
        ):
            call = dict(subject["toolCall"])
            if "content" in call:
                call["content"] = content_items(call["content"]) or []
            if not call.get("title"):
                call["title"] = title
        elif isinstance(subject, dict) and subject.get("type") == "command":
            tid = subject.get("toolCallId")
            call = {
                "toolCallId": tid
                if isinstance(tid, str)
                else f"{self._made}permission-{self._permissions}",
                "title": title or str(subject.get("command", "")),
                "kind": "execute",
                "rawInput": {"command": subject.get("command"), "cwd": subject.get("cwd")},
            }
        else:
            call = {"toolCallId": f"{self._made}permission-{self._permissions}", "title": title}
        if isinstance(description, str) and description and not call.get("content"):
            call["content"] = [
                {"type": "content", "content": {"type": "text", "text": description}}
            ]
        mapped = {
            "sessionId": params.get("sessionId"),
            "toolCall": call,
            "options": params.get("options"),
        }
        if isinstance(params.get("_meta"), dict):
            mapped["_meta"] = params["_meta"]
        return mapped
