"""One prompt from the command line: launch, set up the session, stream, exit code."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from typing import Any

from .. import schema as s
from .._errors import (
    AcpError,
    AcpTimeout,
    AgentExited,
    AgentStartError,
    AuthRequired,
    LocalProtocolError,
    RequestError,
)
from ..client import AcpClient, HostConfig, Session, auth_method_id, option_id, option_values
from ..config import AgentSpec, Settings
from ..content import prompt_with_mentions
from ..host import PolicyFileError
from ..launch import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    HostChoices,
    UsageProblem,
    build_host_config,
    fail,
    resolve,
)
from ._render import PlainRenderer, Renderer
from ._trace import LiveCheck

__all__ = ["run_prompt"]


class _Interrupted(Exception):
    pass


class _OutputClosed(Exception):
    pass


def read_prompt(args: argparse.Namespace) -> str | None:
    """The prompt from the arguments, else stdin; None when only listing.

    Raises:
        UsageProblem: no prompt anywhere.

    """
    if args.prompt:
        return " ".join(args.prompt)
    listing = args.list_caps or args.list_modes or args.list_commands
    if sys.stdin is None or sys.stdin.isatty():
        if listing:
            return None
        raise UsageProblem("no prompt: pass it as an argument or pipe it on stdin (see --help)")
    try:
        text = sys.stdin.read()
    except UnicodeDecodeError:
        raise UsageProblem("the prompt on stdin is not valid UTF-8") from None
    if not text.strip():
        if listing:
            return None
        raise UsageProblem("the prompt read from stdin is empty")
    return text


def _check_encodable(prompt: str) -> None:
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageProblem(
            "the prompt is not valid UTF-8 (check the encoding of stdin or of the arguments)"
        ) from None


def _write_json_atomic(path: str, data: dict[str, Any]) -> None:
    target = os.path.abspath(os.path.expanduser(path))
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(prefix=".acphost-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _resume_id(value: str) -> str:
    """``--resume`` takes an id, or a file written by ``--save-session``."""
    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8") as f:
                data = json.load(f)
            sid = data["sessionId"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageProblem(f"--resume {value}: not a saved session file ({exc})") from None
        if not isinstance(sid, str):
            raise UsageProblem(f"--resume {value}: sessionId is not a string")
        return sid
    return value


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
        self.interrupted = 0
        self.client: AcpClient | None = None
        self.strict_failure: AcpError | None = None
        self.output_closed = False

    def _abort(self, error: AcpError) -> None:
        """--strict: the agent broke the protocol; end it now."""
        self.strict_failure = error
        self.kill_agent()

    def kill_agent(self) -> None:
        """SIGKILL the agent's whole process group now (the run is over)."""
        if self.client is not None:
            kill = getattr(self.client.transport, "kill_now", None)
            if kill is not None:
                kill()

    # -- setup -------------------------------------------------------------------

    def host_config(self) -> HostConfig:
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
        asker = None
        if a.ask:
            from ._ask import ask_on_tty  # noqa: PLC0415 - only when asking

            asker = ask_on_tty
        return build_host_config(choices, self.spec, asker=asker)

    def tap(self, direction: str, line: bytes) -> None:
        if self.output_closed:
            return
        buffer = self.out.buffer if hasattr(self.out, "buffer") else None
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
        a = self.args
        mcp = self.settings.mcp_servers
        if a.auth:
            await client.authenticate(a.auth)
        if a.resume:
            sid = _resume_id(a.resume)
            if client.agent_capabilities.load_session:
                return await client.load_session(sid, self.cwd, mcp_servers=mcp)
            return await client.resume_session(sid, self.cwd, mcp_servers=mcp)
        return await client.new_session(self.cwd, mcp_servers=mcp)

    async def configure(self, session: Session) -> None:
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

    def _print(self, text: str) -> None:
        if not self.jsonl:
            self.out.write(text + "\n")
            self.out.flush()

    async def listings(self, client: AcpClient, session: Session) -> None:
        a = self.args
        if a.list_caps:
            caps = client.agent_capabilities.to_wire()
            info = client.agent_info.to_wire() if client.agent_info else None
            methods = [m.to_wire() for m in client.auth_methods]
            self._print(
                json.dumps(
                    {
                        "agentInfo": info,
                        "protocolVersion": client.protocol_version,
                        "agentCapabilities": caps,
                        "authMethods": methods,
                    },
                    indent=2,
                )
            )
        if a.list_modes:
            modes = session.state.modes
            if modes is None:
                self._print("(the agent offers no modes)")
            else:
                for m in modes.available_modes:
                    mark = "*" if m.id == modes.current_mode_id else " "
                    desc = f" - {m.description}" if m.description else ""
                    self._print(f"{mark} {m.id}: {m.name}{desc}")
            for o in session.state.config_options:
                values = option_values(o)
                current = getattr(o, "current_value", None)
                extra = f" [{', '.join(values)}]" if values else " [true, false]"
                self._print(f"  config {option_id(o)} = {current}{extra}")
        if a.list_commands:
            await self._wait_commands(session, a.commands_timeout)
            commands = session.state.available_commands
            if not commands:
                self._print(f"(no commands announced within {a.commands_timeout:g} s)")
            for c in commands:
                hint = (
                    f" <{c.input.hint}>"
                    if c.input is not None and getattr(c.input, "hint", None)
                    else ""
                )
                self._print(f"/{c.name}{hint} - {c.description}")

    async def _wait_commands(self, session: Session, timeout: float) -> None:
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

    def renderer(self, session: Session) -> Renderer | None:
        if self.jsonl:
            return None
        if self.args.output == "text" and self.out.isatty() and os.environ.get("TERM") != "dumb":
            try:
                from rich.console import Console  # noqa: PLC0415
            except ImportError:
                pass
            else:
                from ._render import RichRenderer  # noqa: PLC0415

                return RichRenderer(Console(file=self.out), session.state)
        return PlainRenderer(self.out, session.state, simple=self.args.output == "simple")

    async def turn(self, session: Session, prompt: str) -> int:
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[Any]] = set()

        def on_sigint() -> None:
            self.interrupted += 1
            if self.interrupted == 1:
                print("\nacphost: cancelling (Ctrl-C again to kill the agent)", file=sys.stderr)
                pending.add(loop.create_task(session.cancel(timeout=5.0)))
            else:
                self.kill_agent()

        turn = session.prompt(prompt_with_mentions(prompt, self.cwd))
        renderer = self.renderer(session)
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            async for update in turn:
                if renderer is not None:
                    renderer.update(update)
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
            fail(f"stop reason: {result.stop_reason}")
        return EXIT_OK

    async def main(self, prompt: str | None) -> int:
        if self.jsonl:
            self.selected_agent_line()
        options: dict[str, Any] = {
            "host": self.host_config(),
            "init_timeout": self.args.init_timeout,
            "session_timeout": self.args.init_timeout,
        }
        if self.jsonl:
            options["tap"] = self.tap
        if self.args.trace:
            options["trace"] = self.args.trace
        live = LiveCheck(strict=self.args.strict, on_abort=self._abort)
        options["tap"] = live.chain(options.get("tap"))
        # End of run: the agent's whole tree goes after a short grace (issue 4).
        async with AcpClient.start(
            self.spec.argv, env=dict(self.spec.env), cwd=self.cwd, close_grace=0.5, **options
        ) as client:
            self.client = client
            session = await self.open_session(client)
            if live.failure is not None:
                raise live.failure
            if self.args.save_session:
                _write_json_atomic(
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
            if prompt is None:
                return EXIT_OK
            code = await self.turn(session, prompt)
            if self.strict_failure is not None:
                raise self.strict_failure
            return code


def _auth_message(exc: AuthRequired, spec: AgentSpec) -> str:
    methods = exc.auth_methods
    if not methods:
        return (
            f"the agent {spec.name!r} requires authentication but offers no method: {exc.message}"
        )
    lines = [f"the agent {spec.name!r} requires authentication. Methods:"]
    for m in methods:
        name = getattr(m, "name", "")
        kind = (
            "runs a login command"
            if isinstance(m, s.AuthMethodTerminal)
            else "handled by the agent"
        )
        lines.append(f"  {auth_method_id(m)}: {name} ({kind})")
    lines.append(f"rerun with --auth METHOD, e.g. --auth {auth_method_id(methods[0])}")
    return "\n".join(lines)


def _terminal_login(spec: AgentSpec, method: s.AuthMethodTerminal) -> int:
    """Run the agent's login command in the user's terminal (ACP terminal auth)."""
    env = {**os.environ, **spec.env, **(method.env or {})}
    print(f"acphost: running the agent's login ({method.name}) in this terminal", file=sys.stderr)
    return subprocess.call([*spec.argv, *(method.args or [])], env=env)


def run_prompt(args: argparse.Namespace) -> int:
    """Run one prompt (or only the listings); return the exit code."""
    try:
        cwd, settings, spec = resolve(args)
        prompt = read_prompt(args)
        if prompt is not None:
            _check_encodable(prompt)
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    for attempt in range(2):
        run = PromptRun(args, cwd, settings, spec)
        try:
            return asyncio.run(run.main(prompt))
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        except _Interrupted:
            return EXIT_INTERRUPTED
        except _OutputClosed:
            return EXIT_ERROR
        except (UsageProblem, PolicyFileError, LocalProtocolError) as exc:
            # LocalProtocolError covers CapabilityNotSupported and refused
            # --mode/--config values: the command line asked for the impossible.
            fail(str(exc))
            return EXIT_USAGE
        except AuthRequired as exc:
            terminal = [m for m in exc.auth_methods if isinstance(m, s.AuthMethodTerminal)]
            chosen = [m for m in terminal if m.id == args.auth]
            interactive = sys.stdin is not None and sys.stdin.isatty()
            if attempt == 0 and chosen and interactive and _terminal_login(spec, chosen[0]) == 0:
                args.auth = None
                continue  # reconnect with the fresh login
            fail(_auth_message(exc, spec))
            return EXIT_ERROR
        except AgentStartError as exc:
            fail(f"{exc} (agent {spec.name!r} from {spec.source})")
            return EXIT_ERROR
        except AgentExited as exc:
            fail(f"agent {spec.name!r}: {exc}")
            return EXIT_ERROR
        except RequestError as exc:
            fail(f"the agent answered an error: {exc}")
            return EXIT_ERROR
        except AcpError as exc:  # AcpTimeout, RemoteProtocolError (--strict), ...
            fail(str(exc))
            return EXIT_ERROR
        except BrokenPipeError:
            return EXIT_ERROR  # our reader went away; cli.main silences stdout
        except OSError as exc:
            fail(f"{exc}")
            return EXIT_ERROR
        except Exception as exc:  # a bug of ours: still one line, not a traceback
            logging.getLogger("acphost.cli").debug("unexpected error", exc_info=True)
            fail(f"internal error: {type(exc).__name__}: {exc} (run with -vv for details)")
            return EXIT_ERROR
    return EXIT_ERROR
