"""One prompt turn: the helpers scripts use to stream updates and call the client.

A turn runs in its own thread so that the reader thread keeps reading stdin and
sees ``session/cancel`` mid-stream. Every helper checks for cancellation first:
once cancelled, the turn sends nothing more and raises :class:`Cancelled`, and
the agent answers the prompt with ``stopReason: "cancelled"`` (ACP "Prompt
Turn" > "Cancellation").
"""

from __future__ import annotations

import threading

from ._store import iso_now

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ._store import Session
    from ._wire import Reply, Wire

    Json = dict[str, Any]


CONTEXT_SIZE = 200_000  # the pretend model's context window, in tokens
MICROS_PER_TOKEN = 10  # the pretend price: USD 10 per million tokens


class Cancelled(Exception):
    """The client cancelled the turn; unwind and answer ``cancelled``."""


class ScriptError(Exception):
    """A script wants the prompt answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class Turn:
    """The state of one ``session/prompt`` while its script runs."""

    def __init__(
        self,
        wire: Wire,
        session: Session,
        *,
        text: str,
        attachments: list[str],
        client: Json,
        step: float,
        protocol: int = 1,
    ) -> None:
        self.wire = wire
        self.session = session
        self.text = text
        self.attachments = attachments
        self.client = client
        self.step = step
        #: The ACP version of the connection (1 or 2); the wire reshapes v1 updates for 2.
        self.protocol = protocol
        self.cancelled = threading.Event()
        self.reply: list[str] = []
        self.events: list[Json] = []  # history entries between the prompt and the reply
        self.usage: Json | None = None  # PromptResponse.usage, when the script reports it
        #: Work the script leaves for after the prompt's answer (a background subagent).
        self.after: list[Callable[[], None]] = []
        index = len(session.history) + 1
        self.user_message_id = f"msg-{index}"
        self.message_id = f"msg-{index + 1}"
        self.thought_id = f"thought-{index + 1}"
        self._tools = 0
        self._waiting: Reply | None = None

    # -- cancellation ---------------------------------------------------------

    def cancel(self) -> None:
        """Cancel the turn: stop streaming and stop waiting for the client."""
        self.cancelled.set()
        waiting = self._waiting
        if waiting is not None:
            self.wire.interrupt(waiting)

    def check(self) -> None:
        """Raise :class:`Cancelled` if the turn was cancelled."""
        if self.cancelled.is_set():
            raise Cancelled

    def pause(self, seconds: float | None = None) -> None:
        """Sleep ``seconds`` (default: one demo step), waking early on cancel."""
        delay = self.step if seconds is None else seconds
        if delay > 0 and self.cancelled.wait(delay):
            raise Cancelled
        self.check()

    # -- updates --------------------------------------------------------------

    def update(self, update: Json) -> None:
        """Send one ``session/update`` for this session."""
        self.check()
        self.wire.notify("session/update", {"sessionId": self.session.id, "update": update})

    def update_after_cancel(self, update: Json) -> None:
        """Send a last update while unwinding a cancelled turn.

        ACP allows updates after ``session/cancel`` as long as they precede the
        prompt's response ("Prompt Turn" > "Cancellation").
        """
        self.wire.notify("session/update", {"sessionId": self.session.id, "update": update})

    def say(self, text: str) -> None:
        """Stream one chunk of the agent's reply (recorded in the history)."""
        self.update(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
                "messageId": self.message_id,
            }
        )
        self.reply.append(text)

    def show(self, block: Json) -> None:
        """Stream one non-text content block (image, audio, resource, link) in the reply."""
        self.update(
            {"sessionUpdate": "agent_message_chunk", "content": block, "messageId": self.message_id}
        )

    def think(self, text: str) -> None:
        """Stream one chunk of the agent's thoughts."""
        self.update(
            {
                "sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": text},
                "messageId": self.thought_id,
            }
        )

    def plan(self, entries: list[str], done: int, priority: str = "medium") -> None:
        """Send the whole plan: ``done`` entries completed, the next one in progress."""
        self.update(
            {
                "sessionUpdate": "plan",
                "entries": [
                    {
                        "content": content,
                        "priority": priority if index else "high",
                        "status": "completed"
                        if index < done
                        else "in_progress"
                        if index == done
                        else "pending",
                    }
                    for index, content in enumerate(entries)
                ],
            }
        )

    def tool_call(self, title: str, kind: str, name: str, **fields: Any) -> str:
        """Announce a new tool call (status ``pending``) and return its id.

        Args:
            title: The human-readable title.
            kind: The ``ToolKind`` (``read``, ``edit``, ``execute``, ...).
            name: The tool's own name (``ToolCall.name``: ``Read``, ``Bash``, ...).
            **fields: More ``ToolCall`` fields (``content``, ``locations``, ``rawInput``).

        """
        self._tools += 1
        tool_call_id = f"{self.message_id}-tool-{self._tools}"
        update: Json = {
            "sessionUpdate": "tool_call",
            "toolCallId": tool_call_id,
            "title": title,
            "name": name,
            "kind": kind,
            "status": "pending",
        }
        update.update(fields)
        self.update(update)
        return tool_call_id

    def tool_update(self, tool_call_id: str, **fields: Any) -> None:
        """Send a ``tool_call_update`` with only the fields that changed."""
        update: Json = {"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id}
        update.update(fields)
        self.update(update)

    def commands(self) -> None:
        """Send the slash commands this agent offers."""
        self.update(available_commands())

    def usage_update(self) -> None:
        """Send a ``usage_update``: the context window and the session's cost so far.

        ``used`` counts the session's tokens plus this turn's prompt (a quarter of
        its characters), which is in the context while the turn runs.
        """
        self.update(
            {
                "sessionUpdate": "usage_update",
                "used": self.session.tokens + len(self.text) // 4,
                "size": CONTEXT_SIZE,
                "cost": {"amount": self.session.cost_micros / 1_000_000, "currency": "USD"},
            }
        )

    def session_capability(self, name: str) -> bool:
        """Return whether the client advertised ``clientCapabilities.session.<name>``.

        ``notices`` and ``compaction`` are opt-in: agents MUST NOT send those
        updates otherwise (schema, Notice and CompactionUpdate).
        """
        session = self.client.get("session")
        return isinstance(session, dict) and isinstance(session.get(name), dict)

    def title(self, title: str) -> None:
        """Rename the session and tell the client."""
        self.session.title = title
        self.session.updated = iso_now()
        self.update(
            {
                "sessionUpdate": "session_info_update",
                "title": title,
                "updatedAt": self.session.updated,
            }
        )

    # -- requests to the client -----------------------------------------------

    def call(self, method: str, params: Json, *, string_id: bool = False) -> Reply:
        """Send a request to the client and wait for its answer.

        Args:
            method: The wire method (``fs/read_text_file``, ``terminal/create``, ...).
            params: Its params; ``sessionId`` is added.
            string_id: Send a string request id rather than an integer.

        Returns:
            The reply; check ``reply.error`` before ``reply.result``.

        Raises:
            Cancelled: The turn was cancelled while waiting; a late answer is dropped.

        """
        self.check()
        reply = self.wire.request(
            method, {"sessionId": self.session.id, **params}, string_id=string_id
        )
        return self.wait_for(reply)

    def wait_for(self, reply: Reply) -> Reply:
        """Wait for ``reply`` (the client's or an MCP server's answer) unless cancelled.

        Raises:
            Cancelled: The turn was cancelled while waiting; a late answer is dropped.

        """
        self._waiting = reply
        if self.cancelled.is_set():
            self.wire.interrupt(reply)
        reply.wait()
        self._waiting = None
        if reply.interrupted:
            raise Cancelled
        return reply

    def call_after_cancel(self, method: str, params: Json) -> None:
        """Clean up after a cancel (``terminal/kill``, ``terminal/release``); wait briefly."""
        reply = self.wire.request(method, {"sessionId": self.session.id, **params}, string_id=False)
        if not reply.done.wait(2.0):
            self.wire.interrupt(reply)

    def can(self, capability: str) -> bool:
        """Return whether the client advertised a capability.

        Args:
            capability: ``"readTextFile"``, ``"writeTextFile"`` (under ``fs``) or
                ``"terminal"``.

        """
        if capability == "terminal":
            return self.client.get("terminal") is True
        fs = self.client.get("fs")
        return isinstance(fs, dict) and fs.get(capability) is True


def available_commands() -> Json:
    """Return the ``available_commands_update`` the agent sends for a session."""
    commands = [
        ("help", "List the demo agent's keywords", None),
        ("plan", "Show a plan that progresses step by step", None),
        ("echo", "Answer the text back", "text to echo back"),
        ("tool", "Run a pretend tool call", None),
        ("diff", "Propose an edit as a diff", None),
        ("permission", "Ask for permission", None),
        ("stream", "Stream N message chunks", "number of chunks"),
    ]
    return {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [
            {"name": name, "description": description}
            if hint is None
            else {"name": name, "description": description, "input": {"hint": hint}}
            for name, description, hint in commands
        ],
    }
