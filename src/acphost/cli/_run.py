"""One prompt from the command line: launch, set up the session, stream, exit code.

Start-up is ordered for speed: the agent's process is started as soon as the
command line is understood, and only then are the client, the schema and the
host modules imported, so the agent's start-up overlaps the rest of ours.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from .._errors import AcpError, AcpTimeout, AgentExited, AuthRequired
from ..launch import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    UsageProblem,
    fail,
    resolve,
    start_agent,
)
from ._edge import Edge, is_terminal, warn
from ._prepare import check_output_paths, read_prompt

if TYPE_CHECKING:
    from ..client import AcpClient, HostConfig, Session
    from ..config import AgentSpec, Settings
    from ..transport import StdioTransport
    from ._ask import TtyAsker
    from ._render import Renderer

__all__ = ["run_prompt"]

# Seconds the agent gets to exit after EOF at the end of a run (then SIGTERM, SIGKILL).
_CLOSE_GRACE = 0.5


class _Interrupted(Exception):
    pass


class _OutputClosed(Exception):
    pass


class PromptRun:
    """The state of one ``acphost [prompt]`` invocation."""

    def __init__(
        self, args: argparse.Namespace, cwd: str, settings: Settings, spec: AgentSpec
    ) -> None:
        self.args = args
        self.cwd = cwd
        self.settings = settings
        self.spec = spec
        self.jsonl = args.output in ("jsonl", "json")
        self.out = sys.stdout
        self.edge = Edge(is_terminal(self.out))
        self.interrupted = 0
        self.transport: StdioTransport | None = None
        self.strict_failure: AcpError | None = None
        self.output_closed = False
        self.asker: TtyAsker | None = None
        self.listed = False

    def _abort(self, error: AcpError) -> None:
        """--strict: the agent broke the protocol; end it now."""
        self.strict_failure = error
        self.kill_agent()

    def kill_agent(self) -> None:
        """SIGKILL the agent's whole process group now (the run is over)."""
        if self.transport is not None:
            self.transport.kill_now()

    # -- setup -------------------------------------------------------------------

    def host_config(self) -> HostConfig:
        from ..launch import HostChoices, build_host_config  # noqa: PLC0415 - after the spawn

        a = self.args
        choices = HostChoices(
            write=a.write,
            yolo=a.yolo,
            approve=a.approve,
            policy_file=a.permission_policy,
            audit_log=a.audit_log,
            fs=not a.no_fs,
            terminal=not a.no_terminal,
        )
        if a.ask:
            from ._ask import TtyAsker  # noqa: PLC0415 - only when asking

            self.asker = TtyAsker.open()
        return build_host_config(choices, self.spec, asker=self.asker)

    def tap(self, direction: str, line: bytes) -> None:
        """``-o jsonl``: mirror one frame, exactly as it crossed the wire, on stdout."""
        if self.output_closed or line.lstrip()[:1] != b"{":
            return  # stdout stays JSON only: non-JSON agent output is reported on stderr
        buffer = getattr(self.out, "buffer", None)
        try:
            if buffer is not None:
                buffer.write(line + b"\n")
                buffer.flush()
            else:
                self.out.write(line.decode("utf-8", "replace") + "\n")
        except (BrokenPipeError, ValueError):
            # The reader of our stdout went away (`acphost -o jsonl | head`): stop quietly.
            self.output_closed = True
            self.kill_agent()

    def selected_agent_line(self) -> None:
        # Name and command only: args and env may carry secrets.
        frame = {
            "jsonrpc": "2.0",
            "method": "client/selected_agent",
            "params": {"name": self.spec.name, "command": self.spec.command},
        }
        self.tap("send", json.dumps(frame, separators=(",", ":")).encode())

    async def open_session(self, client: AcpClient) -> Session:
        from ._prepare import resume_id  # noqa: PLC0415

        a = self.args
        mcp = self.settings.mcp_servers
        if a.auth:
            await client.authenticate(a.auth)
        if a.resume:
            sid = resume_id(a.resume)
            if client.agent_capabilities.load_session:
                return await client.load_session(sid, self.cwd, mcp_servers=mcp)
            return await client.resume_session(sid, self.cwd, mcp_servers=mcp)
        return await client.new_session(self.cwd, mcp_servers=mcp)

    async def configure(self, session: Session) -> None:
        from .. import schema as s  # noqa: PLC0415

        a = self.args
        if a.mode:
            await session.set_mode(a.mode)
        if a.model:
            await session.set_model(a.model)
        for item in a.config:
            key, sep, raw = item.partition("=")
            if not sep or not key:
                raise UsageProblem(f"--config {item!r}: expected KEY=VALUE")
            option = session._find_option(key)
            value: str | bool = raw
            if isinstance(option, s.SessionConfigBoolean):
                if raw.lower() not in ("true", "false", "on", "off", "1", "0", "yes", "no"):
                    raise UsageProblem(f"--config {key}: a boolean option takes true or false")
                value = raw.lower() in ("true", "on", "1", "yes")
            await session.set_config_option(key, value)

    # -- listings ------------------------------------------------------------------

    async def listings(self, client: AcpClient, session: Session) -> None:
        """Print the sections asked for (text modes only; jsonl has the frames)."""
        from . import _listing  # noqa: PLC0415

        a = self.args
        clean = self.edge.field
        sections: list[list[str]] = []
        if a.list_caps:
            sections.append(_listing.caps_section(client, clean))
        if a.list_modes:
            sections.append(_listing.modes_section(session.state, clean))
        if a.list_commands:
            await self._wait_commands(session, a.commands_timeout)
            sections.append(_listing.commands_section(session.state, clean, a.commands_timeout))
        if sections and not self.jsonl:
            text = "\n\n".join("\n".join(lines) for lines in sections)
            self.out.write(text + "\n")
            self.out.flush()
            self.listed = True

    async def _wait_commands(self, session: Session, timeout: float) -> None:
        from .. import schema as s  # noqa: PLC0415

        if session.state.available_commands:
            return
        arrived = asyncio.Event()

        def listener(_: Session, update: s.SessionUpdate) -> None:
            if isinstance(update, s.AvailableCommandsUpdate):
                arrived.set()

        remove = session.add_listener(listener)
        try:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(arrived.wait(), timeout)
        finally:
            remove()

    # -- the turn --------------------------------------------------------------------

    def styled(self) -> bool:
        """Whether the turn renders styled Markdown (``-o text`` on a capable terminal)."""
        return (
            self.args.output == "text"
            and self.edge.terminal
            and os.environ.get("TERM") != "dumb"
        )

    def renderer(self, session: Session) -> Renderer | None:
        if self.jsonl:
            return None
        loop = asyncio.get_running_loop()
        if self.styled():
            from rich.console import Console  # noqa: PLC0415 - rich loads only for a TTY

            from ._live import RichRenderer  # noqa: PLC0415

            console = Console(file=self.out, markup=False, emoji=False, highlight=False)
            return RichRenderer(console, session.state, call_later=loop.call_later, err=sys.stderr)
        from ._render import PlainRenderer  # noqa: PLC0415

        return PlainRenderer(
            self.out,
            session.state,
            simple=self.args.output == "simple",
            terminal=self.edge.terminal,
            defer=loop.call_soon,
            err=sys.stderr,
        )

    async def turn(self, session: Session, blocks: list[Any]) -> int:
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[Any]] = set()

        def on_sigint() -> None:
            self.interrupted += 1
            if self.interrupted == 1:
                warn("cancelling (Ctrl-C again to stop the agent)")
                pending.add(loop.create_task(session.cancel(timeout=5.0)))
            else:
                self.kill_agent()

        renderer = self.renderer(session)
        turn = session.prompt(blocks)
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            if renderer is None:
                async for _ in turn:
                    pass
            else:
                update_ = renderer.update
                async for update in turn:
                    update_(update)
            result = await turn
        except (AgentExited, AcpTimeout):
            if self.interrupted:
                raise _Interrupted from None
            if self.output_closed:
                raise _OutputClosed from None
            if self.strict_failure is not None:
                raise self.strict_failure from None
            raise
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            if renderer is not None:
                renderer.close()
            for task in pending:
                task.cancel()
            # Retrieve their outcome (often AgentExited after a second Ctrl-C),
            # or asyncio prints "Task exception was never retrieved".
            await asyncio.gather(*pending, return_exceptions=True)
        if self.interrupted:
            return EXIT_INTERRUPTED
        if result.stop_reason != "end_turn":
            warn(f"stop reason: {result.stop_reason}")
        return EXIT_OK

    async def main(self, prompt: str | None) -> int:
        # The agent starts first: its start-up overlaps the imports below.
        self.transport = await start_agent(self.spec, self.cwd, close_grace=_CLOSE_GRACE)
        try:
            return await self._connected(prompt, self.transport)
        finally:
            if self.asker is not None:
                self.asker.close()

    async def _connected(self, prompt: str | None, transport: StdioTransport) -> int:
        try:
            from ..client import AcpClient  # noqa: PLC0415 - after the spawn, on purpose
            from ._prepare import prompt_blocks, write_json_atomic  # noqa: PLC0415
            from ._trace import LiveCheck  # noqa: PLC0415

            if self.styled() and prompt is not None:
                from rich import markdown  # noqa: F401, PLC0415

                from . import _live  # noqa: F401, PLC0415 - rich too, while the agent starts

            options: dict[str, Any] = {
                "host": self.host_config(),
                "init_timeout": self.args.init_timeout,
                "session_timeout": self.args.init_timeout,
            }
            if self.jsonl:
                self.selected_agent_line()
                options["tap"] = self.tap
            if self.args.trace:
                options["trace"] = self.args.trace
            live = LiveCheck(strict=self.args.strict, on_abort=self._abort)
            options["tap"] = live.chain(options.get("tap"))
            blocks = None
            if prompt is not None:
                blocks, missing = prompt_blocks(prompt, self.cwd)
                for name in missing:
                    warn(f"@{name}: no such file; it is not attached")
        except BaseException:
            await transport.close()  # the agent never outlives a failed start
            raise
        async with AcpClient.connect(transport, **options) as client:
            session = await self.open_session(client)
            if live.failure is not None:
                raise live.failure
            if self.args.save_session:
                from datetime import datetime, timezone  # noqa: PLC0415

                write_json_atomic(
                    self.args.save_session,
                    {
                        "agent": self.spec.name,
                        "sessionId": session.id,
                        "cwd": self.cwd,
                        "savedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    },
                )
            await self.configure(session)
            await self.listings(client, session)
            if blocks is None:
                return EXIT_OK
            if self.listed:
                self.out.write("\n")
            code = await self.turn(session, blocks)
            if self.strict_failure is not None:
                raise self.strict_failure
            return code


def run_prompt(args: argparse.Namespace) -> int:
    """Run one prompt (or only the listings); return the exit code."""
    try:
        cwd, settings, spec = resolve(args)
        prompt = read_prompt(args)
        check_output_paths(args)
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    for attempt in range(2):
        run = PromptRun(args, cwd, settings, spec)
        try:
            return asyncio.run(run.main(prompt))
        except (KeyboardInterrupt, _Interrupted):
            return EXIT_INTERRUPTED
        except _OutputClosed:
            return EXIT_ERROR
        except AuthRequired as exc:
            from ._failure import auth_message, terminal_login  # noqa: PLC0415

            if attempt == 0 and terminal_login(exc, args.auth, spec):
                args.auth = None
                continue  # reconnect with the fresh login
            fail(auth_message(exc, spec))
            return EXIT_ERROR
        except Exception as exc:
            from ._failure import report  # noqa: PLC0415

            return report(exc, spec)
    return EXIT_ERROR

