"""The ``session/update`` rules of :class:`~._validate.TraceValidator`, and the state it follows.

:class:`UpdateRules` holds what the validator knows of a connection (the
version agreed, the client's capabilities, the running turns, the announced
subagents) and checks incoming updates against it, from a whole frame
(:meth:`~._validate.TraceValidator.feed`) or from the few members a live
check reads of the hottest frame (:meth:`UpdateRules.feed_session_update`).
The rules themselves are described in :mod:`._validate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._schemacheck import TREE_UPDATES as _TREE_UPDATES
from ._v2rules import V1_ONLY_UPDATES as _V1_ONLY_UPDATES

__all__ = [
    "MAX_CHILDREN",
    "Direction",
    "Side",
    "UpdateRules",
    "Violation",
    "obj",
    "short",
    "version_of",
]

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


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule.

    Attributes:
        line: the trace line (1-based), or the frame's ordinal in live traffic.
        side: who broke it: ``client``, ``agent``, or ``trace`` (unreadable input).
        rule: the rule's short name (see :mod:`acphost.trace._validate`).
        message: what was wrong.
    """

    line: int
    side: Side
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: [{self.side}] {self.rule}: {self.message}"


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a wrong type counts as absent)."""
    return value if isinstance(value, dict) else {}


def version_of(value: Any) -> int:
    """The protocol version a ``protocolVersion`` selects: 2 from 2 up, else 1 (v1's rules)."""
    return 2 if type(value) is int and value >= 2 else 1


def short(value: Any) -> str:
    """A value quoted in a message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class UpdateRules:
    """The connection as far as the rules follow it, and the rules of its updates."""

    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self._client_caps: dict[str, Any] | None = None
        self._turns: dict[str, int] = {}  # session -> prompt/load request line (while running)
        self._cancelled: set[str] = set()  # sessions whose running turn was cancelled
        # The child sessions agents announced with subagent_update: "child
        # events are delivered automatically", also after the parent's turn
        # (schema SubagentUpdate), so their updates belong to no prompt of theirs.
        self._children: set[str] = set()
        self._sessions: set[str] = set()  # the sessions the client's requests named
        self._ordinal = 0
        self._version = 1  # the protocol version initialize agreed (or is asking for)
        # v2: session -> the line of its resume, until the state_update it owes.
        self._resuming: dict[str, int] = {}

    @property
    def protocol_version(self) -> int:
        """The protocol version the frames are checked against: 1, or 2 once negotiated.

        The ``initialize`` request's ``protocolVersion`` until the agent
        answers, then the answer's; 1 before any ``initialize``.
        """
        return self._version

    def _add(self, at: int, side: Side, rule: str, message: str) -> None:
        self.violations.append(Violation(at, side, rule, message))

    def _end_turn(self, sid: Any) -> None:
        if isinstance(sid, str):
            self._turns.pop(sid, None)
            self._cancelled.discard(sid)

    def feed_session_update(
        self,
        session_id: str,
        kind: str,
        child: str | None = None,
        state: object = None,
        stop_reason: object = None,
    ) -> list[Violation]:
        """:meth:`feed` for an incoming ``session/update`` whose shape is known.

        For a live check that reads only what the rules need of the hottest
        frame: the caller has seen ``jsonrpc`` 2.0, a ``method`` of
        ``session/update``, no ``id``, a string ``sessionId`` and an
        ``update`` object with a string ``sessionUpdate``, and passes the
        update's own ``sessionId`` as ``child`` when it is a
        ``subagent_update`` (the child it announces), and the update's
        ``state`` and ``stopReason`` members (a v2 ``state_update`` ends the
        turn with them; None when absent, any value otherwise). The violations
        are those :meth:`~._validate.TraceValidator.feed` finds for the frame when the schema is not
        checked (with it, feed the frame).
        """
        self._ordinal += 1
        before = len(self.violations)
        self._session_update(self._ordinal, session_id, kind, child, state=state, stop=stop_reason)
        return self.violations[before:]

    def feed_session_updates(self, updates: Sequence[tuple[Any, ...]]) -> list[Violation]:
        """:meth:`feed_session_update` for each ``(session_id, kind[, child[, state[, stop]]])``.

        In order, and each tuple hashable (a set of them is taken).
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

    def _all_quiet(self, updates: set[tuple[Any, ...]]) -> bool:
        if self._version >= 2:
            for update in updates:
                kind = update[1]
                if kind in _TREE_UPDATES or kind in _V1_ONLY_UPDATES or kind == "state_update":
                    return False
                if update[0] not in self._sessions and update[0] not in self._children:
                    return False
            return True
        session_caps = obj(obj(self._client_caps).get("session"))
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

    def _session_update(
        self,
        at: int,
        sid: str,
        kind: Any,
        child: str | None = None,
        *,
        state: object = None,
        stop: object = None,
    ) -> None:
        if self._version >= 2:
            self._v2_session_update(at, sid, kind, child, state=state, stop=stop)
            return
        if kind in _TREE_UPDATES:
            self._tree_update(at, kind, child, sid)
        if kind in _TURN_UPDATES and sid not in self._turns and sid not in self._children:
            self._add(
                at,
                "agent",
                "turn-order",
                f"a {kind} update for session {short(sid)} outside any prompt turn",
            )
        needed = _CLIENT_SESSION_CAPS.get(kind) if isinstance(kind, str) else None
        if needed is not None and not isinstance(
            obj(obj(self._client_caps).get("session")).get(needed), dict
        ):
            self._add(
                at,
                "agent",
                "capability",
                f"a {kind} update although the client did not advertise session.{needed}",
            )

    def _v2_session_update(
        self, at: int, sid: str, kind: Any, child: str | None, *, state: object, stop: object
    ) -> None:
        # Updates need no running prompt on v2: "Agent-initiated work does not
        # require a prompt request", and background work reports while idle
        # (schema StateUpdate). They need a session: one the client opened or
        # named, or a child announced first (SubagentUpdate: "MUST be sent
        # before any live request or notification bearing the child's session
        # ID"). Subagents need no capability (v2 baseline).
        if sid not in self._sessions and sid not in self._children:
            self._add(
                at,
                "agent",
                "turn-order",
                f"a {short(kind)} update for session {short(sid)}, which no session/new, "
                "session/resume or subagent_update opened",
            )
        if kind in _TREE_UPDATES:
            self._announce(at, kind, child, sid)
        elif kind == "state_update":
            self._resuming.pop(sid, None)  # the snapshot a resume owes, whatever its state
        if kind == "state_update" and state == "idle":
            # IdleStateUpdate: the stop reason is optional ("SHOULD"); named
            # after a session/cancel, it is cancelled.
            if sid in self._cancelled and stop is not None and stop != "cancelled":
                self._add(
                    at,
                    "agent",
                    "cancelled",
                    f"the turn was cancelled but went idle with stopReason {short(stop)}",
                )
            self._end_turn(sid)
        elif kind in _V1_ONLY_UPDATES:
            self._add(
                at,
                "agent",
                "version",
                f"a {kind} update, which ACP v2 does not have: it sends {_V1_ONLY_UPDATES[kind]}",
            )

    def _tree_update(self, at: int, kind: str, child: str | None, sid: str) -> None:
        if not isinstance(obj(self._client_caps).get("subagents"), dict):
            self._add(
                at,
                "agent",
                "capability",
                f"a {kind} update although the client did not advertise subagents",
            )
        self._announce(at, kind, child, sid)

    def _announce(self, at: int, kind: str, child: str | None, sid: str) -> None:
        """A ``subagent_update`` announcing ``child``: a new session, not one in use."""
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
                f"a subagent_update names session {short(child)}, which is not a new child",
            )
            return
        if len(self._children) < MAX_CHILDREN:
            self._children.add(child)
