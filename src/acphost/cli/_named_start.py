"""Starting a named session's host: a detached process handed the name's locked lock file.

The run that took the lock starts ``python -m acphost.cli._named_host`` in
its own session (no terminal, no signal meant for the run), its stdout and
stderr in the name's ``host.log`` (the previous host's kept as
``host.log.1``), with the locked file and a pipe it says ``ok`` on once it
listens (or an exit code and what to print). Its stdin
carries the run's flags, then closes: nothing of the user's terminal or
pipes stays open in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

from ..launch import EXIT_ERROR

if TYPE_CHECKING:
    from ..launch import NamedPlace

__all__ = ["HostFailed", "start_host"]


class HostFailed(Exception):
    """The host could not start: its exit code and the lines to print."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text


async def start_host(place: NamedPlace, lock_fd: int, config: dict[str, Any]) -> None:
    """Start the name's host, handing it the locked lock file; return once it listens.

    Raises:
        HostFailed: it could not start (its exit code and what to print).

    """
    read_end, write_end = os.pipe()
    # The dead host's log says why it died: keep it, once, beside the new one.
    with contextlib.suppress(FileNotFoundError):
        os.replace(place.log, place.log + ".1")
    log = os.open(place.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        host = _spawn_host(lock_fd, write_end, log)
    finally:
        os.close(write_end)
        os.close(log)
    try:
        assert host.stdin is not None
        host.stdin.write(json.dumps(config, default=list).encode())
        host.stdin.close()
        loop = asyncio.get_running_loop()
        said = await loop.run_in_executor(None, _read_all, read_end)
    finally:
        os.close(read_end)
    if said.startswith(b"ok\n"):
        return
    code_text, _, text = said.decode("utf-8", "replace").partition("\n")
    code = int(code_text) if code_text.isdigit() else EXIT_ERROR
    raise HostFailed(code, text or f"the session host stopped as it started (see {place.log})")


def _spawn_host(lock_fd: int, ready_fd: int, log: int) -> subprocess.Popen[bytes]:
    """The host's process: its own session, the lock and the ready pipe, nothing else of ours."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "acphost.cli._named_host",
            f"--lock-fd={lock_fd}",
            f"--ready-fd={ready_fd}",
        ],
        stdin=subprocess.PIPE,
        stdout=log,
        stderr=log,
        pass_fds=(lock_fd, ready_fd),
        start_new_session=True,  # no terminal, and no signal meant for the run reaches it
    )


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
