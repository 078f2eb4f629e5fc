"""Named sessions in tests: real ``acphost`` processes, and no process left behind.

Every process of a named session (the runs, the detached host, the agent)
runs with the test's workspace as its working directory, so the processes
left behind are found by pid through ``/proc/PID/cwd``, whatever their
process group: the host and the agent each lead their own.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.cli.runner import environment
from tests.support.waiting import eventually_sync


def processes_in(folder: Path) -> dict[int, str]:
    """The live processes whose working directory is ``folder``: pid -> command line."""
    found: dict[int, str] = {}
    real = os.path.realpath(folder)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if os.readlink(f"/proc/{entry}/cwd") != real:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as f:
                if f.read().rpartition(")")[2].split()[0] == "Z":
                    continue  # a zombie is gone, only not yet reaped by its parent
        except OSError:
            continue
        found[int(entry)] = cmdline
    return found


def agents_in(folder: Path) -> list[int]:
    """The demo agents running in ``folder``."""
    return [pid for pid, cmd in processes_in(folder).items() if "acphost.agents.demo" in cmd]


def hosts_in(folder: Path) -> list[int]:
    """The named-session hosts running in ``folder``."""
    return [pid for pid, cmd in processes_in(folder).items() if "_named_host" in cmd]


class Named:
    """Start ``acphost`` processes in a workspace; end and check them at the end of a test."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.runs: list[subprocess.Popen[str]] = []

    def start(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """``python -m acphost ARGS`` in the workspace, its output piped."""
        proc = subprocess.Popen(
            [sys.executable, "-m", "acphost", *args],
            cwd=self.workspace,
            env=environment(self.workspace, env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.runs.append(proc)
        return proc

    def run(
        self, *args: str, timeout: float = 60, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``python -m acphost ARGS`` to its end."""
        proc = self.start(*args, env=env)
        out, err = proc.communicate(timeout=timeout)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def status(self, name: str) -> dict:
        """``acphost status -s NAME -o json``: the session's row."""
        row = self.row(name)
        assert row is not None, f"no named session {name}"
        return row

    def row(self, name: str) -> dict | None:
        """The session's ``status`` row, or None before its first run made it."""
        done = self.run("-a", "demo", "status", "-s", name, "-o", "json")
        assert done.returncode == 0, done.stderr
        rows = json.loads(done.stdout)
        assert len(rows) <= 1, rows
        return rows[0] if rows else None

    def wait_status(self, name: str, what: str, condition) -> dict:
        """Poll ``status`` until ``condition(row)`` holds (the deadline fails the test)."""
        seen: list[dict] = []

        def holds() -> bool:
            row = self.row(name)
            if row is None or row.get("state") == "stopped":
                return False
            seen.append(row)
            return bool(condition(row))

        eventually_sync(holds, what=what, timeout=30)
        return seen[-1]

    def wait_gone(self, *, timeout: float = 30) -> None:
        """Wait until nothing runs in the workspace: host and agent stopped (the keep-alive ended).

        Call it once the test's runs have ended: they run there too.
        """
        eventually_sync(
            lambda: not processes_in(self.workspace),
            what="the named session's host and agent to stop",
            timeout=timeout,
        )

    def close(self) -> list[str]:
        """End what is left (runs, then hosts and agents by pid); say what was left."""
        for proc in self.runs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
        with contextlib.suppress(AssertionError):  # a process that exits takes a moment
            eventually_sync(lambda: not processes_in(self.workspace), timeout=5)
        left = processes_in(self.workspace)
        for pid in left:
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)
        return [f"{pid}: {cmd}" for pid, cmd in left.items()]
