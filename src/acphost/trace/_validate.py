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
- ``schema`` and ``envelope``: shapes and JSON-RPC framing;
- ``version``: a frame of the other protocol version than the one agreed,
  and an agent answering ``initialize`` with a version above the one asked
  for (schema ``InitializeResponse``).

The protocol version is the one the ``initialize`` exchange agreed: the
request's ``protocolVersion`` until the agent answers, then the answer's
(a refused ``initialize`` may be followed by another on the same
connection: the ``auto`` fallback from 2 to 1), read by
:attr:`TraceValidator.protocol_version`. On version 2 the frames are checked
against the v2 schema, and v2's rules (:mod:`._v2rules`) replace v1's where
they differ:

- ``turn-order``: a turn ends with the session's idle ``state_update``, not
  with the prompt's response (``{messageId}``, at once); a turn never ended
  is reported at the end; updates need no running prompt (v2 agents may work
  on their own, and report background work while idle, schema
  ``StateUpdate``) but a session: one ``session/new`` (or ``fork``) answered
  or the client named, or a child a ``subagent_update`` announced first; a
  ``session/resume`` is answered after the session's current
  ``state_update`` (``ResumeSessionResponse``);
- ``cancelled``: a cancelled turn's idle update names ``cancelled`` when it
  names a stop reason;
- ``capability``: capabilities are objects (``{}`` advertises one) under
  ``capabilities``; session methods need ``capabilities.session``;
  subagents, notices and compaction need no client capability;
- ``version``: what only v1 has (``fs/*`` and ``terminal/*`` requests to
  the client, ``session/load``, v1 update kinds, a permission request's
  top-level ``toolCall``, a ``set_config_option`` without ``type``, a prompt
  answered with a ``stopReason``).

Each :class:`Violation` names the side that broke the rule. Nothing a frame
holds makes a check raise: a value of the wrong type counts as absent, and a
frame nested too deeply for the schema check is reported as such.
"""

from __future__ import annotations

from typing import Any

from ._schemacheck import first_error as _first_error
from ._schemacheck import method_types as _types
from ._schemacheck import shapes_of as _shapes_of
from ._updates import MAX_CHILDREN, Direction, Side, UpdateRules, Violation
from ._updates import obj as _obj
from ._updates import short as _short
from ._updates import version_of as _version_of
from ._v2rules import agent_request_problem as _agent_request_problem
from ._v2rules import client_request_problem as _client_request_problem
from ._v2rules import missing_capability as _missing_capability
from ._v2rules import prompt_result_problem as _prompt_result_problem

__all__ = ["Direction", "TraceValidator", "Violation"]

_SYSTEM_PROMPT_METHODS = frozenset({"session/new", "session/load", "session/resume"})
_SESSION_CAPS = {
    "session/list": "list",
    "session/resume": "resume",
    "session/close": "close",
    "session/delete": "delete",
}


class TraceValidator(UpdateRules):
    """Feed frames in order with :meth:`feed`; call :meth:`finish` at the end.

    Args:
        schema: also validate shapes against the schema (needs jsonschema).
    """

    def __init__(self, *, schema: bool = True) -> None:
        super().__init__()
        self.schema = schema
        self._agent_caps: dict[str, Any] | None = None
        self._seen_client_request = False
        self._out: dict[
            Any, tuple[str, int, Any]
        ] = {}  # our requests: id -> (method, line, params)
        self._in: dict[Any, tuple[str, int, Any]] = {}  # the agent's requests
        self._auth_methods: Any = None  # the agent's authMethods (v2: auth/* needs them)

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
        """Report requests never answered (and v2 turns never ended); return every violation."""
        if self._version >= 2:
            # A v2 turn ends with an idle state_update (schema StateUpdate: the
            # agent "MUST report idle when no foreground activity remains").
            # A prompt never answered is reported below instead.
            pending = {at for _, at, _ in self._out.values()}
            for sid, at in self._turns.items():
                if at not in pending:
                    self._add(
                        at,
                        "agent",
                        "turn-order",
                        f"the turn of session {_short(sid)} never ended with an idle state_update",
                    )
            self._turns.clear()
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
        if sender == "client" and method == "initialize":
            # The version asked for selects the request's schema (v2 requires info).
            self._version = _version_of(_obj(params).get("protocolVersion"))
        problem = self._v2_request_problem(sender, method, params)
        name = _types(self._version).get((method, self._handler_side(sender), "request"))
        if problem is not None:
            self._add(at, sender, "version", problem)
        elif name is None:
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

    def _v2_request_problem(self, sender: Side, method: str, params: Any) -> str | None:
        if self._version < 2:
            return None
        if sender == "client":
            return _client_request_problem(method, _obj(params))
        return _agent_request_problem(method, _obj(params))

    def _client_request(self, at: int, method: str, params: Any) -> None:
        if not self._seen_client_request and method != "initialize":
            self._add(
                at, "client", "initialize-first", f"the first request is {method}, not initialize"
            )
        self._seen_client_request = True
        p = _obj(params)
        if method == "initialize":
            key = "capabilities" if self._version >= 2 else "clientCapabilities"
            self._client_caps = _obj(p.get(key))
            return
        if self._version >= 2:
            self._v2_client_request(at, method, p)
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
                needs = (
                    {"image": "image", "audio": "audio", "resource": "embeddedContext"}.get(kind)
                    if isinstance(kind, str)
                    else None
                )
                if needs and not prompt_caps.get(needs):
                    self._add(
                        at,
                        "client",
                        "capability",
                        f"a {kind} block without promptCapabilities.{needs}",
                    )

    def _v2_client_request(self, at: int, method: str, p: dict[str, Any]) -> None:
        if self._agent_caps is not None:
            for problem in _missing_capability(method, p, self._agent_caps, self._auth_methods):
                self._add(at, "client", "capability", problem)
        sid = p.get("sessionId")
        if not isinstance(sid, str):
            return
        if sid not in self._children and len(self._sessions) < MAX_CHILDREN:
            self._sessions.add(sid)
        if method == "session/prompt":
            # Open until the agent reports idle (schema PromptResponse: the
            # answer acknowledges the prompt's insertion, not its end).
            self._turns[sid] = at
            self._cancelled.discard(sid)
        elif method == "session/resume" and len(self._resuming) < MAX_CHILDREN:
            self._resuming[sid] = at

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
        if self._version >= 2:
            # fs/* and terminal/* are no v2 methods (reported as such); an
            # elicitation needs the capability, ``{}`` included (schema
            # ClientCapabilities.elicitation: omitted or null advertise none).
            if method == "elicitation/create" and not isinstance(caps.get("elicitation"), dict):
                self._add(
                    at,
                    "agent",
                    "capability",
                    f"{method} although the client did not advertise elicitation",
                )
            return
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
        types = _types(self._version)
        name = types.get((method, self._handler_side(sender), "notification")) or types.get(
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
            # Only a string names a kind: a list or an object would not even
            # be looked up in the rules' tables (unhashable; the schema says why).
            kind = kind if isinstance(kind, str) else None
            child = update.get("sessionId") if kind == "subagent_update" else None
            self._session_update(
                at,
                sid,
                kind,
                child if isinstance(child, str) else None,
                state=update.get("state"),
                stop=update.get("stopReason"),
            )

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
            self._check_schema(at, sender, self._error_def(), frame["error"])
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
            # A refused initialize leaves the connection open for another
            # (the v1 fallback of ``auto``): the next one negotiates afresh.
            self._check_schema(at, sender, self._error_def(), frame["error"])
            if method in ("session/prompt", "session/load"):
                self._end_turn(p.get("sessionId"))
            elif method == "session/resume" and isinstance(p.get("sessionId"), str):
                self._resuming.pop(p["sessionId"], None)
            return
        result = frame["result"]
        r = _obj(result)
        if method == "initialize":
            self._negotiated(at, p, r)
        elif method == "session/prompt" and self._version >= 2:
            problem = _prompt_result_problem(result)
            if problem is not None:
                self._add(at, "agent", "version", problem)
                return
        self._check_schema(
            at,
            sender,
            _types(self._version).get((method, self._handler_side_of_response(sender), "response")),
            result,
        )
        if method == "session/resume" and self._version >= 2:
            self._resumed(at, p.get("sessionId"))
        elif method in ("session/new", "session/fork") and self._version >= 2:
            self._opened(_obj(result).get("sessionId"))
        if method == "session/prompt" and self._version >= 2:
            return  # the turn goes on until the agent reports idle
        if method == "session/prompt":
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

    def _opened(self, sid: Any) -> None:
        """A session the agent created for the client: its updates may follow."""
        if (
            isinstance(sid, str)
            and sid not in self._children
            and len(self._sessions) < MAX_CHILDREN
        ):
            self._sessions.add(sid)

    def _resumed(self, at: int, sid: Any) -> None:
        # ResumeSessionResponse: "The agent MUST send a current state_update
        # after any requested history replay and before this response".
        if isinstance(sid, str) and self._resuming.pop(sid, None) is not None:
            self._add(
                at,
                "agent",
                "turn-order",
                f"session/resume of {_short(sid)} answered before its current state_update",
            )

    def _error_def(self) -> str:
        return "v2:Error" if self._version >= 2 else "Error"

    def _negotiated(self, at: int, params: dict[str, Any], result: dict[str, Any]) -> None:
        """The agent's ``initialize`` answer: the version agreed, and its capabilities."""
        asked, answered = params.get("protocolVersion"), result.get("protocolVersion")
        if type(asked) is int and type(answered) is int and answered > asked:
            # InitializeResponse.protocolVersion: "The highest protocol version
            # supported by the agent that is at or below the version requested".
            self._add(
                at,
                "agent",
                "version",
                f"initialize answered protocol version {answered}, above the {asked} asked for",
            )
        self._version = _version_of(answered)
        if self._version >= 2:
            self._agent_caps = _obj(result.get("capabilities"))
            self._auth_methods = result.get("authMethods")
        else:
            self._agent_caps = _obj(result.get("agentCapabilities"))

    @staticmethod
    def _handler_side_of_response(sender: Side) -> str:
        # A response is sent by the side that handled the request.
        return sender
