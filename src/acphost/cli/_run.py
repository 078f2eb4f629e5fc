"""Running one prompt from the command line: stream, render, exit code."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from typing import Any, TextIO

from .. import schema as s
from .._client import AcpClient
from .._errors import AcpError, AgentExited, AgentStartError, RequestError
from .._host_bridge import HostConfig
from .._sync import DEMO_AGENT
from ..host import AllowAll, FileSystemProvider
from ._main import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK


def _render_text(update: s.SessionUpdate, out: TextIO, simple: bool) -> None:
    if isinstance(update, s.AgentMessageChunk):
        out.write(update.text)
        out.flush()
        return
    if simple:
        return
    if isinstance(update, s.PlanUpdate):
        out.write(
            "\n[plan]\n" + "\n".join(f"  [{e.status}] {e.content}" for e in update.entries) + "\n"
        )
    elif isinstance(update, s.ToolCallStart):
        out.write(
            f"\n[tool] {update.title} ({update.kind or 'other'}, {update.status or 'pending'})\n"
        )
    elif isinstance(update, s.ToolCallProgress):
        if update.status is not None:
            out.write(f"[tool] {update.tool_call_id}: {update.status}\n")
        for c in update.content or ():
            if isinstance(c, s.DiffToolCallContent):
                out.write(f"[diff] {c.path}\n")
    elif isinstance(update, s.AvailableCommandsUpdate):
        out.write("[commands] " + " ".join("/" + c.name for c in update.available_commands) + "\n")
    out.flush()


async def _main(prompt: str, cwd: str, output: str, write: bool, yolo: bool) -> int:
    out = sys.stdout
    jsonl = output in ("jsonl", "json")

    def tap(direction: str, line: bytes) -> None:
        out.write(line.decode("utf-8", "replace") + "\n")

    if jsonl:
        selected = {"name": "demo", "command": sys.executable}
        out.write(
            json.dumps({"jsonrpc": "2.0", "method": "client/selected_agent", "params": selected})
            + "\n"
        )
    host = HostConfig(
        fs=FileSystemProvider(allow_read_outside_workspace=yolo),
        allow_write=write,
        permissions=AllowAll(),
    )
    options: dict[str, Any] = {"host": host}
    if jsonl:
        options["tap"] = tap
    async with AcpClient.start(list(DEMO_AGENT), **options) as client:
        session = await client.new_session(cwd)
        turn = session.prompt(prompt)
        loop = asyncio.get_running_loop()
        interrupted = False
        tasks: set[asyncio.Task[Any]] = set()

        def on_sigint() -> None:
            nonlocal interrupted
            if interrupted:
                client.transport.kill_now()  # type: ignore[attr-defined]
                return
            interrupted = True
            tasks.add(loop.create_task(session.cancel()))

        loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            async for update in turn:
                if not jsonl:
                    _render_text(update, out, output == "simple")
            result = await turn
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        if not jsonl and result.text and not result.text.endswith("\n"):
            out.write("\n")
        if result.stop_reason != "end_turn":
            print(f"acphost: stop reason: {result.stop_reason}", file=sys.stderr)
        return EXIT_INTERRUPTED if interrupted else EXIT_OK


def run_prompt(prompt: str, *, cwd: str, output: str, write: bool, yolo: bool) -> int:
    """Run one prompt against the demo agent; return the exit code."""
    try:
        return asyncio.run(_main(prompt, cwd, output, write, yolo))
    except AgentStartError as exc:
        print(f"acphost: {exc}", file=sys.stderr)
    except AgentExited as exc:
        print(f"acphost: {exc}", file=sys.stderr)
    except RequestError as exc:
        print(f"acphost: the agent answered an error: {exc}", file=sys.stderr)
    except AcpError as exc:
        print(f"acphost: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return EXIT_ERROR
