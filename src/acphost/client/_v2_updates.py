"""One session's ACP v2 updates, as the v1 updates of the one model (see ``_v2``).

v2 updates are upserts keyed by id with patch semantics (omitted =
unchanged, ``null`` = cleared, chunks append: v2 ``ToolCallUpdate``,
``AgentMessage``, ``TerminalUpdate``); v1's are creations, updates and
appends. :class:`SessionWire` keeps what the mapping needs to tell them
apart (the ids seen, how much of each message was shown, each terminal's
tool call) and nothing else, every collection bounded by count, and is
dropped with its session.

Everything the agent sends here is untrusted: a field of the wrong type is
treated as absent, never an error; the caller's one safety net
(``Peer.receive_notification``) only logs what would still raise.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import logging
from collections.abc import Callable
from typing import Any

from ._diffpatch import patch_files

__all__ = ["APPEND", "SessionWire", "commands", "config_options", "content_items"]

logger = logging.getLogger("acphost.client")

#: The key of a v1-shaped ``tool_call_update`` whose content is appended to
#: the call's (v2 ``tool_call_content_chunk``), not put in place of it; read
#: by the tool-call state (``_toolcall_state``), never sent.
APPEND = "acphostAppend"

#: Text kept per message to apply an upsert as the chunk that extends it.
_MAX_TRACKED_TEXT = 1 << 20
#: Messages whose shown text is kept (the oldest are forgotten first).
_MAX_MESSAGES = 64
#: Tool calls whose id is remembered (a new id is a v1 ``tool_call``).
_MAX_TOOLS = 4_096
#: Agent-owned terminals followed per session, and output kept for one no
#: tool call shows yet.
_MAX_TERMINALS = 1_024
_MAX_HELD_OUTPUT = 1 << 20


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def content_items(items: Any) -> list[Any] | None:
    """v2 ``ToolCallContent`` items as v1's (None: not a list, so absent).

    v2 diff content names its changes and carries a patch; v1's carries the
    old and new text of one file. Each hunk of the patch is the old and new
    text of the region it changes: one v1 diff per hunk shows the same
    change. The structured ``changes`` name the files (v2 ``Diff``): a patch
    that names another file is not shown as a diff of it.
    """
    if not isinstance(items, list):
        return None
    out: list[Any] = []
    for item in items:
        if isinstance(item, dict) and item.get("type") == "diff" and "changes" in item:
            out.extend(_diff(item))
        elif isinstance(item, dict):
            out.append(item)
    return out


def _diff(item: dict[str, Any]) -> list[dict[str, Any]]:
    changes = item.get("changes")
    paths = [
        c["path"]
        for c in (changes if isinstance(changes, list) else ())
        if isinstance(c, dict) and isinstance(c.get("path"), str)
    ]
    patch = item.get("patch")
    text = patch.get("text") if isinstance(patch, dict) else None
    hunks = patch_files(text) if isinstance(text, str) else []
    shown: list[dict[str, Any]] = []
    for name, old, new in hunks:
        path = _named(name, paths)
        if path is None:  # the patch names a file the change does not: show the change only
            shown = []
            break
        shown.append({"type": "diff", "path": path, "oldText": old, "newText": new})
    if shown:
        return shown
    summary = "changed: " + ", ".join(paths) if paths else "a change the agent did not describe"
    return [{"type": "content", "content": {"type": "text", "text": summary}}]


def _named(name: str, paths: list[str]) -> str | None:
    # The change's (absolute) path that a patch's relative file name is.
    for path in paths:
        if path == name or path.endswith("/" + name.lstrip("/")):
            return path
    return None


class _Terminal:
    """What the mapping knows of one agent-owned terminal."""

    __slots__ = ("announced", "command", "cwd", "decoder", "held", "seen", "tool")

    def __init__(self) -> None:
        self.tool: str | None = None
        self.announced = False
        self.command: str | None = None
        self.cwd: str | None = None
        self.seen = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.held: dict[str, Any] = {}


class SessionWire:
    """What the v2 mapping keeps for one session: the ids it has seen, the idle waiter.

    Args:
        synthetic: a prefix for the ids the mapping makes up (a card for a
            terminal no tool call shows), unique to the connection so that
            no id of the agent's can be one of them.

    """

    def __init__(self, synthetic: str) -> None:
        self._synthetic = synthetic
        self.tools: set[str] = set()
        self.made: set[str] = set()
        self.terminals: dict[str, _Terminal] = {}
        #: Each message's shown text (pieces, or None past the bound) and length.
        self.messages: dict[str, tuple[list[str] | None, int]] = {}
        self.in_turn = False
        self._started = False
        self._warned: set[str] = set()
        self._on_idle: Callable[[dict[str, Any]], None] | None = None
        self._settled: Callable[[], None] | None = None

    def _warn(self, what: str, message: str, *args: Any) -> None:
        if what not in self._warned:
            self._warned.add(what)
            logger.warning(message, *args)

    # -- the turn ----------------------------------------------------------------

    def expect_idle(self, on_idle: Callable[[dict[str, Any]], None]) -> None:
        """Call ``on_idle`` with the turn's v1 ``PromptResponse`` when it goes idle.

        v2 ``session/prompt`` answers ``{messageId}`` at once; the turn ends
        with the ``state_update`` ``idle`` that ends the foreground work it
        started (v2 "Prompt Lifecycle"), read in wire order: the updates
        before it are the turn's.
        """
        self._on_idle = on_idle
        self.in_turn = True
        self._started = False

    def forget_idle(self) -> None:
        """The turn ended another way (its prompt was refused, the host gave up)."""
        self._on_idle = None
        self.in_turn = False

    def settle(self) -> None:
        """Run what waits for this update's own updates to be routed (the turn's end)."""
        settled, self._settled = self._settled, None
        if settled is not None:
            settled()

    # -- updates -----------------------------------------------------------------

    def updates(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        """The v1 updates one v2 update means (none, one, or a few)."""
        kind = raw.get("sessionUpdate")
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            content = raw.get("content")
            mid = raw.get("messageId")
            if isinstance(mid, str) and isinstance(content, dict) and content.get("type") == "text":
                text = content.get("text")
                if isinstance(text, str):
                    self.keep_text(mid, text)
            return [raw]
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        return [raw] if handler is None else handler(self, raw)

    def keep_text(self, message_id: str, text: str) -> None:
        """A chunk of a message was shown: an upsert of it later shows only what is new."""
        kept = self.messages.pop(message_id, None)
        pieces, length = kept if kept is not None else ([], 0)
        length += len(text)
        if pieces is not None and length <= _MAX_TRACKED_TEXT:
            pieces.append(text)
        else:
            pieces = None  # past the bound: only its length is known
        self.messages[message_id] = (pieces, length)
        if len(self.messages) > _MAX_MESSAGES:
            del self.messages[next(iter(self.messages))]

    def _user(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        # The agent echoes the prompt it accepted (v2 "Prompt Lifecycle"):
        # during a turn that is the host's own prompt, already in the state.
        # Outside one it is history being replayed.
        if self.in_turn:
            return []
        if raw.get("sessionUpdate") == "user_message_chunk":
            return [raw]
        mid = _text(raw.get("messageId"))
        content = raw.get("content")
        return [
            {"sessionUpdate": "user_message_chunk", "content": block, "messageId": mid}
            for block in (content if isinstance(content, list) else ())
            if isinstance(block, dict)
        ]

    def _message(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        # An upsert replaces the message's content; v1 streams only appends.
        # What extends the text shown is sent as a chunk; a replacement that
        # does not extend it is sent whole (the faces cannot unsay text).
        kind = "agent_message_chunk"
        if raw.get("sessionUpdate") == "agent_thought":
            kind = "agent_thought_chunk"
        mid = _text(raw.get("messageId"))
        content = raw.get("content")
        if mid is None or not isinstance(content, list):
            return []
        blocks = [b for b in content if isinstance(b, dict)]
        text = "".join(
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        )
        pieces, length = self.messages.get(mid, ([], 0))
        if pieces is None:  # past the bound: assume it extends what was shown
            new = text[length:]
        else:
            shown = "".join(pieces)
            new = text[length:] if text.startswith(shown) else text
        self.messages.pop(mid, None)
        self.messages[mid] = ([text] if len(text) <= _MAX_TRACKED_TEXT else None, len(text))
        out = []
        if new:
            out.append(
                {"sessionUpdate": kind, "content": {"type": "text", "text": new}, "messageId": mid}
            )
        out += [
            {"sessionUpdate": kind, "content": block, "messageId": mid}
            for block in blocks
            if block.get("type") != "text"
        ]
        return out

    def _state(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        state = raw.get("state")
        if state in ("running", "requires_action"):
            self._started = True
            return []
        if state != "idle":
            return []
        stop = _text(raw.get("stopReason"))
        # A repeated or resumed idle snapshot is no completion (v2
        # StateUpdate): the turn ends at the idle after its work started, or
        # at one that reports a stop reason.
        if not self.in_turn or not (self._started or stop):
            return []
        on_idle, self._on_idle = self._on_idle, None
        self.in_turn = False
        self.messages.clear()
        unshown = self._unshown()
        if on_idle is None:
            return unshown
        response: dict[str, Any] = {"stopReason": stop or "end_turn"}
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

    # -- tool calls ----------------------------------------------------------------

    def _tool(self, raw: dict[str, Any], *, append: bool = False) -> list[dict[str, Any]]:
        tid = _text(raw.get("toolCallId"))
        if tid is None:
            return []
        update = {k: v for k, v in raw.items() if k != "sessionUpdate"}
        for key in ("content", "locations"):
            # v2: ``null`` and ``[]`` both clear a collection.
            if key in update and not isinstance(update[key], list):
                update[key] = []
        shown: list[str] = []
        if "content" in update:
            update["content"] = content_items(update["content"]) or []
            shown = self._shows(tid, update["content"])
        for key in ("title", "kind", "status", "name"):
            if key in update and not isinstance(update[key], str):
                del update[key]
        if append:
            update[APPEND] = True
        if tid in self.tools:
            update["sessionUpdate"] = "tool_call_update"
        else:
            if len(self.tools) < _MAX_TOOLS:
                self.tools.add(tid)
            update["sessionUpdate"] = "tool_call"
            update.setdefault("title", update.get("name") or "")
        out = [update]
        for term in shown:
            out += self._terminal_meta(term)
        return out

    def _shows(self, tid: str, content: list[Any]) -> list[str]:
        # The terminals this content shows for the first time.
        shown = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "terminal":
                terminal = self._terminal_of(item.get("terminalId"))
                if terminal is not None and terminal.tool is None:
                    terminal.tool = tid
                    shown.append(item["terminalId"])
        return shown

    def _tool_chunk(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        # One content item appended (v2 ToolCallContentChunk): sent as that
        # item alone, which the tool-call state appends (APPEND).
        item = raw.get("content")
        if not isinstance(item, dict):
            return []
        update = {"toolCallId": raw.get("toolCallId"), "content": [item]}
        return self._tool(update, append=True)

    # -- agent-owned terminals -----------------------------------------------------

    def _terminal_of(self, term: Any) -> _Terminal | None:
        if not isinstance(term, str):
            return None
        terminal = self.terminals.get(term)
        if terminal is None:
            if len(self.terminals) >= _MAX_TERMINALS:
                self._warn(
                    "terminals", "more than %d terminals in a session: left out", _MAX_TERMINALS
                )
                return None
            terminal = self.terminals[term] = _Terminal()
        return terminal

    def _terminal(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        # An agent-owned terminal (v2 TerminalUpdate) is shown in the tool call
        # whose content names it, as v1 shows codex's ``_meta`` terminals.
        # Until one does, what it said is held; a terminal no tool call ever
        # shows gets a card of its own when the turn ends.
        term = raw.get("terminalId")
        terminal = self._terminal_of(term)
        if terminal is None:
            return []
        assert isinstance(term, str)
        if raw.get("sessionUpdate") == "terminal_update":
            terminal.command = _text(raw.get("command")) or terminal.command
            terminal.cwd = _text(raw.get("cwd")) or terminal.cwd
        held = terminal.held
        data = self._output(term, terminal, raw)
        if data:
            kept = held.get("data", "") + data
            held["data"] = kept[-_MAX_HELD_OUTPUT:] if terminal.tool is None else kept
        end = raw.get("exitStatus")
        if isinstance(end, dict):
            code = end.get("exitCode")
            signal = end.get("signal")
            held["exit"] = {
                "terminal_id": term,
                "exit_code": code if type(code) is int else None,
                "signal": signal if isinstance(signal, str) else None,
            }
        return [] if terminal.tool is None else self._terminal_meta(term)

    def _terminal_meta(self, term: str) -> list[dict[str, Any]]:
        # What the terminal said since it was last shown, on its tool call.
        terminal = self.terminals[term]
        tid = terminal.tool
        assert tid is not None
        meta: dict[str, Any] = {}
        if not terminal.announced:
            # Output and exit count only for a terminal its call announced.
            terminal.announced = True
            info: dict[str, Any] = {"terminal_id": term}
            if terminal.cwd is not None:
                info["cwd"] = terminal.cwd
            meta["terminal_info"] = info
        held, terminal.held = terminal.held, {}
        if held.get("data"):
            meta["terminal_output_delta"] = {"terminal_id": term, "data": held["data"]}
        if "exit" in held:
            meta["terminal_exit"] = held["exit"]
        if not meta:
            return []
        update: dict[str, Any] = {"toolCallId": tid, "_meta": meta}
        if tid in self.made and "exit" in held:
            update["status"] = "completed" if held["exit"]["exit_code"] == 0 else "failed"
        return self._tool(update)

    def _unshown(self) -> list[dict[str, Any]]:
        # Terminals no tool call showed (background work): a card each.
        out: list[dict[str, Any]] = []
        for term, terminal in self.terminals.items():
            if terminal.tool is not None:
                continue
            tid = f"{self._synthetic}{term}"
            self.made.add(tid)
            out += self._tool(
                {
                    "toolCallId": tid,
                    "title": terminal.command or "terminal",
                    "kind": "execute",
                    "status": "in_progress",
                    "content": [{"type": "terminal", "terminalId": term}],
                }
            )
        return out

    def _output(self, term: str, terminal: _Terminal, raw: dict[str, Any]) -> str:
        # terminal_output_chunk appends bytes; terminal_update's output is the
        # whole output so far (v2 TerminalUpdate): only what is new is shown.
        chunk = raw.get("sessionUpdate") == "terminal_output_chunk"
        if chunk:
            encoded = raw.get("data")
        else:
            output = raw.get("output")
            encoded = output.get("data") if isinstance(output, dict) else None
        if not isinstance(encoded, str):
            return ""
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            self._warn("base64", "terminal %s: output that is not base64 was left out", term)
            return ""
        if not chunk:
            if len(data) < terminal.seen:
                terminal.seen = 0  # replaced, not extended: shown again from its start
            data = data[terminal.seen :]
        terminal.seen += len(data)
        return terminal.decoder.decode(data)

    # -- the rest ----------------------------------------------------------------------

    def _plan(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        plan = raw.get("plan")
        if isinstance(plan, dict) and plan.get("type") == "items":
            entries = plan.get("entries")
            return [
                {"sessionUpdate": "plan", "entries": entries if isinstance(entries, list) else []}
            ]
        return [raw]  # a file or markdown plan: kept as an update v1 has no name for

    def _config(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        return [{**raw, "configOptions": config_options(raw.get("configOptions"))}]

    def _available(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        return [{**raw, "availableCommands": commands(raw.get("availableCommands"))}]


def config_options(options: Any) -> Any:
    """v2 ``SessionConfigOption``s (keyed ``configId``) as v1's (keyed ``id``)."""
    if not isinstance(options, list):
        return options
    return [
        {("id" if k == "configId" else k): v for k, v in option.items()}
        if isinstance(option, dict) and "configId" in option
        else option
        for option in options
    ]


def commands(items: Any) -> Any:
    """v2 ``AvailableCommand``s (tagged ``type: command``) as v1's; other kinds have no v1 form."""
    if not isinstance(items, list):
        return items
    return [
        {k: v for k, v in c.items() if k != "type"}
        for c in items
        if isinstance(c, dict) and c.get("type", "command") == "command"
    ]


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
