"""The ``subagent`` keyword: a child session run for a subagent, as today's adapters do.

With the client's ``subagents`` capability, the agent announces a child on
the parent session (``subagent_update``), sends it its instructions
(``session_message``, outgoing view on the parent, incoming view on the
child), streams the child's own updates on the child's session id, then
reports it idle and relays its answer (schema ``SubagentUpdate``,
``SessionMessage``). ``background`` answers the parent's prompt first and
lets the child go on after it, as codex-acp's children do. Without the
capability it falls back to one tool call, as claude-agent-acp does.
"""

from __future__ import annotations

import threading

from ._turn import Cancelled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._turn import Turn

    Json = dict[str, Any]

#: The children running now, by session id: ``session/cancel`` on one sets its event.
_running: dict[str, threading.Event] = {}
_lock = threading.Lock()
_started = [0]  # how many children were started (a list: no global statement)


def cancel(session_id: str) -> bool:
    """Cancel a running child's work; False when no child has that id."""
    with _lock:
        event = _running.get(session_id)
    if event is None:
        return False
    event.set()
    return True


def subagent(turn: Turn, arg: str) -> str:
    """Run a subagent (`subagent [background] [wait SECONDS] TEXT`): a child session."""
    words = arg.split()
    background = bool(words) and words[0] == "background"
    if background:
        words = words[1:]
    seconds = 0.0
    if len(words) >= 2 and words[0] == "wait":
        try:
            seconds = min(max(float(words[1]), 0.0), 3600.0)
        except ValueError:
            seconds = 0.0
        words = words[2:]
    task = " ".join(words) or "say pong"
    if not isinstance(turn.client.get("subagents"), dict):
        return _as_tool_call(turn, task)
    with _lock:
        _started[0] += 1
        number = _started[0]
    child = _Child(turn, f"{turn.session.id}:sub-{number}", number, task, seconds)
    child.announce()
    if background:
        turn.say(f"Started the subagent {child.title!r}; it goes on in the background.")
        turn.after.append(child.run)
        return "end_turn"
    try:
        child.run()
    except Cancelled:
        child.idle("cancelled")
        raise
    turn.say(f"The subagent answered: {child.answer}")
    return "end_turn"


def _as_tool_call(turn: Turn, task: str) -> str:
    # What claude-agent-acp does without the capability: one `Agent` tool call
    # whose content is the child's answer.
    call = turn.tool_call(f"helper: {task}", "think", "Agent", rawInput={"prompt": task})
    turn.pause()
    turn.tool_update(
        call,
        status="completed",
        content=[{"type": "content", "content": {"type": "text", "text": f"Done: {task}"}}],
    )
    turn.say(f"The subagent answered: Done: {task}")
    return "end_turn"


class _Child:
    """One child session and what it streams."""

    def __init__(self, turn: Turn, session_id: str, number: int, task: str, wait: float) -> None:
        self.turn = turn
        self.id = session_id
        self.number = number
        self.task = task
        self.wait = wait
        self.title = f"helper {number}"
        self.answer = f"Done: {task}"
        self.cancelled = threading.Event()

    def parent(self, update: Json) -> None:
        self.turn.wire.notify(
            "session/update", {"sessionId": self.turn.session.id, "update": update}
        )

    def own(self, update: Json) -> None:
        if self.cancelled.is_set():
            raise Cancelled
        self.turn.wire.notify("session/update", {"sessionId": self.id, "update": update})

    def announce(self) -> None:
        """Announce the child on the parent and send it its task."""
        with _lock:
            _running[self.id] = self.cancelled
        parent_id = self.turn.session.id
        self.parent(
            {
                "sessionUpdate": "subagent_update",
                "sessionId": self.id,
                "title": self.title,
                "description": "answers one question",
                "capabilities": {"cancel": {}},
                "state": {"state": "running"},
            }
        )
        message = {
            "senderSessionId": parent_id,
            "recipientSessionId": self.id,
            "content": [{"type": "text", "text": self.task}],
        }
        out_id, in_id = f"to-sub-{self.number}", f"in-sub-{self.number}"
        self.parent(
            {"sessionUpdate": "session_message", "messageId": out_id, "recipientMessageId": in_id}
            | message
        )
        self.turn.wire.notify(
            "session/update",
            {
                "sessionId": self.id,
                "update": {
                    "sessionUpdate": "session_message",
                    "messageId": in_id,
                    "senderMessageId": out_id,
                }
                | message,
            },
        )

    def run(self) -> None:
        """Stream the child's work, then report it idle and relay its answer."""
        try:
            self._work()
        except Cancelled:
            if self.turn.cancelled.is_set():  # the parent's turn: its caller reports
                raise
            self.idle("cancelled")
            return
        self.idle("end_turn")
        self.parent(
            {
                "sessionUpdate": "session_message",
                "messageId": f"reply-sub-{self.number}",
                "senderSessionId": self.id,
                "recipientSessionId": self.turn.session.id,
                "content": [{"type": "text", "text": self.answer}],
            }
        )

    def _work(self) -> None:
        message_id = f"sub-{self.number}-msg"
        for text in ("Working on: ", self.task):
            self.own(
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": text},
                    "messageId": message_id,
                }
            )
            self._pause(self.turn.step)
        call = f"sub-{self.number}-tool"
        self.own(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": call,
                "title": "Look it up",
                "kind": "search",
                "status": "in_progress",
            }
        )
        self._pause(self.wait)
        self.own({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"})
        self.own({"sessionUpdate": "usage_update", "used": 120, "size": 200_000})

    def _pause(self, seconds: float) -> None:
        if seconds > 0 and (self.cancelled.wait(seconds) or self.turn.cancelled.is_set()):
            raise Cancelled
        if self.cancelled.is_set() or self.turn.cancelled.is_set():
            raise Cancelled

    def idle(self, stop_reason: str) -> None:
        """Report the child idle (its foreground work ended) and forget it."""
        with _lock:
            _running.pop(self.id, None)
        self.parent(
            {
                "sessionUpdate": "subagent_update",
                "sessionId": self.id,
                "state": {"state": "idle", "stopReason": stop_reason},
            }
        )
