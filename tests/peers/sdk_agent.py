"""A scripted ACP agent built on the official SDK's agent side (``acp.run_agent``).

An independent implementation for interop tests: nothing here comes from
acphost. The prompt's first word picks the script:

- ``echo <text>``: one message chunk with the text.
- ``permission``: ``session/request_permission`` with one option of each kind,
  under ids unlike acphost's (``opt-A``...); answers ``chosen <id> <kind>`` or
  ``cancelled`` (then the turn ends ``cancelled``).
- ``read <path>``: ``fs/read_text_file``; answers the content or the error.
- ``write <path> <text>``: ``fs/write_text_file`` without asking permission
  first and whatever the client advertised (the host must mediate).
- ``terminal <shell line>``: ``terminal/create`` with the whole line as
  ``command`` and no ``args``, then ``wait_for_exit``, ``output``, ``release``.
- ``plan``: two plans; the second replaces the first.
- ``tool``: a ``tool_call_update`` for a tool call id never announced.
- ``stream N``: N chunks with small sleeps; ``session/cancel`` ends it with
  ``stopReason: cancelled``.

``session/new`` sends an ``available_commands_update`` for the new session
*before* its response (the SDK allows it: the notification is just written
first), so a client must keep updates for a session it does not know yet.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import acp
from acp import schema as a
from acp.helpers import update_available_commands

COMMANDS = ["echo", "permission", "read", "write", "terminal", "plan", "tool", "stream"]

PERMISSION_OPTIONS = [
    a.PermissionOption(option_id="opt-A", name="Allow once", kind="allow_once"),
    a.PermissionOption(option_id="opt-B", name="Always allow", kind="allow_always"),
    a.PermissionOption(option_id="opt-C", name="Reject once", kind="reject_once"),
    a.PermissionOption(option_id="opt-D", name="Never", kind="reject_always"),
]


def _error_text(exc: acp.RequestError) -> str:
    return f"error {exc.code}: {exc}"


class ScriptedAgent:
    """The agent; one instance serves every session of the connection."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.cancelled: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> a.InitializeResponse:
        return a.InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=a.AgentCapabilities(),
            agent_info=a.Implementation(name="sdk-peer", version="1"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> a.NewSessionResponse:
        session_id = f"sdk-{uuid.uuid4().hex[:8]}"
        self.cancelled[session_id] = asyncio.Event()
        commands = [
            a.AvailableCommand(name=name, description=f"the {name} script") for name in COMMANDS
        ]
        await self.conn.session_update(
            session_id=session_id, update=update_available_commands(commands)
        )
        return a.NewSessionResponse(session_id=session_id)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        event = self.cancelled.get(session_id)
        if event is not None:
            event.set()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> a.PromptResponse:
        self.cancelled[session_id] = asyncio.Event()
        text = "".join(getattr(block, "text", "") for block in prompt).strip()
        word, _, rest = text.partition(" ")
        script = getattr(self, f"_script_{word}", None)
        if script is None:
            await self._say(session_id, f"unknown script {word!r}")
            return a.PromptResponse(stop_reason="end_turn")
        stop = await script(session_id, rest)
        return a.PromptResponse(stop_reason=stop or "end_turn")

    async def _say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(
            session_id=session_id, update=acp.update_agent_message_text(text)
        )

    # -- scripts -----------------------------------------------------------------

    async def _script_echo(self, session_id: str, rest: str) -> None:
        await self._say(session_id, rest)

    async def _script_permission(self, session_id: str, rest: str) -> str | None:
        call = a.ToolCallUpdate(
            tool_call_id="perm-call",
            title="Edit notes.txt",
            kind="edit",
            status="pending",
            raw_input={"path": "notes.txt"},
        )
        response = await self.conn.request_permission(
            session_id=session_id, tool_call=call, options=PERMISSION_OPTIONS
        )
        outcome = response.outcome
        if outcome.outcome == "cancelled":
            await self._say(session_id, "cancelled")
            return "cancelled"
        kind = {o.option_id: o.kind for o in PERMISSION_OPTIONS}.get(outcome.option_id, "?")
        await self._say(session_id, f"chosen {outcome.option_id} {kind}")
        return None

    async def _script_read(self, session_id: str, rest: str) -> None:
        try:
            response = await self.conn.read_text_file(session_id=session_id, path=rest)
        except acp.RequestError as exc:
            await self._say(session_id, _error_text(exc))
            return
        await self._say(session_id, response.content)

    async def _script_write(self, session_id: str, rest: str) -> None:
        path, _, content = rest.partition(" ")
        try:
            await self.conn.write_text_file(session_id=session_id, path=path, content=content)
        except acp.RequestError as exc:
            await self._say(session_id, _error_text(exc))
            return
        await self._say(session_id, f"wrote {path}")

    async def _script_terminal(self, session_id: str, rest: str) -> None:
        try:
            created = await self.conn.create_terminal(session_id=session_id, command=rest)
        except acp.RequestError as exc:
            await self._say(session_id, _error_text(exc))
            return
        terminal_id = created.terminal_id
        await self.conn.session_update(
            session_id=session_id,
            update=acp.start_tool_call(
                "term-call",
                f"Run {rest}",
                kind="execute",
                status="in_progress",
                content=[acp.tool_terminal_ref(terminal_id)],
                raw_input={"command": rest},
            ),
        )
        exit_status = await self.conn.wait_for_terminal_exit(
            session_id=session_id, terminal_id=terminal_id
        )
        output = await self.conn.terminal_output(session_id=session_id, terminal_id=terminal_id)
        await self.conn.release_terminal(session_id=session_id, terminal_id=terminal_id)
        await self.conn.session_update(
            session_id=session_id,
            update=acp.update_tool_call("term-call", status="completed"),
        )
        await self._say(
            session_id, f"exit={exit_status.exit_code} output={output.output.strip()!r}"
        )

    async def _script_plan(self, session_id: str, rest: str) -> None:
        first = [acp.plan_entry("look"), acp.plan_entry("think"), acp.plan_entry("act")]
        second = [
            acp.plan_entry("look", status="completed"),
            acp.plan_entry("act", status="in_progress"),
        ]
        for entries in (first, second):
            await self.conn.session_update(session_id=session_id, update=acp.update_plan(entries))
        await self._say(session_id, "planned")

    async def _script_tool(self, session_id: str, rest: str) -> None:
        await self.conn.session_update(
            session_id=session_id,
            update=acp.update_tool_call(
                "ghost-call",
                title="Never announced",
                kind="fetch",
                status="completed",
                raw_output={"ok": True},
            ),
        )
        await self._say(session_id, "tool done")

    async def _script_stream(self, session_id: str, rest: str) -> str | None:
        cancelled = self.cancelled[session_id]
        for i in range(int(rest or "100")):
            if cancelled.is_set():
                return "cancelled"
            await self._say(session_id, f"chunk {i} ")
            await asyncio.sleep(0.005)
        return "cancelled" if cancelled.is_set() else None


if __name__ == "__main__":
    asyncio.run(acp.run_agent(ScriptedAgent()))
