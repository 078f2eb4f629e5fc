"""A real ``acphost tui --serve`` process for tests: start it, read the address it prints, stop it."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.waiting import eventually_sync

from .conftest import demo_spec

ADDRESS = re.compile(r"http://(?P<host>[^/]+)/\?token=(?P<token>[A-Za-z0-9_-]+)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)

    @property
    def address(self) -> re.Match[str]:
        found = ADDRESS.search("".join(self.out))
        assert found is not None, (self.out, self.err)
        return found

    @property
    def url(self) -> str:
        """The address as printed, token included."""
        return self.address.group()

    @property
    def token(self) -> str:
        return self.address["token"]

    @property
    def port(self) -> int:
        return int(self.address["host"].rsplit(":", 1)[1])

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def _pump(stream, into: list[str]) -> None:
    for line in iter(stream.readline, b""):
        into.append(line.decode("utf-8", "replace"))


def start(
    tmp_path: Path,
    workspace: Path,
    *options: str,
    port: int | None = None,
    spelled: tuple[str, str] = ("--serve", "--port"),
) -> Served:
    """``acphost tui WORKSPACE --serve --port PORT OPTIONS``, once it printed its address or exited.

    ``spelled``: how ``--serve`` and ``--port`` are written (abbreviations).
    """
    env = {**os.environ, **demo_spec(tmp_path).env}
    process = subprocess.Popen(
        [sys.executable, "-m", "acphost", "tui", str(workspace), spelled[0],
         spelled[1], str(port or free_port()), *options],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the server, each page's app and its agent: one group
    )  # fmt: skip
    served = Served(process)
    for stream, into in ((process.stdout, served.out), (process.stderr, served.err)):
        threading.Thread(target=_pump, args=(stream, into), daemon=True).start()
    eventually_sync(
        lambda: ADDRESS.search("".join(served.out)) or process.poll() is not None,
        timeout=60,
        what="the server's address",
    )
    return served
