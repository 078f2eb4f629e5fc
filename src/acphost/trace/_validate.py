"""Conformance checks over a stream of frames (a recorded trace or live traffic).

Each frame is checked against the vendored schema by method and direction,
with responses matched to their requests, and against the ordering rules of
the protocol (seeds/000 §17 and the appendix checklist):

- ``initialize-first``: the client's first request is ``initialize``;
- ``one-response``: every request gets exactly one response (unknown or
  repeated response ids, and requests never answered by the end);
- ``turn-order``: message, thought, tool-call and plan updates of a session
  arrive while a prompt (or a load's replay) of that session is running — the
  prompt's response is the last frame of its turn;
- ``capability``: neither side uses a method or content the other did not
  advertise in ``initialize`` (fs, terminal, elicitation, loadSession,
  session list/resume/close/delete, image/audio/embedded prompt content);
- ``cancelled``: after ``session/cancel`` the turn ends with
  ``stopReason: cancelled`` and the client answers the agent's permission
  requests of that turn ``cancelled``;
- ``schema`` and ``envelope``: shapes and JSON-RPC framing.

Each :class:`Violation` names the side that broke the rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

__all__ = ["Direction", "TraceValidator", "Violation", "read_trace"]

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


_UNSTABLE = "unstable:"


@cache
def _schema(unstable: bool = False) -> dict[str, Any]:
    name = "v1/schema.unstable.json" if unstable else "v1/schema.json"
    schema: dict[str, Any] = json.loads(
        resources.files("acphost.schema").joinpath(name).read_text("utf-8")
    )
    return schema


def _method_types(unstable: bool) -> dict[tuple[str, str, str], str]:
    out: dict[tuple[str, str, str], str] = {}
    for name, d in _schema(unstable)["$defs"].items():
        method = d.get("x-method")
        if method:
            role = (
                "response"
                if name.endswith("Response")
                else ("notification" if name.endswith("Notification") else "request")
            )
            out[(method, d["x-side"], role)] = name
    return out


@cache
def _types() -> dict[tuple[str, str, str], str]:
    """(method, handling side, role) → the ``$defs`` name.

    Methods only the unstable schema has (``session/fork``, used behind the
    client's ``unstable=True``) map to ``unstable:Name``, validated against
    that schema.
    """
    out = _method_types(False)
    for key, name in _method_types(True).items():
        out.setdefault(key, _UNSTABLE + name)
    return out


@cache
def _validator(name: str) -> Any:
    try:
        import jsonschema  # type: ignore[import-untyped]  # noqa: PLC0415 - only validation needs it
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "schema validation needs jsonschema: pip install 'acphost[trace]'"
        ) from exc
    unstable = name.startswith(_UNSTABLE)
    ref = name.removeprefix(_UNSTABLE)
    return jsonschema.Draft202012Validator(
        {"$ref": f"#/$defs/{ref}", "$defs": _schema(unstable)["$defs"]}
    )


def _first_error(name: str, value: Any) -> str | None:
    errors = sorted(_validator(name).iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    err = errors[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return f"{name}{where}: {err.message[:300]}"


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
                at, "agent", "one-response", f"the agent never answered {method} (id {rid!r})"
            )
        for rid, (method, at, _) in self._in.items():
            self._add(
                at, "client", "one-response", f"the client never answered {method} (id {rid!r})"
            )
        self._out.clear()
        self._in.clear()
        return self.violations

    # -- helpers ----------------------------------------------------------------------

    def _add(self, at: int, side: Side, rule: str, message: str) -> None:
        self.violations.append(Violation(at, side, rule, message))

    def _check_schema(self, at: int, side: Side, name: str | None, value: Any) -> None:
        if self.schema and name is not None:
            problem = _first_error(name, value)
            if problem is not None:
                self._add(at, side, "schema", problem)

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
                at, sender, "envelope", f"request id {rid!r} is neither a string nor an integer"
            )
            if isinstance(rid, (dict, list)):
                return  # cannot be matched to a response
        name = _types().get((method, self._handler_side(sender), "request"))
        if name is None:
            self._add(
                at,
                sender,
                "schema",
                f"unknown method {method!r} for the {self._handler_side(sender)}",
            )
        else:
            self._check_schema(at, sender, name, params)
        table = self._out if sender == "client" else self._in
        if rid in table:
            self._add(at, sender, "one-response", f"request id {rid!r} reused while still pending")
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
        p = params if isinstance(params, dict) else {}
        if method == "initialize":
            caps = p.get("clientCapabilities")
            self._client_caps = caps if isinstance(caps, dict) else {}
            return
        agent = self._agent_caps
        if agent is None:
            return
        session_caps = agent.get("sessionCapabilities") or {}
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
        sid = p.get("sessionId")
        if method in ("session/prompt", "session/load") and isinstance(sid, str):
            self._turns[sid] = at
            self._cancelled.discard(sid)
        if method == "session/prompt":
            prompt_caps = agent.get("promptCapabilities") or {}
            for block in p.get("prompt") or ():
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

    def _agent_request(self, at: int, method: str, params: Any) -> None:
        caps = self._client_caps or {}
        fs = caps.get("fs") or {}
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
                self._add(at, sender, "schema", f"unknown notification {method!r}")
            return
        self._check_schema(at, sender, name, params)
        p = params if isinstance(params, dict) else {}
        sid = p.get("sessionId")
        if method == "session/cancel" and isinstance(sid, str) and sid in self._turns:
            self._cancelled.add(sid)
        elif method == "session/update" and isinstance(sid, str):
            update = p.get("update")
            kind = update.get("sessionUpdate") if isinstance(update, dict) else None
            if kind in _TURN_UPDATES and sid not in self._turns:
                self._add(
                    at,
                    "agent",
                    "turn-order",
                    f"a {kind} update for session {sid} outside any prompt turn",
                )

    # -- responses --------------------------------------------------------------------------------

    def _response(self, at: int, sender: Side, frame: dict[str, Any]) -> None:
        rid = frame["id"]
        if isinstance(rid, (dict, list)):
            self._add(
                at, sender, "envelope", f"response id {rid!r} is neither a string nor an integer"
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
                f"a response to id {rid!r}, which no pending request has",
            )
            return
        method, _, params = entry
        p = params if isinstance(params, dict) else {}
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
        r = result if isinstance(result, dict) else {}
        if method == "initialize":
            caps = r.get("agentCapabilities")
            self._agent_caps = caps if isinstance(caps, dict) else {}
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
                    f"the turn was cancelled but ended with stopReason {r.get('stopReason')!r}",
                )
            self._end_turn(sid)
        elif method == "session/load":
            self._end_turn(p.get("sessionId"))
        elif method == "session/request_permission":
            sid = p.get("sessionId")
            outcome = r.get("outcome")
            chosen = outcome.get("outcome") if isinstance(outcome, dict) else None
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


def read_trace(path: str) -> Iterator[tuple[int, Direction | None, Any]]:
    """Yield ``(line, direction, frame)`` for each line of a JSONL trace.

    Lines in the seeds/000 format (frame members plus ``direction``) and in
    the wrapped form ``{"direction": ..., "frame": {...}}`` are both read.
    ``direction`` is None for a line that cannot be read; ``frame`` is then
    the reason.

    Raises:
        OSError: the file cannot be opened.
    """
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except ValueError as exc:
                yield number, None, f"not JSON: {exc}"
                continue
            if not isinstance(record, dict) or record.get("direction") not in (
                "outgoing",
                "incoming",
            ):
                yield number, None, "no direction (outgoing or incoming)"
                continue
            direction: Direction = record["direction"]
            if "unparsed" in record:
                yield number, None, f"a frame that was not JSON: {str(record['unparsed'])[:100]}"
                continue
            if "frame" in record:
                yield number, direction, record["frame"]
            else:
                yield (
                    number,
                    direction,
                    {k: v for k, v in record.items() if k not in ("direction", "timestamp")},
                )
