"""Conformance checks over a stream of frames (a recorded trace or live traffic).

Each frame is checked against the vendored schema by method and direction,
with responses matched to their requests, and against the ordering rules of
the protocol (ACP "Prompt Turn", "Initialization" and "Cancellation"):

- ``initialize-first``: the client's first request is ``initialize``;
- ``one-response``: every request gets exactly one response (unknown or
  repeated response ids, and requests never answered by the end);
- ``turn-order``: message, thought, tool-call and plan updates of a session
  arrive while a prompt (or a load's replay) of that session is running — the
  prompt's response is the last frame of its turn;
- ``capability``: neither side uses a method or content the other did not
  advertise in ``initialize`` (fs, terminal, elicitation, loadSession,
  session list/resume/close/delete, image/audio/embedded prompt content), and
  the agent sends ``notice`` updates only to a client advertising
  ``clientCapabilities.session.notices`` and ``compaction_update`` /
  ``compaction_summary_chunk`` only with ``session.compaction`` (schema
  ``Notice``, ``CompactionUpdate``, ``CompactionSummaryChunk``: "Agents MUST
  only send ... when the Client advertised" the capability), and the
  session tree's updates (``subagent_update``, ``session_message``,
  ``session_message_chunk``) only to a client advertising
  ``clientCapabilities.subagents`` (schema ``SubagentCapabilities``: "The
  client must advertise this capability before the agent sends subagent
  updates or session-directed messages"); the client sends ``systemPrompt``
  only to an agent advertising ``sessionCapabilities.systemPrompt`` (mode
  ``override`` only with its ``mode.override``);
- ``turn-order`` for subagents: a child session's own updates arrive on its
  id once a ``subagent_update`` announced it (schema ``SubagentUpdate``:
  the announcement "MUST be sent before any live child traffic"); they are
  not bound to a prompt of ours: children may work after the parent's
  turn ended;
- ``subagent``: a ``subagent_update`` announces a new child: never the
  announcing session itself, nor another session the client uses;
- ``cancelled``: after ``session/cancel`` the turn ends with
  ``stopReason: cancelled`` and the client answers the agent's permission
  requests of that turn ``cancelled``;
- ``schema`` and ``envelope``: shapes and JSON-RPC framing.

Each :class:`Violation` names the side that broke the rule. Nothing a frame
holds makes a check raise: a value of the wrong type counts as absent, and a
frame nested too deeply for the schema check is reported as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._schemacheck import TREE_UPDATES as _TREE_UPDATES
from ._schemacheck import first_error as _first_error
from ._schemacheck import method_types as _types
from ._schemacheck import shapes_of as _shapes_of

__all__ = ["Direction", "TraceValidator", "Violation"]

Direction = Literal["outgoing", "incoming"]
Side = Literal["client", "agent", "trace"]

_TURN_UPDATES = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
    }
)
# sessionUpdate -> the clientCapabilities.session member it needs (schema v1.25).
_CLIENT_SESSION_CAPS = {
    "notice": "notices",
    "compaction_update": "compaction",
    "compaction_summary_chunk": "compaction",
}
#: The most subagent children the validator remembers (a trace, or an agent,
#: could announce them without end); the updates of later ones count as
#: updates outside a turn.
MAX_CHILDREN = 65536
_SYSTEM_PROMPT_METHODS = frozenset({"session/new", "session/load", "session/resume"})
_SESSION_CAPS = {
    "session/list": "list",
    "session/resume": "resume",
    "session/close": "close",
    "session/delete": "delete",
}


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule.

    Attributes:
        line: the trace line (1-based), or the frame's ordinal in live traffic.
        side: who broke it: ``client``, ``agent``, or ``trace`` (unreadable input).
        rule: the rule's short name (see the module docstring).
        message: what was wrong.
    """

    line: int
    side: Side
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: [{self.side}] {self.rule}: {self.message}"


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a wrong type counts as absent)."""
    return value if isinstance(value, dict) else {}


def _short(value: Any) -> str:
    """A value quoted in a message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class TraceValidator:
    """Feed frames in order with :meth:`feed`; call :meth:`finish` at the end.

    Args:
        schema: also validate shapes against the schema (needs jsonschema).
    """

    def __init__(self, *, schema: bool = True) -> None:
        self.schema = schema
        self.violations: list[Violation] = []
        self._client_caps: dict[str, Any] | None = None
        self._agent_caps: dict[str, Any] | None = None
        self._seen_client_request = False
        self._out: dict[
            Any, tuple[str, int, Any]
        ] = {}  # our requests: id -> (method, line, params)
        self._in: dict[Any, tuple[str, int, Any]] = {}  # the agent's requests
        self._turns: dict[str, int] = {}  # session -> prompt/load request line (while running)
        self._cancelled: set[str] = set()  # sessions whose running turn was cancelled
        # The child sessions agents announced with subagent_update: "child
        # events are delivered automatically", also after the parent's turn
        # (schema SubagentUpdate), so their updates belong to no prompt of theirs.
        self._children: set[str] = set()
        self._sessions: set[str] = set()  # the sessions the client's requests named
        self._ordinal = 0

    # -- entry points ----------------------------------------------------------------

    def feed(self, direction: Direction, frame: Any, line: int | None = None) -> list[Violation]:
        """Check one frame; return the violations it caused (also kept in :attr:`violations`)."""
        self._ordinal += 1
        at = line if line is not None else self._ordinal
        before = len(self.violations)
        sender: Side = "client" if direction == "outgoing" else "agent"
        if not isinstance(frame, dict) or frame.get("jsonrpc") != "2.0":
            self._add(at, sender, "envelope", "not a JSON-RPC 2.0 object")
        elif "method" in frame:
            if not isinstance(frame["method"], str):
                self._add(at, sender, "envelope", "method is not a string")
                self._expect_error_reply(sender, frame, at)
            elif "id" in frame:
                self._request(at, sender, frame)
            else:
                self._notification(at, sender, frame)
        elif "id" in frame and (("result" in frame) != ("error" in frame)):
            self._response(at, sender, frame)
        else:
            self._add(at, sender, "envelope", "neither a request, a notification nor a response")
            self._expect_error_reply(sender, frame, at)
        return self.violations[before:]

    def _expect_error_reply(self, sender: Side, frame: Any, at: int) -> None:
        """A broken request with a readable id still gets its (-32600) answer."""
        rid = frame.get("id") if isinstance(frame, dict) else None
        if type(rid) in (int, str):
            (self._out if sender == "client" else self._in)[rid] = ("(invalid request)", at, None)

    def finish(self) -> list[Violation]:
        """Report requests never answered; return every violation found."""
        for rid, (method, at, _) in self._out.items():
            self._add(
                at,
                "agent",
                "one-response",
                f"the agent never answered {method[:80]} (id {_short(rid)})",
            )
        for rid, (method, at, _) in self._in.items():
            self._add(
                at,
                "client",
                "one-response",
                f"the client never answered {method[:80]} (id {_short(rid)})",
            )
        self._out.clear()
        self._in.clear()
        return self.violations

    # -- helpers ----------------------------------------------------------------------

    def _add(self, at: int, side: Side, rule: str, message: str) -> None:
        self.violations.append(Violation(at, side, rule, message))

    def _check_schema(self, at: int, side: Side, name: str | None, value: Any) -> None:
        if self.schema and name is not None:
            for shape in _shapes_of(name, value):
                problem = _first_error(shape, value)
                if problem is not None:
                    self._add(at, side, "schema", problem)
                    return

    @staticmethod
    def _handler_side(sender: Side) -> str:
        # x-side names the side that handles the method.
        return "agent" if sender == "client" else "client"

    # -- requests -------------------------------------------------------------------------

    def _request(self, at: int, sender: Side, frame: dict[str, Any]) -> None:
        method: str = frame["method"]
        rid = frame["id"]
        params = frame.get("params")
        if type(rid) not in (int, str):
            self._add(
                at,
                sender,
                "envelope",
                f"request id {_short(rid)} is neither a string nor an integer",
            )
            if isinstance(rid, (dict, list)):
                return  # cannot be matched to a response
        name = _types().get((method, self._handler_side(sender), "request"))
        if name is None:
            self._add(
                at,
                sender,
                "schema",
                f"unknown method {_short(method)} for the {self._handler_side(sender)}",
            )
        else:
            self._check_schema(at, sender, name, params)
        table = self._out if sender == "client" else self._in
        if rid in table:
            self._add(
                at, sender, "one-response", f"request id {_short(rid)} reused while still pending"
            )
        table[rid] = (method, at, params)
        if sender == "client":
            self._client_request(at, method, params)
        else:
            self._agent_request(at, method, params)

    def _client_request(self, at: int, method: str, params: Any) -> None:
        if not self._seen_client_request and method != "initialize":
            self._add(
                at, "client", "initialize-first", f"the first request is {method}, not initialize"
            )
        self._seen_client_request = True
        p = _obj(params)
        if method == "initialize":
            self._client_caps = _obj(p.get("clientCapabilities"))
            return
        agent = self._agent_caps
        if agent is None:
            return
        session_caps = _obj(agent.get("sessionCapabilities"))
        if method == "session/load" and not agent.get("loadSession"):
            self._add(
                at,
                "client",
                "capability",
                "session/load without the agent's loadSession capability",
            )
        cap = _SESSION_CAPS.get(method)
        if cap is not None and session_caps.get(cap) is None:
            self._add(at, "client", "capability", f"{method} without sessionCapabilities.{cap}")
        if method in _SYSTEM_PROMPT_METHODS and p.get("systemPrompt") is not None:
            self._system_prompt(at, method, p["systemPrompt"], session_caps)
        sid = p.get("sessionId")
        if (
            isinstance(sid, str)
            and sid not in self._children
            and len(self._sessions) < MAX_CHILDREN
        ):
            self._sessions.add(sid)  # a session the client uses (not a child it cancels)
        if method in ("session/prompt", "session/load") and isinstance(sid, str):
            self._turns[sid] = at
            self._cancelled.discard(sid)
        prompt = p.get("prompt")
        if method == "session/prompt" and isinstance(prompt, list):
            prompt_caps = _obj(agent.get("promptCapabilities"))
            for block in prompt:
                kind = block.get("type") if isinstance(block, dict) else None
                needs = {"image": "image", "audio": "audio", "resource": "embeddedContext"}.get(
                    kind or ""
                )
                if needs and not prompt_caps.get(needs):
                    self._add(
                        at,
                        "client",
                        "capability",
                        f"a {kind} block without promptCapabilities.{needs}",
                    )

    def _system_prompt(
        self, at: int, method: str, prompt: Any, session_caps: dict[str, Any]
    ) -> None:
        # Schema ``SystemPrompt``: "Clients MUST only send this when the Agent
        # advertises sessionCapabilities.systemPrompt"; ``override`` only with
        # its ``mode.override`` (``SessionSystemPromptModeCapabilities``).
        caps = session_caps.get("systemPrompt")
        if not isinstance(caps, dict):
            self._add(
                at,
                "client",
                "capability",
                f"{method} with a systemPrompt without sessionCapabilities.systemPrompt",
            )
        elif _obj(prompt).get("mode") == "override" and not isinstance(
            _obj(caps.get("mode")).get("override"), dict
        ):
            self._add(
                at,
                "client",
                "capability",
                f"{method} with an override systemPrompt without "
                "sessionCapabilities.systemPrompt.mode.override",
            )

    def _agent_request(self, at: int, method: str, params: Any) -> None:
        caps = self._client_caps or {}
        fs = _obj(caps.get("fs"))
        needed = None
        if method == "fs/read_text_file" and not fs.get("readTextFile"):
            needed = "fs.readTextFile"
        elif method == "fs/write_text_file" and not fs.get("writeTextFile"):
            needed = "fs.writeTextFile"
        elif method.startswith("terminal/") and not caps.get("terminal"):
            needed = "terminal"
        elif method == "elicitation/create" and not caps.get("elicitation"):
            needed = "elicitation"
        if needed is not None:
            self._add(
                at,
                "agent",
                "capability",
                f"{method} although the client did not advertise {needed}",
            )

    # -- notifications ---------------------------------------------------------------------------

    def _notification(self, at: int, sender: Side, frame: dict[str, Any]) -> None:
        method: str = frame["method"]
        params = frame.get("params")
        name = _types().get((method, self._handler_side(sender), "notification")) or _types().get(
            (method, "protocol", "notification")
        )
        if name is None:
            if not method.startswith("_"):
                self._add(at, sender, "schema", f"unknown notification {_short(method)}")
            return
        self._check_schema(at, sender, name, params)
        p = _obj(params)
        sid = p.get("sessionId")
        if method == "session/cancel" and isinstance(sid, str) and sid in self._turns:
            self._cancelled.add(sid)
        elif method == "session/update" and isinstance(sid, str):
            update = _obj(p.get("update"))
            kind = update.get("sessionUpdate")
            child = update.get("sessionId") if kind == "subagent_update" else None
            self._session_update(at, sid, kind, child if isinstance(child, str) else None)

    def feed_session_update(
        self, session_id: str, kind: str, child: str | None = None
    ) -> list[Violation]:
        """:meth:`feed` for an incoming ``session/update`` whose shape is known.

        For a live check that reads only what the rules need of the hottest
        frame: the caller has seen ``jsonrpc`` 2.0, a ``method`` of
        ``session/update``, no ``id``, a string ``sessionId`` and an
        ``update`` object with a string ``sessionUpdate``, and passes the
        update's own ``sessionId`` as ``child`` when it is a
        ``subagent_update`` (the child it announces). The violations are
        those :meth:`feed` finds for the frame when the schema is not checked
        (with it, feed the frame).
        """
        self._ordinal += 1
        before = len(self.violations)
        self._session_update(self._ordinal, session_id, kind, child)
        return self.violations[before:]

    def feed_session_updates(
        self, updates: Sequence[tuple[str, str] | tuple[str, str, str | None]]
    ) -> list[Violation]:
        """:meth:`feed_session_update` for each ``(session_id, kind[, child])``, in order.

        For a block of incoming updates at once: when none of the distinct
        tuples breaks a rule or announces a subagent, none of the frames
        does, and they are only counted.
        """
        if self._all_quiet(set(updates)):
            self._ordinal += len(updates)
            return []
        found: list[Violation] = []
        for update in updates:
            found += self.feed_session_update(*update)
        return found

    def _all_quiet(self, updates: set[tuple[str, str] | tuple[str, str, str | None]]) -> bool:
        session_caps = _obj(_obj(self._client_caps).get("session"))
        for update in updates:
            sid, kind = update[0], update[1]
            if kind in _TURN_UPDATES and sid not in self._turns and sid not in self._children:
                return False
            if kind in _TREE_UPDATES:  # an announcement, or a capability to check
                return False
            needed = _CLIENT_SESSION_CAPS.get(kind)
            if needed is not None and not isinstance(session_caps.get(needed), dict):
                return False
        return True

    def _session_update(self, at: int, sid: str, kind: Any, child: str | None = None) -> None:
        if kind in _TREE_UPDATES:
            self._tree_update(at, kind, child, sid)
        if kind in _TURN_UPDATES and sid not in self._turns and sid not in self._children:
            self._add(
                at,
                "agent",
                "turn-order",
                f"a {kind} update for session {_short(sid)} outside any prompt turn",
            )
        needed = _CLIENT_SESSION_CAPS.get(kind) if isinstance(kind, str) else None
        if needed is not None and not isinstance(
            _obj(_obj(self._client_caps).get("session")).get(needed), dict
        ):
            self._add(
                at,
                "agent",
                "capability",
                f"a {kind} update although the client did not advertise session.{needed}",
            )

    def _tree_update(self, at: int, kind: str, child: str | None, sid: str) -> None:
        if not isinstance(_obj(self._client_caps).get("subagents"), dict):
            self._add(
                at,
                "agent",
                "capability",
                f"a {kind} update although the client did not advertise subagents",
            )
        if kind != "subagent_update" or child is None:
            return
        if child == sid or child in self._sessions:
            # A child is a session of its own: naming the announcing session
            # or another session the client uses would put that session's
            # updates outside any turn's order (the client never routes them so).
            self._add(
                at,
                "agent",
                "subagent",
                f"a subagent_update names session {_short(child)}, which is not a new child",
            )
            return
        if len(self._children) < MAX_CHILDREN:
            self._children.add(child)

    # -- responses --------------------------------------------------------------------------------

    def _response(self, at: int, sender: Side, frame: dict[str, Any]) -> None:
        rid = frame["id"]
        if isinstance(rid, (dict, list)):
            self._add(
                at,
                sender,
                "envelope",
                f"response id {_short(rid)} is neither a string nor an integer",
            )
            return
        if rid is None and "error" in frame:
            # JSON-RPC 2.0 §5: the reply to a frame whose id could not be read.
            self._check_schema(at, sender, "Error", frame["error"])
            return
        table = self._out if sender == "agent" else self._in
        entry = table.pop(rid, None)
        if entry is None:
            self._add(
                at,
                sender,
                "one-response",
                f"a response to id {_short(rid)}, which no pending request has",
            )
            return
        method, _, params = entry
        p = _obj(params)
        if "error" in frame:
            self._check_schema(at, sender, "Error", frame["error"])
            if method in ("session/prompt", "session/load"):
                self._end_turn(p.get("sessionId"))
            return
        result = frame["result"]
        self._check_schema(
            at,
            sender,
            _types().get((method, self._handler_side_of_response(sender), "response")),
            result,
        )
        r = _obj(result)
        if method == "initialize":
            self._agent_caps = _obj(r.get("agentCapabilities"))
        elif method == "session/prompt":
            sid = p.get("sessionId")
            if (
                isinstance(sid, str)
                and sid in self._cancelled
                and r.get("stopReason") != "cancelled"
            ):
                self._add(
                    at,
                    "agent",
                    "cancelled",
                    "the turn was cancelled but ended with stopReason "
                    + _short(r.get("stopReason")),
                )
            self._end_turn(sid)
        elif method == "session/load":
            self._end_turn(p.get("sessionId"))
        elif method == "session/request_permission":
            sid = p.get("sessionId")
            chosen = _obj(r.get("outcome")).get("outcome")
            if isinstance(sid, str) and sid in self._cancelled and chosen != "cancelled":
                self._add(
                    at,
                    "client",
                    "cancelled",
                    "a permission request of a cancelled turn was not answered cancelled",
                )

    @staticmethod
    def _handler_side_of_response(sender: Side) -> str:
        # A response is sent by the side that handled the request.
        return sender

    def _end_turn(self, sid: Any) -> None:
        if isinstance(sid, str):
            self._turns.pop(sid, None)
            self._cancelled.discard(sid)
