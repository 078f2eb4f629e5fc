"""Run ``acphost`` on a real pseudo-terminal, and read what a terminal would show.

:class:`PtyRun` starts the command with stdin, stdout and stderr on a pty
that is its controlling terminal (so Ctrl-C typed into it is a real SIGINT
to the foreground process group, as in a shell). :class:`PtyMain` runs the
real ``main()`` in the test's process with fds 0-2 on a pty, for a run that
is only read, never typed into. :func:`screen` replays the
bytes written to it through a small terminal model (cursor moves, line
erases, carriage returns) and returns the lines that stay visible.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time

from tests.support.in_process import run_main

# Run in the child, a session leader (start_new_session) whose fd 0 is the pty:
# make the pty its controlling terminal, then become `python -m acphost`.
_WITH_TERMINAL = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, '-m', 'acphost', *sys.argv[1:]])"
)


class PtyRun:
    """``python -m acphost ARGS`` on a pty of ``cols`` x ``rows``.

    The terminal is the one the test means, whatever the runner's is:
    ``term`` is its ``TERM`` (None: no ``TERM`` at all), and the size is set
    both on the pty and in ``COLUMNS``/``LINES``.
    """

    def __init__(self, args, *, cwd, env, cols=80, rows=24, term="xterm-256color"):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = _terminal_env(env, cols, rows, term)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WITH_TERMINAL, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.output = bytearray()
        self.eof = False

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every holder of the pty's other end has exited
            data = b""
        if data:
            self.output += data
        else:
            self.eof = True

    def read_until(self, needle: bytes, *, start: int = 0, timeout: float = 30.0) -> int:
        """Read until ``needle`` appears after offset ``start``; return where it ends."""
        deadline = time.monotonic() + timeout
        while True:
            at = self.output.find(needle, start)
            if at >= 0:
                return at + len(needle)
            if self.eof or time.monotonic() > deadline:
                raise AssertionError(
                    f"{needle!r} never appeared; the terminal got:\n{bytes(self.output)!r}"
                )
            self._read(0.2)

    def drain(self) -> None:
        """Take what the terminal has written so far, without waiting."""
        while select.select([self.master], [], [], 0)[0] and not self.eof:
            self._read(0)

    def write(self, data: bytes) -> None:
        """Type ``data`` on the terminal."""
        os.write(self.master, data)

    def wait(self, timeout: float = 30.0) -> int:
        """Read everything until the process has exited; return its exit code."""
        deadline = time.monotonic() + timeout
        while not self.eof and time.monotonic() < deadline:
            self._read(0.2)
            if self.proc.poll() is not None:
                self._read(0.05)  # what is left in the pty buffer
                if not select.select([self.master], [], [], 0)[0]:
                    break
        code = self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        os.close(self.master)
        return code

    def text(self) -> str:
        """Everything written so far, decoded."""
        return bytes(self.output).decode("utf-8", "replace")


def _terminal_env(env, cols, rows, term):
    env = {**env, "COLUMNS": str(cols), "LINES": str(rows)}
    env.pop("TERM", None)
    if term is not None:
        env["TERM"] = term
    return env


class PtyMain:
    """``acphost ARGS`` run in process on a pty of ``cols`` x ``rows``, to its end.

    The same terminal as :class:`PtyRun` describes (``TERM``, the size on
    the pty and in ``COLUMNS``/``LINES``) and the same reading interface,
    but nothing can be typed while it runs and the pty is not a controlling
    terminal: for Ctrl-C or a question asked on ``/dev/tty``, use
    :class:`PtyRun`.
    """

    def __init__(self, args, *, cwd, env, cols=80, rows=24, term="xterm-256color"):
        env = _terminal_env(env, cols, rows, term)
        self.result = run_main(args, cwd=cwd, env=env, terminal=(cols, rows))
        self.output = bytearray(self.result.stdout_bytes)

    def wait(self) -> int:
        """The exit code (the run has ended already)."""
        return self.result.code

    def text(self) -> str:
        """Everything written, decoded."""
        return bytes(self.output).decode("utf-8", "replace")


_CSI = re.compile(r"\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def screen(data: bytes | str, cols: int = 80) -> list[str]:
    """The lines a terminal of width ``cols`` would show, scrollback included."""
    text = data if isinstance(data, str) else bytes(data).decode("utf-8", "replace")
    lines: list[list[str]] = [[]]
    row = col = 0

    def put(ch: str) -> None:
        nonlocal row, col
        if col >= cols:
            row, col = row + 1, 0
        while len(lines) <= row:
            lines.append([])
        line = lines[row]
        line.extend(" " * (col + 1 - len(line)))
        line[col] = ch
        col += 1

    pos = 0
    while pos < len(text):
        m = _CSI.match(text, pos)
        if m:
            pos = m.end()
            params, final = m.group(1), m.group(2)
            n = int(params) if params and params.isdigit() else None
            if final == "A":
                row = max(0, row - (n or 1))
            elif final == "K":
                while len(lines) <= row:
                    lines.append([])
                if n == 2:
                    lines[row] = []
                else:
                    del lines[row][col:]
            elif final == "J":
                del lines[row + 1 :]
                del lines[row][col:]
            elif final == "G":
                col = (n or 1) - 1
            continue
        ch = text[pos]
        pos += 1
        if ch == "\r":
            col = 0
        elif ch == "\n":
            row, col = row + 1, 0
            while len(lines) <= row:
                lines.append([])
        elif ch == "\b":
            col = max(0, col - 1)
        elif ch >= " ":
            put(ch)
    return ["".join(line).rstrip() for line in lines]
