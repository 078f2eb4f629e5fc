"""The stdio transport: an agent subprocess spoken to over its stdin and stdout.

Process hygiene is the point of this module (DESIGN.md, issue 2 item 4):

- spawned from an argv list, never through a shell;
- environment = ours overlaid with the agent's ``env`` (the child gets a copy:
  nothing leaks back), in the chosen cwd;
- its own session and process group, so that the whole tree can be ended:
  several real agents leave children behind, or keep running after stdin
  closes;
- on Linux, ``PR_SET_PDEATHSIG``: the agent gets SIGKILL if the host dies
  outright (``kill -9``), where no cleanup code can run;
- stderr is drained continuously into a bounded ring of lines and the
  ``acphost.agent.stderr`` logger — an agent that fills the stderr pipe would
  otherwise block forever (the official SDK never drains it);
- close = EOF on stdin, a grace period, SIGTERM to the group, a second grace
  period, SIGKILL to the group; then the process is reaped (no zombies).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._errors import AgentStartError
from ._base import ExitInfo

__all__ = ["StdioTransport"]

logger = logging.getLogger("acphost.transport")
stderr_logger = logging.getLogger("acphost.agent.stderr")

_READ_CHUNK = 256 * 1024
_STDERR_LINES = 200
_STDERR_LINE_MAX = 4096


def _pdeathsig_preexec() -> Callable[[], None] | None:
    """Return a pre-exec hook that asks Linux to SIGKILL the child when we die.

    Resolved in the parent so the child only calls an already-bound C
    function between fork and exec. The race where the parent dies between
    fork and prctl is closed by comparing the parent pid afterwards.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes  # noqa: PLC0415 - only Linux needs it, and only at spawn time

        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def preexec() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


class StdioTransport:
    """A running agent process; create with :meth:`spawn`.

    Attributes:
        argv: the command line it was started with.
        pid: the process id (also its process-group id).

    """

    def __init__(self, proc: asyncio.subprocess.Process, argv: Sequence[str]) -> None:
        self._proc = proc
        self.argv = tuple(argv)
        self.pid = proc.pid
        self._stderr_lines: deque[str] = deque(maxlen=_STDERR_LINES)
        self._stderr_task: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = False
        self.on_stderr: Callable[[str], None] | None = None
        self.close_grace = 2.0
        if proc.stderr is not None:
            self._stderr_task = asyncio.get_running_loop().create_task(
                self._drain_stderr(proc.stderr), name="acphost.transport.stderr"
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

        Raises:
            AgentStartError: the program is missing, not executable, or the cwd
                does not exist.

        """
        if not argv:
            raise AgentStartError("no agent command given: the argv list is empty")
        child_env = dict(os.environ)
        if env:
            child_env.update(env)
        preexec = _pdeathsig_preexec() if kill_on_host_death else None
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None if inherit_stderr else asyncio.subprocess.PIPE,
                env=child_env,
                cwd=os.fspath(cwd) if cwd is not None else None,
                start_new_session=True,
                preexec_fn=preexec,
                limit=_READ_CHUNK,
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
        logger.debug("started agent pid=%d argv=%r", proc.pid, argv[0])
        transport = cls(proc, argv)
        transport.close_grace = close_grace
        return transport

    # -- stderr ----------------------------------------------------------------

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        partial = b""
        lines = self._stderr_lines
        while True:
            try:
                chunk = await stream.read(65536)
            except (OSError, asyncio.CancelledError):
                break
            if not chunk:
                break
            data = partial + chunk
            parts = data.split(b"\n")
            partial = parts.pop()
            if len(partial) > _STDERR_LINE_MAX:
                parts.append(partial)
                partial = b""
            for raw in parts:
                text = raw[:_STDERR_LINE_MAX].decode("utf-8", "replace").rstrip("\r")
                lines.append(text)
                stderr_logger.debug("%s", text)
                if self.on_stderr is not None:
                    try:
                        self.on_stderr(text)
                    except Exception:  # the drain must go on, or the agent blocks
                        logger.exception("the on_stderr callback failed")
        if partial:
            lines.append(partial[:_STDERR_LINE_MAX].decode("utf-8", "replace"))

    def stderr_tail(self, lines: int = 20) -> str:
        """Return the last ``lines`` lines the agent wrote to stderr."""
        if lines <= 0:
            return ""
        return "\n".join(list(self._stderr_lines)[-lines:])

    # -- the byte stream -------------------------------------------------------------

    async def receive(self) -> bytes:
        """Return the next chunk of the agent's stdout, ``b""`` at end of stream."""
        stdout = self._proc.stdout
        if stdout is None:
            return b""
        try:
            return await stdout.read(_READ_CHUNK)
        except (ConnectionError, OSError):
            return b""

    def send(self, data: bytes) -> None:
        """Write bytes to the agent's stdin.

        Raises:
            ConnectionError: the agent's stdin is closed (it exited).

        """
        stdin = self._proc.stdin
        if stdin is None or stdin.is_closing():
            raise ConnectionError("the agent's stdin is closed")
        stdin.write(data)

    async def drain(self) -> None:
        """Wait for the agent to accept what was written (flow control)."""
        stdin = self._proc.stdin
        if stdin is None:
            raise ConnectionError("the agent's stdin is closed")
        await stdin.drain()

    @property
    def returncode(self) -> int | None:
        """The exit status once the agent has exited (negative: signal)."""
        return self._proc.returncode

    async def exit_info(self, timeout: float) -> ExitInfo:
        """Wait up to ``timeout`` s for the agent to exit; return status and stderr tail."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._proc.wait(), timeout)
        if self._stderr_task is not None and self._proc.returncode is not None:
            # Let the drain pick up the last words before we quote them.
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 0.5)
        return ExitInfo(self._proc.returncode, self.stderr_tail())

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
        left behind) get the same treatment.

        Args:
            grace: seconds to wait after EOF (default: ``close_grace``).
            term_grace: seconds to wait after SIGTERM (default: ``close_grace``).

        """
        if self._closed:
            return
        grace = self.close_grace if grace is None else grace
        term_grace = self.close_grace if term_grace is None else term_grace
        self._closed = True
        proc = self._proc
        try:
            if proc.stdin is not None and not proc.stdin.is_closing():
                with contextlib.suppress(OSError, RuntimeError):
                    proc.stdin.close()
            if proc.returncode is None and not await self._wait(grace):
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
            if self._stderr_task is not None:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(self._stderr_task, 1.0)
        finally:
            # Interrupted (Ctrl-C, task cancelled) half-way: a later close() is a
            # no-op, so nothing of the agent's group may survive this one.
            if proc.returncode is None:
                self._signal_group(signal.SIGKILL)
            self._close_pipes()

    def _close_pipes(self) -> None:
        # asyncio keeps the pipe transports open until the loop reaps them;
        # closing them here avoids ResourceWarnings on short-lived loops.
        transport: Any = getattr(self._proc, "_transport", None)
        if transport is not None:
            with contextlib.suppress(RuntimeError, OSError):
                transport.close()

    async def _wait(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._proc.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True
