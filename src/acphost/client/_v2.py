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

import base64
import binascii
import codecs
import logging
from collections.abc import Callable, Sequence
from typing import Any

from .. import schema as s
from ..errors import MethodNotFound
from ..schema.strict import decode_update_line, decode_update_lines
from ._diffpatch import patch_files

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

#: Text kept per message to apply an upsert as the chunk that extends it.
_MAX_TRACKED_TEXT = 1 << 20
#: Tool calls whose content collection is kept to append v2 content chunks to.
_MAX_TRACKED_TOOLS = 4_096
#: Content items kept per tool call.
_MAX_TOOL_CONTENT = 1_024
#: Terminals kept until a tool call shows them, and the output kept of each.
_MAX_HELD_TERMINALS = 256
_MAX_HELD_OUTPUT = 1 << 20

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
        "mcpCapabilities": {"http": _flag(mcp.get("http")), "sse": False},
        "sessionCapabilities": session_caps,
        "auth": {"logout": {}},
    }
    if isinstance(caps.get("_meta"), dict):
        agent_caps["_meta"] = caps["_meta"]
    methods = []
    for method in result.get("authMethods") or ():
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


def _config_options(options: Any) -> Any:
    # v2 SessionConfigOption is keyed ``configId``; v1's is keyed ``id``.
    if not isinstance(options, list):
        return options
    mapped = []
    for option in options:
        if isinstance(option, dict) and "configId" in option:
            mapped.append({("id" if k == "configId" else k): v for k, v in option.items()})
        else:
            mapped.append(option)
    return mapped


def _commands(commands: Any) -> Any:
    # v2 AvailableCommand is tagged ``type: command``; other kinds have no v1 form.
    if not isinstance(commands, list):
        return commands
    return [
        {k: v for k, v in c.items() if k != "type"}
        for c in commands
        if isinstance(c, dict) and c.get("type", "command") == "command"
    ]


def _content(items: Any) -> Any:
    # v2 diff content names its changes and carries a patch; v1's carries the
    # old and new text of one file. The patch's hunks are those texts'
    # changed regions, which the faces show as the same diff.
    if not isinstance(items, list):
        return items
    out: list[Any] = []
    for item in items:
        if isinstance(item, dict) and item.get("type") == "diff" and "changes" in item:
            out.extend(_diff(item))
        else:
            out.append(item)
    return out


def _diff(item: dict[str, Any]) -> list[dict[str, Any]]:
    patch = item.get("patch")
    text = patch.get("text") if isinstance(patch, dict) else None
    files = patch_files(text) if isinstance(text, str) else []
    changes = item.get("changes")
    paths = [str(c["path"]) for c in changes or () if isinstance(c, dict) and "path" in c]
    if files:
        return [
            {"type": "diff", "path": _changed(path, paths), "oldText": old, "newText": new}
            for path, old, new in files
        ]
    summary = "changed: " + ", ".join(paths) if paths else "a change the agent did not describe"
    return [{"type": "content", "content": {"type": "text", "text": summary}}]


def _changed(name: str, paths: list[str]) -> str:
    # Schema Diff: "`changes` is authoritative for affected absolute paths"; a
    # git patch names a file relative to some root without its leading "/"
    # ("a/tmp/ws/x.py" for /tmp/ws/x.py, "a/src/x.py" from a repository).
    for path in paths:
        if path == name:
            return path
    bare = name.lstrip("/")
    for path in paths:
        if path.lstrip("/") == bare:
            return path
    suffixed = [path for path in paths if path.endswith("/" + bare)]
    return suffixed[0] if len(suffixed) == 1 else name


class SessionWire:
    """What the v2 mapping keeps for one session: the ids it has seen, the idle waiter."""

    def __init__(self) -> None:
        self.tools: dict[str, list[Any]] = {}
        self.terminal_tool: dict[str, str] = {}
        self.terminal_seen: dict[str, int] = {}
        self.decoders: dict[str, codecs.IncrementalDecoder] = {}
        #: Each message's text so far, as the pieces shown and their length
        #: (joined only when an upsert replaces it: chunks are the flood).
        self.messages: dict[str, tuple[list[str], int]] = {}
        self.in_turn = False
        self.held: dict[str, dict[str, Any]] = {}
        self._on_idle: Callable[[dict[str, Any]], None] | None = None
        self._settled: Callable[[], None] | None = None

    def expect_idle(self, on_idle: Callable[[dict[str, Any]], None]) -> None:
        """Call ``on_idle`` with the turn's v1 ``PromptResponse`` when it goes idle.

        v2 ``session/prompt`` answers ``{messageId}`` at once; the turn ends
        with the ``state_update`` ``idle`` (v2 "Prompt Lifecycle"), which is
        read in wire order: the updates before it are the turn's.
        """
        self._on_idle = on_idle
        self.in_turn = True

    def forget_idle(self) -> None:
        """The turn ended another way (its prompt was refused, the host gave up)."""
        self._on_idle = None
        self.in_turn = False

    # -- updates ---------------------------------------------------------------

    def updates(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        """The v1 updates one v2 update means (none, one, or a few)."""
        kind = raw.get("sessionUpdate")
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            self._track_chunk(raw)
            return [raw]
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        return [raw] if handler is None else handler(self, raw)

    def _track_chunk(self, raw: dict[str, Any]) -> None:
        mid = raw.get("messageId")
        content = raw.get("content")
        if type(mid) is str and isinstance(content, dict) and content.get("type") == "text":
            text = content.get("text")
            if isinstance(text, str):
                self.keep_text(mid, text)

    def keep_text(self, message_id: str, text: str) -> None:
        """A chunk of a message was shown: an upsert of it later shows only what is new."""
        kept = self.messages.get(message_id)
        if kept is None:
            self.messages[message_id] = ([text], len(text))
        elif kept[1] + len(text) <= _MAX_TRACKED_TEXT:
            kept[0].append(text)
            self.messages[message_id] = (kept[0], kept[1] + len(text))

    def _user(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        # The agent echoes the prompt it accepted (v2 "Prompt Lifecycle"):
        # during a turn that is the host's own prompt, already in the state.
        # Outside one it is history being replayed.
        if self.in_turn:
            return []
        if raw.get("sessionUpdate") == "user_message_chunk":
            return [raw]
        return [
            {"sessionUpdate": "user_message_chunk", "content": block, "messageId": raw["messageId"]}
            for block in raw.get("content") or ()
            if isinstance(block, dict)
        ]

    def _message(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        # An upsert replaces the message's content; v1 streams only appends.
        # What extends the text shown is sent as a chunk; a replacement that
        # does not extend it is sent whole (the faces cannot unsay text).
        kind = (
            "agent_message_chunk"
            if raw["sessionUpdate"] == "agent_message"
            else "agent_thought_chunk"
        )
        mid = raw.get("messageId")
        content = raw.get("content")
        if not isinstance(content, list):
            return []
        text = "".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
        kept = self.messages.get(mid) if isinstance(mid, str) else None
        shown = "".join(kept[0]) if kept is not None else ""
        new = text[len(shown) :] if text.startswith(shown) else text
        if isinstance(mid, str) and len(text) <= _MAX_TRACKED_TEXT:
            self.messages[mid] = ([text], len(text))
        out = []
        if new:
            out.append(
                {"sessionUpdate": kind, "content": {"type": "text", "text": new}, "messageId": mid}
            )
        for block in content:
            if isinstance(block, dict) and block.get("type") != "text":
                out.append({"sessionUpdate": kind, "content": block, "messageId": mid})
        return out

    def _state(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        if raw.get("state") != "idle":
            return []
        on_idle, self._on_idle = self._on_idle, None
        was_turn, self.in_turn = self.in_turn, False
        self.messages.clear()
        unshown = self._unshown()
        if on_idle is None or not was_turn:
            return unshown
        stop = raw.get("stopReason")
        response: dict[str, Any] = {"stopReason": stop if isinstance(stop, str) else "end_turn"}
        if isinstance(raw.get("usage"), dict):
            response["usage"] = raw["usage"]
        if isinstance(raw.get("_meta"), dict):
            response["_meta"] = raw["_meta"]
        if stop == "error" and isinstance(raw.get("error"), dict):
            # ErrorStopReason: the failure as a JSON-RPC error object, what v1
            # answers session/prompt with; the session fails the turn with it.
            response["error"] = raw["error"]
        # Called by settle(), once the updates returned here are routed: they
        # are the turn's.
        self._settled = lambda: on_idle(response)
        return unshown

    def settle(self) -> None:
        """Run what waits for this update's own updates to be routed (the turn's end)."""
        settled, self._settled = self._settled, None
        if settled is not None:
            settled()

    def _tool(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        tid = raw.get("toolCallId")
        if not isinstance(tid, str):
            return [raw]
        update = dict(raw)
        for key in ("content", "locations"):
            # v2: ``null`` and ``[]`` both clear a collection.
            if key in update and update[key] is None:
                update[key] = []
        shown: list[str] = []
        if "content" in update:
            update["content"] = _content(update["content"])
            shown = self._keep_content(tid, update["content"])
        for key in ("title", "kind", "status", "name"):
            if key in update and update[key] is None:
                del update[key]
        if tid not in self.tools:
            if len(self.tools) < _MAX_TRACKED_TOOLS:
                self.tools[tid] = list(update.get("content") or ())
            update["sessionUpdate"] = "tool_call"
            update.setdefault("title", update.get("name") or "")
        else:
            update["sessionUpdate"] = "tool_call_update"
        out = [update]
        for term in shown:
            out += self._show_held(term, tid)
        return out

    def _keep_content(self, tid: str, content: Any) -> list[str]:
        # The terminals this content shows for the first time.
        if not isinstance(content, list):
            return []
        if tid in self.tools or len(self.tools) < _MAX_TRACKED_TOOLS:
            self.tools[tid] = list(content[:_MAX_TOOL_CONTENT])
        shown = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "terminal":
                term = item.get("terminalId")
                if isinstance(term, str) and term not in self.terminal_tool:
                    self.terminal_tool[term] = tid
                    shown.append(term)
        return shown

    def _tool_chunk(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        tid = raw.get("toolCallId")
        item = raw.get("content")
        if not isinstance(tid, str) or not isinstance(item, dict):
            return []
        content = self.tools.get(tid, [])
        if len(content) < _MAX_TOOL_CONTENT:
            content = content + _content([item])
        update: dict[str, Any] = {"toolCallId": tid, "content": content}
        return self._tool(update)

    def _terminal(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        # An agent-owned terminal (v2 TerminalUpdate) is shown in the tool call
        # whose content names it, as v1 shows codex's ``_meta`` terminals.
        # Until one does, what it said is kept; a terminal no tool call ever
        # shows gets a card of its own when the turn ends.
        term = raw.get("terminalId")
        if not isinstance(term, str):
            return []
        meta: dict[str, Any] = {}
        cwd = raw.get("cwd")
        if raw.get("sessionUpdate") == "terminal_update" and term not in self.terminal_seen:
            meta["terminal_info"] = {
                "terminal_id": term,
                **({"cwd": cwd} if isinstance(cwd, str) else {}),
            }
        data = self._output(term, raw)
        if data:
            meta["terminal_output_delta"] = {"terminal_id": term, "data": data}
        exit_status = raw.get("exitStatus")
        if isinstance(exit_status, dict):
            meta["terminal_exit"] = {
                "terminal_id": term,
                "exit_code": exit_status.get("exitCode"),
                "signal": exit_status.get("signal"),
            }
        tid = self.terminal_tool.get(term)
        if tid is None:
            self._hold(term, raw.get("command"), meta)
            return []
        return self._terminal_meta(tid, meta)

    def _terminal_meta(self, tid: str, meta: dict[str, Any]) -> list[dict[str, Any]]:
        if not meta:
            return []
        update: dict[str, Any] = {"toolCallId": tid, "_meta": meta}
        end = meta.get("terminal_exit")
        if tid.startswith("terminal:") and end is not None:
            update["status"] = "completed" if end.get("exit_code") == 0 else "failed"
        return self._tool(update)

    def _hold(self, term: str, command: Any, meta: dict[str, Any]) -> None:
        held = self.held.get(term)
        if held is None:
            if len(self.held) >= _MAX_HELD_TERMINALS:
                logger.warning("terminal %s: too many terminals no tool call shows; left out", term)
                return
            held = self.held[term] = {"command": None, "meta": {}}
        if isinstance(command, str):
            held["command"] = command
        kept = held["meta"]
        for key, value in meta.items():
            if key == "terminal_output_delta" and key in kept:
                text = kept[key]["data"] + value["data"]
                kept[key] = {**value, "data": text[-_MAX_HELD_OUTPUT:]}
            elif key != "terminal_info" or key not in kept:
                kept[key] = value

    def _show_held(self, term: str, tid: str) -> list[dict[str, Any]]:
        held = self.held.pop(term, None)
        return [] if held is None else self._terminal_meta(tid, held["meta"])

    def _unshown(self) -> list[dict[str, Any]]:
        # Terminals no tool call showed (background work): a card each.
        out: list[dict[str, Any]] = []
        for term in list(self.held):
            tid = f"terminal:{term}"
            command = self.held[term]["command"]
            out += self._tool(
                {
                    "toolCallId": tid,
                    "title": command or "terminal",
                    "kind": "execute",
                    "status": "in_progress",
                    "content": [{"type": "terminal", "terminalId": term}],
                }
            )
            out += self._show_held(term, tid)
        return out

    def _output(self, term: str, raw: dict[str, Any]) -> str:
        # terminal_output_chunk appends bytes; terminal_update's output is the
        # whole output so far (v2 TerminalUpdate): only what is new is shown.
        seen = self.terminal_seen.setdefault(term, 0)
        if raw.get("sessionUpdate") == "terminal_output_chunk":
            encoded = raw.get("data")
        else:
            output = raw.get("output")
            encoded = output.get("data") if isinstance(output, dict) else None
        if not isinstance(encoded, str):
            return ""
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            logger.warning("terminal %s: output that is not base64 was left out", term)
            return ""
        if raw.get("sessionUpdate") == "terminal_update":
            if len(data) < seen:
                seen = 0  # replaced, not extended: shown again from its start
            data = data[seen:]
            self.terminal_seen[term] = seen + len(data)
        else:
            self.terminal_seen[term] = seen + len(data)
        decoder = self.decoders.get(term)
        if decoder is None:
            decoder = self.decoders[term] = codecs.getincrementaldecoder("utf-8")("replace")
        return decoder.decode(data)

    def _plan(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        plan = raw.get("plan")
        if isinstance(plan, dict) and plan.get("type") == "items":
            return [{"sessionUpdate": "plan", "entries": plan.get("entries") or []}]
        return [raw]  # a file or markdown plan: kept as an update v1 has no name for

    def _config(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        return [{**raw, "configOptions": _config_options(raw.get("configOptions"))}]

    def _available(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        return [{**raw, "availableCommands": _commands(raw.get("availableCommands"))}]


_HANDLERS: dict[str, Callable[[SessionWire, dict[str, Any]], list[dict[str, Any]]]] = {
    "user_message_chunk": SessionWire._user,
    "user_message": SessionWire._user,
    "agent_message": SessionWire._message,
    "agent_thought": SessionWire._message,
    "state_update": SessionWire._state,
    "tool_call_update": SessionWire._tool,
    "tool_call_content_chunk": SessionWire._tool_chunk,
    "terminal_update": SessionWire._terminal,
    "terminal_output_chunk": SessionWire._terminal,
    "plan_update": SessionWire._plan,
    "config_option_update": SessionWire._config,
    "available_commands_update": SessionWire._available,
}


class V2Wire:
    """The v2 mapping of one connection: requests both ways, each session's updates."""

    def __init__(self) -> None:
        self.sessions: dict[str, SessionWire] = {}
        self._permissions = 0

    def session(self, session_id: str) -> SessionWire:
        """The mapping state of one session (made on first use)."""
        wire = self.sessions.get(session_id)
        if wire is None:
            wire = self.sessions[session_id] = SessionWire()
        return wire

    def track(self, decoded: Sequence[tuple[str, s.SessionUpdate]]) -> None:
        """Text chunks the strict decoder read (:func:`strict_lines`): kept for upserts."""
        for sid, update in decoded:
            mid = update.message_id  # type: ignore[union-attr]  # a chunk: see _SAME_ON_V2
            content = update.content  # type: ignore[union-attr]
            if mid is not None and type(content) is s.TextContentBlock:
                self.session(sid).keep_text(mid, content.text)

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
            result = {**result, "configOptions": _config_options(result.get("configOptions"))}
            result.pop("availableCommands", None)
        return result

    def opened_commands(self, result: Any) -> list[Any] | None:
        """The commands a v2 ``session/new``/``session/resume`` answered with, in v1 terms.

        v1 sends them as an ``available_commands_update``; v2 in the answer.
        """
        commands = result.get("availableCommands") if isinstance(result, dict) else None
        mapped = _commands(commands)
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
                call["content"] = _content(call["content"])
            if not call.get("title"):
                call["title"] = title
        elif isinstance(subject, dict) and subject.get("type") == "command":
            tid = subject.get("toolCallId")
            call = {
                "toolCallId": tid if isinstance(tid, str) else f"permission-{self._permissions}",
                "title": title or str(subject.get("command", "")),
                "kind": "execute",
                "rawInput": {"command": subject.get("command"), "cwd": subject.get("cwd")},
            }
        else:
            call = {"toolCallId": f"permission-{self._permissions}", "title": title}
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
