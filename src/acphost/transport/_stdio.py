"""The stdio transport: an agent subprocess spoken to over its stdin and stdout.

Process hygiene is the point of this module:

- spawned from an argv list, never through a shell;
- environment = ours overlaid with the agent's ``env`` (the child gets a copy:
  nothing leaks back), in the chosen cwd;
- its own session and process group, so that the whole tree can be ended:
  several real agents leave children behind, or keep running after stdin
  closes;
- on Linux, ``PR_SET_PDEATHSIG``: the agent gets SIGKILL if the host dies
  outright (``kill -9``), where no cleanup code can run; the step that sets
  it (:mod:`acphost._child`) is the terminals' too;
- confined, when the caller gives a hook (the OS sandbox, built by the host
  layer): the hook runs in the child before the agent's program, after the
  death signal's step, and a failing hook means no agent at all, never an
  unconfined one;
- stderr is drained continuously into a bounded ring of lines and the
  ``acphost.agent.stderr`` logger — an agent that fills the stderr pipe would
  otherwise block forever (the official SDK never drains it); stdout chunks
  reach the reader as read, with flow control both ways (``_pipes.py``);
- its exit is watched by the process itself, not by the end of its stdout:
  a child it started may hold the pipes open long after it is gone. When
  the agent exits, what it left in its group is ended after a short grace,
  which closes the pipes; a pipe still held after that (by a process that
  left the group with ``setsid``) is closed on our side;
- close = EOF on stdin, a grace period, SIGTERM to the group, a second grace
  period, SIGKILL to the group; then the process is reaped (no zombies).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import signal
import subprocess
import sys
import termios
from collections.abc import Callable, Mapping, Sequence

from .. import _child as child
from ..errors import AgentStartError
from ..safetext import CUT
from ._base import ExitInfo
from ._pipes import AgentPipes

__all__ = ["StdioTransport"]

logger = logging.getLogger("acphost.transport")

#: After the agent exits: how long its pipes may stay open before what it
#: left in its process group gets SIGTERM, then SIGKILL, then (for a pipe
#: still held from outside the group) our end of the pipe is closed.
_ORPHAN_GRACE = 0.25
_ORPHAN_KILL = 0.25
_PIPE_GIVE_UP = 0.5


class StdioTransport:
    """A running agent process; create with :meth:`spawn`.

    Attributes:
        argv: the command line it was started with.
        pid: the process id (also its process-group id).
        close_grace: seconds :meth:`close` waits after EOF, and after SIGTERM.

    """

    def __init__(
        self, pipes: asyncio.SubprocessTransport, io: AgentPipes, argv: Sequence[str]
    ) -> None:
        self._pipes = pipes
        self._io = io
        self.argv = tuple(argv)
        self.pid = pipes.get_pid()
        self._closed: asyncio.Future[None] | None = None
        self.close_grace = 2.0
        loop = asyncio.get_running_loop()
        io.exited.add_done_callback(
            lambda _: loop.call_later(_ORPHAN_GRACE, self._end_orphans, signal.SIGTERM)
        )

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        kill_on_host_death: bool = True,
        inherit_stderr: bool = False,
        close_grace: float = 2.0,
        confine: Callable[[], None] | None = None,
        unset: Sequence[str] = (),
    ) -> StdioTransport:
        """Start the agent.

        Args:
            argv: the program and its arguments (no shell is involved).
            env: variables overlaid on the host's environment for the child.
            cwd: the child's working directory (default: ours).
            kill_on_host_death: on Linux, SIGKILL the agent if the host dies.
            inherit_stderr: let the agent write to our stderr instead of
                draining it (its tail is then unknown).
            close_grace: seconds :meth:`close` waits after EOF, and again
                after SIGTERM, before escalating.
            confine: a hook that confines the child, run between fork and
                exec (the OS sandbox; it calls only C functions resolved
                beforehand); when it fails, the agent does not start.
            unset: variables of the host's environment the child goes without.

        Returns:
            The running agent.

        Raises:
            AgentStartError: the program is missing, not executable, or the cwd
                does not exist.

        """
        if not argv:
            raise AgentStartError("no agent command given: the argv list is empty")
        child_env = dict(os.environ)
        for name in unset:
            child_env.pop(name, None)
        if env:
            child_env.update(env)
        loop = asyncio.get_running_loop()
        try:
            pipes, io = await loop.subprocess_exec(
                lambda: AgentPipes(loop, stderr=not inherit_stderr),
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None if inherit_stderr else asyncio.subprocess.PIPE,
                env=child_env,
                cwd=os.fspath(cwd) if cwd is not None else None,
                start_new_session=True,
                # Made here, on the loop's thread, where asyncio forks (see _child).
                preexec_fn=child.preexec(confine) if kill_on_host_death else confine,
            )
        except FileNotFoundError as exc:
            if cwd is not None and not os.path.isdir(cwd):  # noqa: ASYNC240 - error path
                raise AgentStartError(
                    f"the agent's working directory {cwd} does not exist"
                ) from exc
            raise AgentStartError(
                f"cannot start the agent: {argv[0]!r} was not found; is it installed and on PATH?"
            ) from exc
        except PermissionError as exc:
            raise AgentStartError(f"cannot start the agent: {argv[0]!r} is not executable") from exc
        except OSError as exc:
            raise AgentStartError(f"cannot start the agent {argv[0]!r}: {exc.strerror}") from exc
        except subprocess.SubprocessError as exc:  # the step before its program failed
            where = " in its sandbox" if confine is not None else ""
            raise AgentStartError(f"cannot start the agent {argv[0]!r}{where}: {exc}") from exc
        logger.debug("started agent pid=%d argv=%r", pipes.get_pid(), argv[0])
        transport = cls(pipes, io, argv)
        transport.close_grace = close_grace
        return transport

    # -- stderr ----------------------------------------------------------------

    @property
    def on_stderr(self) -> Callable[[str], None] | None:
        """Called with each line the agent writes to stderr (errors are logged)."""
        return self._io.on_stderr

    @on_stderr.setter
    def on_stderr(self, callback: Callable[[str], None] | None) -> None:
        self._io.on_stderr = callback

    def stderr_tail(self, lines: int = 20) -> str:
        """Return the last ``lines`` lines the agent wrote to stderr.

        When the agent wrote more, the first line is :data:`~acphost.safetext.CUT`:
        the tail may start inside a value of several lines (a key file),
        and the redactor masks the end of a configured value after the mark.
        """
        if lines <= 0:
            return ""
        shown = list(self._io.stderr_lines)[-lines:]
        text = "\n".join(shown)
        return f"{CUT}\n{text}" if self._io.stderr_count > len(shown) else text

    # -- the byte stream -------------------------------------------------------------

    async def receive(self) -> bytes:
        """Return the next chunk of the agent's stdout, ``b""`` at end of stream."""
        return await self._io.receive()

    def send(self, data: bytes) -> None:
        """Write bytes to the agent's stdin.

        Raises:
            ConnectionError: the agent's stdin is closed (it exited).

        """
        self._io.write(data)

    async def drain(self) -> None:
        """Wait for the agent to accept what was written (flow control).

        Raises:
            ConnectionError: the agent's stdin is closed.

        """
        await self._io.drain()

    @property
    def returncode(self) -> int | None:
        """The exit status once the agent has exited (negative: signal)."""
        return self._pipes.get_returncode()

    async def exit_info(self, timeout: float) -> ExitInfo:
        """Wait up to ``timeout`` s for the agent to exit; return status and stderr tail."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._io.exited), timeout)
        if self.returncode is not None:
            # Let the drain pick up the last words before we quote them.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._io.stderr_done), 0.5)
        return ExitInfo(self.returncode, self.stderr_tail())

    # -- after the agent exited -------------------------------------------------------

    def _end_orphans(self, sig: signal.Signals) -> None:
        """The agent exited: end what it left in its group, then let go of its pipes.

        Called ``_ORPHAN_GRACE`` s after the exit with SIGTERM, then again with
        SIGKILL; once the group is empty, a pipe still open is held by a
        process outside it, and our end is closed so the reader sees the end.
        """
        if self._closed is not None and self._closed.done():
            return  # close() has ended the group; its id may be reused by now
        loop = asyncio.get_running_loop()
        if sig is signal.SIGTERM:
            if self._signal_group(signal.SIGTERM):
                if self._io.open_pipes:
                    logger.info(
                        "agent pid=%d exited; processes it started still hold its output: "
                        "ending its process group",
                        self.pid,
                    )
                loop.call_later(_ORPHAN_KILL, self._end_orphans, signal.SIGKILL)
                return
        elif self._signal_group(signal.SIGKILL):
            loop.call_later(_PIPE_GIVE_UP, self._end_orphans, signal.SIGKILL)
            return
        if self._io.open_pipes:
            loop.call_later(_PIPE_GIVE_UP, self._release_pipes)

    def _release_pipes(self) -> None:
        for fd in sorted(self._io.open_pipes):
            pipe = self._pipes.get_pipe_transport(fd)
            if not isinstance(pipe, asyncio.ReadTransport) or pipe.is_closing():
                continue
            if not pipe.is_reading() or _unread(pipe):
                # Output is still waiting to be read (the reader may be paused
                # by backpressure): what the agent wrote is never cut. Later.
                asyncio.get_running_loop().call_later(_PIPE_GIVE_UP, self._release_pipes)
                return
            logger.warning(
                "agent pid=%d exited, but a process outside its group still holds its "
                "%s: no longer reading it",
                self.pid,
                "stdout" if fd == 1 else "stderr",
            )
            pipe.close()

    # -- ending it ---------------------------------------------------------------

    def _signal_group(self, sig: signal.Signals) -> bool:
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def kill_now(self) -> None:
        """SIGKILL the agent's whole process group at once (second Ctrl-C)."""
        self._signal_group(signal.SIGKILL)

    async def close(self, *, grace: float | None = None, term_grace: float | None = None) -> None:
        """End the agent and everything it started; reap it. Idempotent.

        EOF on stdin, up to ``grace`` s for it to exit by itself, then SIGTERM to
        the process group, up to ``term_grace`` s, then SIGKILL to the group.
        Members of the group still alive after the leader exits (children it
        left behind) get the same treatment. A second call waits for the first.

        Args:
            grace: seconds to wait after EOF (default: ``close_grace``).
            term_grace: seconds to wait after SIGTERM (default: ``close_grace``).

        """
        if self._closed is not None:
            await asyncio.shield(self._closed)
            return
        self._closed = asyncio.get_running_loop().create_future()
        grace = self.close_grace if grace is None else grace
        term_grace = self.close_grace if term_grace is None else term_grace
        try:
            with contextlib.suppress(OSError, RuntimeError):
                self._io.close_stdin()
            if self.returncode is None and not await self._wait(grace):
                logger.info("agent pid=%d still running %.1fs after EOF: SIGTERM", self.pid, grace)
                self._signal_group(signal.SIGTERM)
                if not await self._wait(term_grace):
                    logger.warning("agent pid=%d ignored SIGTERM: SIGKILL", self.pid)
                    self._signal_group(signal.SIGKILL)
                    await self._wait(5.0)
            # The leader is gone; end whatever it left in its group.
            if self._signal_group(signal.SIGTERM):
                await asyncio.sleep(0.05)
                self._signal_group(signal.SIGKILL)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._io.stderr_done), 1.0)
        finally:
            # Interrupted (Ctrl-C, task cancelled) half-way: a later close() only
            # waits for this one, so nothing of the agent's group may survive it.
            if self.returncode is None:
                self._signal_group(signal.SIGKILL)
            self._close_pipes()
            self._closed.set_result(None)

    def _close_pipes(self) -> None:
        # asyncio keeps the pipe transports open until the loop reaps them;
        # closing them here avoids ResourceWarnings on short-lived loops.
        with contextlib.suppress(RuntimeError, OSError):
            self._pipes.close()

    async def _wait(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(asyncio.shield(self._io.exited), timeout)
        except asyncio.TimeoutError:
            return False
        return True


def _unread(pipe: asyncio.ReadTransport) -> int:
    """Bytes waiting in the pipe's kernel buffer (0 when it cannot be told)."""
    file = pipe.get_extra_info("pipe")
    try:
        raw = fcntl.ioctl(file.fileno(), termios.FIONREAD, b"\0\0\0\0")
    except (OSError, ValueError, AttributeError):
        return 0
    return int.from_bytes(raw, sys.byteorder)
