"""Run the real ``acphost`` command line in the test's own process.

:func:`run_main` calls :func:`acphost.cli.main`, the function the ``acphost``
console script calls, with the process set up the way a fresh ``acphost``
process would find it, and puts everything back afterwards:

- file descriptors 0, 1 and 2 are real pipes (or one real pty, which makes
  ``isatty`` true and decides the layout as on a terminal), and
  ``sys.stdin``/``sys.stdout``/``sys.stderr`` are new text streams on them,
  set up as Python sets up a program's standard streams; what acphost
  writes is read from the other end while it runs, so a full pipe blocks it
  only as it would block a process;
- the environment is exactly the one given, the working directory the one
  given, ``sys.argv`` the console script's;
- signal handlers and the signal wake-up fd, the ``acphost`` loggers, the
  module globals of the ``acphost`` package (a run may set a process-wide
  redactor, say) and its ``functools`` caches are restored, so no run sees
  what an earlier one left;
- a run that leaves a child process, a thread, a running or unclosed
  default event loop, or a holder of its output pipes behind fails the test.

The agent is still a real subprocess over real pipes: only acphost's own
process is saved. What cannot be checked in process (Ctrl-C typed on a
controlling terminal, the exit code of a crash, what the interpreter does at
exit) keeps spawning whole processes (``tests/cli/runner.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import gc
import importlib
import io
import logging
import os
import pkgutil
import selectors
import signal
import struct
import sys
import termios
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from tests.support.waiting import DEADLINE

__all__ = ["Result", "process_state_kept", "run_main"]


@dataclass(frozen=True)
class Result:
    """What a run of ``main()`` ended with.

    ``stdout`` and ``stderr`` are decoded as :func:`subprocess.run` decodes
    with ``text=True`` (UTF-8, universal newlines); the ``*_bytes`` fields
    are the exact bytes. On a terminal both streams are the one pty:
    ``stdout`` holds everything and ``stderr`` is empty.
    """

    code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes
    stderr_bytes: bytes

    @property
    def returncode(self) -> int:
        """The exit code, under :class:`subprocess.CompletedProcess`'s name."""
        return self.code


def _text(data: bytes) -> str:
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


# -- what a fresh process has: the package's module globals ---------------------

_imported: list[bool] = []


def _import_everything() -> None:
    """Import every acphost module a command-line run may use, once per test session.

    Each run puts the globals of every acphost module back as it found them;
    a module a run imported for the first time would otherwise keep what
    that run left in it (the run's log redactor, say) for the next run. The
    TUI and the agents run in their own processes and are left out.
    """
    if _imported:
        return
    import acphost

    for info in pkgutil.walk_packages(acphost.__path__, "acphost."):
        name = info.name
        if name.endswith("__main__") or name.startswith(("acphost.tui", "acphost.agents")):
            continue
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _imported.append(True)


@contextlib.contextmanager
def _globals_kept() -> Iterator[None]:
    """Put the acphost modules' globals back, and empty their caches as a new process has them."""
    saved = {
        name: dict(vars(module))
        for name, module in list(sys.modules.items())
        if name == "acphost" or name.startswith("acphost.")
    }
    try:
        yield
    finally:
        for name, before in saved.items():
            module = sys.modules.get(name)
            if module is None:
                continue
            now = vars(module)
            for key in [k for k in now if k not in before]:
                if not isinstance(now[key], type(sys)):  # a submodule imported since: keep it
                    del now[key]
            for key, value in before.items():
                if now.get(key, saved) is not value:
                    now[key] = value
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


def _acphost_loggers() -> dict[str, logging.Logger]:
    found = {
        name: logger
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger) and (name == "acphost" or name.startswith("acphost."))
    }
    found["acphost"] = logging.getLogger("acphost")
    return found


@contextlib.contextmanager
def _loggers_kept() -> Iterator[None]:
    """The acphost loggers as a new process has them while the run lasts, then as they were.

    An earlier run in this process (a test calling ``main()`` itself) may have
    left its handler on them, writing to a stream that is gone.
    """
    saved = {
        name: (list(lg.handlers), lg.level, lg.propagate, lg.disabled)
        for name, lg in _acphost_loggers().items()
    }
    for logger in _acphost_loggers().values():
        logger.handlers.clear()
        logger.setLevel(logging.NOTSET)
        logger.propagate = True
        logger.disabled = False
    try:
        yield
    finally:
        for name, logger in _acphost_loggers().items():
            handlers, level, propagate, disabled = saved.get(
                name, ([], logging.NOTSET, True, False)
            )
            logger.handlers[:] = handlers
            logger.setLevel(level)
            logger.propagate = propagate
            logger.disabled = disabled


@contextlib.contextmanager
def process_state_kept() -> Iterator[None]:
    """What a run of ``main()`` changes in the process, put back afterwards.

    For a test that calls :func:`acphost.cli.main` itself: the signal
    handlers, the acphost loggers (fresh for the run) and the acphost
    modules' globals.
    """
    _import_everything()
    with _signals_kept(), _loggers_kept(), _globals_kept():
        yield


# -- the process's own state -------------------------------------------------


@contextlib.contextmanager
def _signals_kept() -> Iterator[None]:
    saved = {}
    for sig in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError):
            handler = signal.getsignal(sig)
            if handler is not None:  # None: set outside Python, not ours to change
                saved[sig] = handler
    wakeup = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup)
    try:
        yield
    finally:
        signal.set_wakeup_fd(wakeup)
        for sig, handler in saved.items():
            if signal.getsignal(sig) is not handler:
                signal.signal(sig, handler)


@contextlib.contextmanager
def _environment(
    env: Mapping[str, str], cwd: str | os.PathLike[str], argv: list[str]
) -> Iterator[None]:
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def _children() -> set[int]:
    """The process ids of this process's children (zombies included)."""
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError), open(f"/proc/self/task/{task}/children") as f:
            found.update(int(pid) for pid in f.read().split())
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


# -- the standard streams ------------------------------------------------------


def _stream(fd: int, mode: str, errors: str, *, line_buffering: bool) -> io.TextIOWrapper:
    raw = open(fd, mode + "b", closefd=False)  # noqa: SIM115 - closed by _Streams.close
    return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, line_buffering=line_buffering)


class _Streams:
    """Pipes or a pty on fds 0, 1 and 2, drained by one thread while the run lasts."""

    def __init__(
        self, stdin: str | bytes | IO[bytes] | None, terminal: tuple[int, int] | None
    ) -> None:
        if terminal is not None and not isinstance(stdin, (str, bytes, type(None))):
            raise TypeError("on a terminal, stdin is what is typed: str or bytes")
        self.out = bytearray()
        self.err = bytearray()
        self.saved = {fd: os.dup(fd) for fd in (0, 1, 2)}
        try:
            self._open(stdin, terminal)
        except BaseException:
            for fd, saved in self.saved.items():
                os.dup2(saved, fd)
                os.close(saved)
            raise

    def _open(
        self, stdin: str | bytes | IO[bytes] | None, terminal: tuple[int, int] | None
    ) -> None:
        self.feeder: threading.Thread | None = None
        self.terminal = terminal is not None
        if terminal is not None:
            master, slave = os.openpty()
            cols, rows = terminal
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.close(slave)
            self.readers = {master: self.out}
            if isinstance(stdin, (str, bytes)) and stdin:
                os.write(master, stdin.encode() if isinstance(stdin, str) else stdin)
        else:
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            if stdin is None:
                in_r = os.open(os.devnull, os.O_RDONLY)
            elif not isinstance(stdin, (str, bytes)):  # a file: stdin is that file
                in_r = os.dup(stdin.fileno())
            else:
                in_r, in_w = os.pipe()
                data = stdin.encode() if isinstance(stdin, str) else stdin
                self.feeder = threading.Thread(
                    target=self._feed, args=(in_w, data), name="run_main stdin", daemon=True
                )
                self.feeder.start()
            for new, fd in ((in_r, 0), (out_w, 1), (err_w, 2)):
                os.dup2(new, fd)
                os.close(new)
            self.readers = {out_r: self.out, err_r: self.err}
        self.stop = threading.Event()
        self.drainer = threading.Thread(target=self._drain, name="run_main output", daemon=True)
        self.drainer.start()
        self.saved_streams = (sys.stdin, sys.stdout, sys.stderr)
        # As Python sets up a program's streams in a UTF-8 locale (the C locale
        # is coerced to one): line-buffered on a terminal, stderr always.
        tty = os.isatty(1)
        sys.stdin = _stream(0, "r", "surrogateescape", line_buffering=False)
        sys.stdout = _stream(1, "w", "surrogateescape", line_buffering=tty)
        sys.stderr = _stream(2, "w", "backslashreplace", line_buffering=True)

    @staticmethod
    def _feed(fd: int, data: bytes) -> None:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            pass  # acphost stopped reading: as for a process
        finally:
            os.close(fd)

    def _drain(self) -> None:
        with selectors.DefaultSelector() as sel:
            for fd in self.readers:
                sel.register(fd, selectors.EVENT_READ)
            open_fds = set(self.readers)
            while open_fds and not self.stop.is_set():
                for key, _ in sel.select(0.05):
                    try:
                        data = os.read(key.fd, 65536)
                    except OSError:  # EIO: the pty has no other end left
                        data = b""
                    if data:
                        self.readers[key.fd] += data
                    else:
                        sel.unregister(key.fd)
                        open_fds.discard(key.fd)

    def close(self, problems: list[str]) -> None:
        """Put fds 0-2 and the ``sys`` streams back; collect the output."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        for stream in (sys.stdin, sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        sys.stdin, sys.stdout, sys.stderr = self.saved_streams
        for fd, saved in self.saved.items():
            os.dup2(saved, fd)
            os.close(saved)
        if self.feeder is not None:
            self.feeder.join(DEADLINE)
        self.drainer.join(DEADLINE)
        if self.drainer.is_alive():
            problems.append("something still holds acphost's stdout or stderr open")
            self.stop.set()
            self.drainer.join()
        for fd in self.readers:
            os.close(fd)


def _default_loop_left() -> str | None:
    if asyncio.events._get_running_loop() is not None:
        return "an event loop is still running"
    local = getattr(asyncio.get_event_loop_policy(), "_local", None)
    loop = getattr(local, "_loop", None)
    if loop is not None and not loop.is_closed():
        return "an event loop was left open as the default loop"
    return None


def run_main(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    stdin: str | bytes | IO[bytes] | None = None,
    terminal: tuple[int, int] | None = None,
) -> Result:
    """Run ``acphost ARGV`` in this process: :func:`acphost.cli.main` as the console script does.

    Args:
        argv: the arguments after ``acphost``.
        cwd: the working directory of the run.
        env: the whole environment of the run (default: this process's).
        stdin: what stdin holds, on a pipe closed after it (None: ``/dev/null``;
            on a terminal, typed before the run starts); or an open file that
            is stdin itself.
        terminal: ``(columns, rows)``: fds 0-2 are one pty of that size.

    Returns:
        The exit code and what was written on stdout and stderr.

    """
    from acphost.cli import main

    threads_before = set(threading.enumerate())
    children_before = _children()
    gc_enabled = gc.isenabled()
    problems: list[str] = []
    code: int | None = None
    failure: BaseException | None = None
    with (
        process_state_kept(),
        _environment(dict(os.environ if env is None else env), cwd, ["acphost", *argv]),
    ):
        streams = _Streams(stdin, terminal)
        try:
            try:
                code = main(list(argv))
            except SystemExit as exc:  # as the interpreter turns it into an exit code
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    code = 1
            except BaseException as exc:
                failure = exc
        finally:
            streams.close(problems)
    left = _children() - children_before
    end = time.monotonic() + DEADLINE
    while any(_alive(pid) for pid in left) and time.monotonic() < end:
        time.sleep(0.01)
    for pid in left:
        if _alive(pid):
            problems.append(f"child process {pid} outlived the run (killed)")
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    end = time.monotonic() + DEADLINE
    while (extra := set(threading.enumerate()) - threads_before) and time.monotonic() < end:
        time.sleep(0.01)
    if extra:
        problems.append(f"threads outlived the run: {sorted(t.name for t in extra)}")
    loop_left = _default_loop_left()
    if loop_left is not None:
        problems.append(loop_left)
    if gc.isenabled() != gc_enabled:
        problems.append("the garbage collector was left " + ("on" if gc.isenabled() else "off"))
        (gc.enable if gc_enabled else gc.disable)()
    out, err = bytes(streams.out), bytes(streams.err)
    shown = f"\n--- stdout ---\n{out.decode(errors='replace')}\n--- stderr ---\n{err.decode(errors='replace')}"
    if failure is not None:
        failure.add_note(f"acphost {list(argv)} raised{shown}")
        raise failure
    if problems:
        raise AssertionError(f"acphost {list(argv)}: " + "; ".join(problems) + shown)
    assert code is not None
    return Result(code, _text(out), _text(err), out, err)
