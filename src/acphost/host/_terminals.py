"""The terminal manager: ``terminal/create``, ``output``, ``wait_for_exit``, ``kill``, ``release``.

Each terminal is a subprocess in its own session and process group
(``start_new_session=True``), stdin ``/dev/null``, stdout and stderr merged
into one bounded :class:`~acphost.host._output.OutputBuffer`.

No orphans: :meth:`TerminalManager.kill` signals the whole process group
(SIGTERM, then SIGKILL after a grace period), so children of the command die
with it; ``release``, ``release_session`` and ``close`` kill the same way.
When the host dies outright (SIGKILL, where none of that runs), Linux's
parent-death signal kills the command: it is set between fork and exec by
the step every process acphost starts for an agent takes
(:func:`acphost._child.preexec`; the agent's spawn uses the same), with or
without the sandbox. The processes the command starts do not inherit the
signal (the kernel clears it at fork): a shell running a pipeline leaves its
stages behind when it is killed that way. A process that leaves the group on
purpose (``setsid``) escapes the group kill, as it would from any terminal.

When the run confines its agent (:attr:`TerminalManager.confine`), each
terminal starts in the same OS sandbox, which no ``setsid`` leaves; its hook
runs inside the step above. Both are safe in a process with threads
(``asyncio.to_thread`` workers exist) because they run no Python that could
wait on a lock another thread held at the fork: they call C functions
resolved beforehand with arguments prepared beforehand (``prctl``, the
namespace's and Landlock's system calls; CPython re-initialises its own
locks in the child, glibc its allocator's).

The ``cwd`` clamp keeps the *starting* directory in the workspace; it is not a
sandbox (the command can ``cd`` anywhere). Whether the command may run at all
is the permission broker's decision (``PermissionRequest.for_terminal``).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import secrets
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import _child as child
from ..errors import InternalError, InvalidParams, RequestError, UsageError
from ._jail import Workspace, _shown, resolve_path
from ._output import DEFAULT_OUTPUT_BYTE_LIMIT, OutputBuffer

if TYPE_CHECKING:
    from ._sandbox import Confinement

__all__ = [
    "ExitStatus",
    "TerminalCreated",
    "TerminalEvent",
    "TerminalExited",
    "TerminalManager",
    "TerminalOutput",
    "TerminalOutputReceived",
]

_log = logging.getLogger("acphost.host.terminals")
_READ_SIZE = 64 * 1024
# After the main process exits, how long output still in the pipe is awaited
# before wait_for_exit answers (a background child may hold the pipe open).
_DRAIN_GRACE = 0.25


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a terminal's command ended (``TerminalExitStatus`` in the schema).

    Attributes:
        exit_code: the exit code, or ``None`` when killed by a signal.
        signal: the signal's name (``"SIGKILL"``), or ``None``.

    """

    exit_code: int | None
    signal: str | None

    @classmethod
    def from_returncode(cls, returncode: int) -> ExitStatus:
        """Convert a ``subprocess`` return code (negative: killed by a signal).

        Args:
            returncode: the return code.

        Returns:
            The exit status.

        """
        if returncode >= 0:
            return cls(returncode, None)
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"SIG{-returncode}"
        return cls(None, name)


@dataclass(frozen=True, slots=True)
class TerminalOutput:
    """The answer to ``terminal/output``.

    Attributes:
        output: the retained output (the tail, when truncated).
        truncated: older output was dropped to respect the byte limit.
        exit_status: how the command ended, or ``None`` while it runs.

    """

    output: str
    truncated: bool
    exit_status: ExitStatus | None


@dataclass(frozen=True, slots=True)
class TerminalCreated:
    """A terminal started."""

    session_id: str
    terminal_id: str
    command: str
    args: tuple[str, ...]
    cwd: str


@dataclass(frozen=True, slots=True)
class TerminalOutputReceived:
    """A terminal printed ``text`` (new output only, decoded incrementally)."""

    session_id: str
    terminal_id: str
    text: str


@dataclass(frozen=True, slots=True)
class TerminalExited:
    """A terminal's command ended."""

    session_id: str
    terminal_id: str
    exit_status: ExitStatus


TerminalEvent = TerminalCreated | TerminalOutputReceived | TerminalExited
"""What :class:`TerminalManager` reports to ``on_event``, for live UIs."""


class _Terminal(asyncio.SubprocessProtocol):
    """One terminal: the subprocess protocol feeds the buffer directly.

    A protocol rather than ``asyncio.subprocess.Process``: before Python 3.12,
    ``Process.wait()`` returns only once every pipe is closed, so a background
    child holding stdout would hide the command's exit. ``process_exited`` is
    called at the exit itself.
    """

    def __init__(
        self, terminal_id: str, session_id: str, limit: int, emit: Callable[[TerminalEvent], None]
    ) -> None:
        self.id = terminal_id
        self.session_id = session_id
        self.buffer = OutputBuffer(limit)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.exit_status: ExitStatus | None = None
        self.exited = asyncio.Event()
        self.eof = asyncio.Event()
        self.transport: asyncio.SubprocessTransport | None = None
        self.pid = 0
        self._emit = emit
        self._finisher: asyncio.Task[None] | None = None
        self.created: TerminalCreated | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # Called once the process runs and before any output: the created
        # event goes first, and never for a command that failed to start.
        if self.created is not None:
            self._emit(self.created)

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        self.buffer.append(bytes(data))
        text = self.decoder.decode(bytes(data))
        if text:
            self._emit(TerminalOutputReceived(self.session_id, self.id, text))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        tail = self.decoder.decode(b"", final=True)
        if tail:
            self._emit(TerminalOutputReceived(self.session_id, self.id, tail))
        self.eof.set()

    def process_exited(self) -> None:
        assert self.transport is not None
        returncode = self.transport.get_returncode()
        assert returncode is not None
        self._finisher = asyncio.get_running_loop().create_task(
            self._finish(returncode), name=f"acphost.host.terminals.exit.{self.id}"
        )

    async def _finish(self, returncode: int) -> None:
        # Let output already in the pipe arrive before reporting the exit; a
        # background child holding the pipe open does not delay it for long.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.eof.wait(), _DRAIN_GRACE)
        self.exit_status = ExitStatus.from_returncode(returncode)
        self.exited.set()
        _log.info("terminal %s exited: %s", self.id, self.exit_status)
        self._emit(TerminalExited(self.session_id, self.id, self.exit_status))


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidParams(f"{what} must be a string")
    if "\x00" in value:
        raise InvalidParams(f"{what} must not contain NUL bytes")
    return value


class TerminalManager:
    """Runs the agent's terminals and keeps their output.

    Args:
        max_per_session: the most terminals a session may hold at once
            (running or exited but not released).
        allow_cwd_outside_workspace: accept a ``cwd`` outside the workspace.
        default_output_byte_limit: the byte limit when the agent gives none;
            an agent's larger limit is lowered to it, so memory stays bounded.
        kill_grace: seconds between SIGTERM and SIGKILL in :meth:`kill`.
        on_event: called (synchronously, on the event loop) with each
            :data:`TerminalEvent`; exceptions are logged and ignored.

    """

    def __init__(
        self,
        *,
        max_per_session: int = 16,
        allow_cwd_outside_workspace: bool = False,
        default_output_byte_limit: int = DEFAULT_OUTPUT_BYTE_LIMIT,
        kill_grace: float = 1.0,
        on_event: Callable[[TerminalEvent], None] | None = None,
    ) -> None:
        self._max = max_per_session
        self._allow_outside = allow_cwd_outside_workspace
        self._default_limit = default_output_byte_limit
        self._grace = kill_grace
        self._on_event = on_event
        self._terminals: dict[str, _Terminal] = {}
        self._closed = False
        #: The OS sandbox every terminal starts in (the run's, set by the
        #: assembly that confines its agent), or None.
        self.confine: Confinement | None = None

    async def create(
        self,
        session_id: str,
        workspace: Workspace,
        command: str,
        *,
        args: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> str:
        """Start a command and return its new terminal id.

        Args:
            session_id: the session asking.
            workspace: the session's workspace (the default and allowed ``cwd``).
            command: the program; with no ``args``, a shell line run by ``sh -c``.
            args: the arguments (the argv is ``[command, *args]``).
            env: variables laid over the host's environment.
            cwd: an absolute working directory; the workspace's ``cwd`` if ``None``.
            output_byte_limit: the most output bytes retained (tail kept).

        Returns:
            An unguessable terminal id.

        Raises:
            InvalidParams: an empty command, NUL bytes, a bad ``cwd`` (relative,
                missing, outside the workspace), a bad limit, or a command that
                cannot be started.
            InternalError: the session already holds ``max_per_session`` terminals.
            UsageError: the manager is closed.

        """
        if self._closed:
            raise UsageError("the terminal manager is closed; create a new one")
        command = _check_text(command, "command")
        if not command.strip():
            raise InvalidParams("command must not be empty")
        argv_tail = [_check_text(a, "every argument") for a in (args or ())]
        overlay = self._check_env(env)
        directory = self.resolve_cwd(workspace, cwd)
        limit = self._check_limit(output_byte_limit)
        held = sum(1 for t in self._terminals.values() if t.session_id == session_id)
        if held >= self._max:
            raise InternalError(
                f"the session already has {held} terminals, the host's limit; "
                "release one (terminal/release) before creating another"
            )
        argv = [command, *argv_tail] if args else ["/bin/sh", "-c", command]
        terminal_id = "term_" + secrets.token_urlsafe(16)
        terminal = _Terminal(terminal_id, session_id, limit, self._emit)
        terminal.created = TerminalCreated(
            session_id, terminal_id, command, tuple(argv_tail), directory
        )
        loop = asyncio.get_running_loop()
        sandbox = self.confine
        try:
            transport, _ = await loop.subprocess_exec(
                lambda: terminal,
                *argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=directory,
                env={**(sandbox.environ(os.environ) if sandbox else os.environ), **overlay},
                start_new_session=True,
                # Dies with the host, confined like the agent (see _child and
                # _sandbox): made here, on the loop's thread, where asyncio forks.
                preexec_fn=child.preexec(sandbox.preexec() if sandbox is not None else None),
            )
        except subprocess.SubprocessError as exc:  # the step before the command failed: nothing ran
            how = "confined" if sandbox is not None else "tied to the host's life"
            raise InternalError(f"command {_shown(command)} could not be {how}: {exc}") from exc
        except OSError as exc:
            raise InvalidParams(
                f"command {_shown(command)} could not be started: {exc.strerror or exc}"
            ) from exc
        terminal.transport = transport
        terminal.pid = transport.get_pid()
        self._terminals[terminal_id] = terminal
        _log.info(
            "terminal %s created for session %s: pid %d, %s, cwd %s",
            terminal_id,
            session_id,
            terminal.pid,
            _shown(command),
            directory,
        )
        return terminal_id

    def output(self, session_id: str, terminal_id: str) -> TerminalOutput:
        """Return the output retained so far and the exit status, if any.

        Args:
            session_id: the session asking.
            terminal_id: the terminal.

        Returns:
            The output snapshot.

        Raises:
            InvalidParams: unknown terminal, released, or another session's.

        """
        terminal = self._get(session_id, terminal_id)
        final = terminal.exit_status is not None and terminal.eof.is_set()
        return TerminalOutput(
            terminal.buffer.text(final=final), terminal.buffer.truncated, terminal.exit_status
        )

    async def wait_for_exit(self, session_id: str, terminal_id: str) -> ExitStatus:
        """Wait until the command ends.

        Args:
            session_id: the session asking.
            terminal_id: the terminal.

        Returns:
            How it ended.

        Raises:
            InvalidParams: unknown terminal, released, or another session's.

        """
        terminal = self._get(session_id, terminal_id)
        await terminal.exited.wait()
        assert terminal.exit_status is not None
        return terminal.exit_status

    async def kill(self, session_id: str, terminal_id: str) -> None:
        """Kill the command and its process group; the output is kept.

        Sends SIGTERM to the group, SIGKILL after ``kill_grace`` seconds if the
        command is still running, then SIGKILL again to whatever remains of
        the group (children that ignored SIGTERM).

        Args:
            session_id: the session asking.
            terminal_id: the terminal.

        Raises:
            InvalidParams: unknown terminal, released, or another session's.

        """
        await self._kill(self._get(session_id, terminal_id))

    async def release(self, session_id: str, terminal_id: str) -> None:
        """Kill the command if it runs and forget the terminal.

        Later calls with this id raise :class:`InvalidParams`.

        Args:
            session_id: the session asking.
            terminal_id: the terminal.

        Raises:
            InvalidParams: unknown terminal, already released, or another session's.

        """
        terminal = self._get(session_id, terminal_id)
        del self._terminals[terminal_id]
        await self._dispose(terminal)

    async def release_session(self, session_id: str) -> None:
        """Release every terminal of a session (the session ended).

        Args:
            session_id: the session.

        """
        doomed = [t for t in self._terminals.values() if t.session_id == session_id]
        for terminal in doomed:
            del self._terminals[terminal.id]
        await asyncio.gather(*(self._dispose(t) for t in doomed))

    async def close(self) -> None:
        """Release every terminal and refuse new ones."""
        self._closed = True
        doomed = list(self._terminals.values())
        self._terminals.clear()
        await asyncio.gather(*(self._dispose(t) for t in doomed))

    # -- internals -------------------------------------------------------------

    def _get(self, session_id: str, terminal_id: str) -> _Terminal:
        terminal = self._terminals.get(terminal_id) if isinstance(terminal_id, str) else None
        if terminal is None or terminal.session_id != session_id:
            # One message for both: do not confirm other sessions' ids exist.
            raise InvalidParams(
                f"unknown terminal id {_shown(str(terminal_id))} for this session "
                "(never created, or already released)"
            )
        return terminal

    def _check_env(self, env: Mapping[str, str] | None) -> dict[str, str]:
        overlay: dict[str, str] = {}
        for name, value in (env or {}).items():
            _check_text(name, "an environment variable name")
            _check_text(value, f"environment variable {_shown(name)}")
            if not name or "=" in name:
                raise InvalidParams(f"environment variable name {_shown(name)} is not valid")
            overlay[name] = value
        return overlay

    def resolve_cwd(self, workspace: Workspace, cwd: str | None) -> str:
        """Return the directory a command will start in, resolved as the jail resolves paths.

        Call it before asking the permission broker, so that the policy
        judges (and a prompt shows) the directory the command really gets.

        Args:
            workspace: the session's workspace.
            cwd: the ``cwd`` the agent asked for, or ``None`` for the workspace's.

        Returns:
            The canonical directory.

        Raises:
            InvalidParams: not a string, relative, with NUL, outside the
                workspace (unless allowed), or not an existing directory.

        """
        if cwd is None:
            return workspace.cwd
        cwd = _check_text(cwd, "cwd")
        if not os.path.isabs(cwd):
            raise InvalidParams(f"cwd must be an absolute path, got {_shown(cwd)}")
        try:
            real = resolve_path(cwd)
        except RequestError as exc:
            raise InvalidParams(f"cwd {_shown(cwd)} cannot be used: {exc.message}") from None
        if not self._allow_outside and not workspace.contains(real):
            raise InvalidParams(f"cwd {_shown(cwd)} is outside the workspace")
        if not os.path.isdir(real):
            raise InvalidParams(f"cwd {_shown(cwd)} is not an existing directory")
        return real

    def _check_limit(self, limit: int | None) -> int:
        if limit is None:
            return self._default_limit
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise InvalidParams(f"outputByteLimit must be an integer >= 0, got {limit!r}")
        return min(limit, self._default_limit)

    async def _kill(self, terminal: _Terminal) -> None:
        if not terminal.exited.is_set():
            _signal_group(terminal.pid, signal.SIGTERM)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(terminal.exited.wait(), self._grace)
        # SIGKILL whatever is left of the group: the leader if it ignored
        # SIGTERM, children that outlived it.
        _signal_group(terminal.pid, signal.SIGKILL)
        await terminal.exited.wait()

    async def _dispose(self, terminal: _Terminal) -> None:
        await self._kill(terminal)
        # Close the pipe even if a process that left the group still holds it.
        if terminal.transport is not None:
            terminal.transport.close()
        _log.info("terminal %s released", terminal.id)

    def _emit(self, event: TerminalEvent) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(event)
        except Exception:
            _log.exception("terminal event handler failed on %r", type(event).__name__)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # The group id is the leader's pid (start_new_session). The kernel does not
    # hand out a pid still in use as a process-group id, so this cannot hit an
    # unrelated group while any member is alive; ESRCH means none is.
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        _log.warning("no permission to signal process group %d", pgid)
