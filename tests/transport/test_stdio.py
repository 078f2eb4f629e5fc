"""Process hygiene of the stdio transport: env, cwd, stderr drain, exit, close, host death."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from acphost import AgentStartError
from acphost.safetext import CUT
from acphost.transport import StdioTransport


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); look at its state.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


STUBBORN = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen([sys.executable, "-c",
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(100)"])
    print(f"{os.getpid()} {child.pid}", flush=True)
    sys.stdin.read()          # EOF arrives...
    time.sleep(100)           # ...and it keeps running, like several real agents
""")


async def test_env_overlay_cwd_and_no_leak(tmp_path):
    os.environ.pop("ACPHOST_TEST_OVERLAY", None)
    t = await StdioTransport.spawn(
        [sys.executable, "-c", "import os; print(os.environ['ACPHOST_TEST_OVERLAY'], os.getcwd(), os.environ.get('PATH') is not None)"],
        env={"ACPHOST_TEST_OVERLAY": "yes"}, cwd=tmp_path,
    )
    out = b""
    while chunk := await t.receive():
        out += chunk
    await t.close()
    assert out.decode().split() == ["yes", str(tmp_path), "True"]
    assert "ACPHOST_TEST_OVERLAY" not in os.environ


async def test_chatty_stderr_is_drained_and_tail_kept():
    code = "import sys\nfor i in range(20000): sys.stderr.write(f'noise line {i}\\n')\nprint('done', flush=True)"
    t = await StdioTransport.spawn([sys.executable, "-c", code])
    out = await asyncio.wait_for(t.receive(), 10)
    info = await t.exit_info(5)
    await t.close()
    assert out.strip() == b"done"
    assert info.returncode == 0
    assert info.stderr_tail.splitlines()[-1] == "noise line 19999"
    kept = t.stderr_tail(1000).splitlines()
    assert len(kept) <= 201 and kept[0] == CUT  # a bounded ring, and the mark of what it left out


async def test_close_kills_a_stubborn_agent_and_its_children():
    t = await StdioTransport.spawn([sys.executable, "-c", STUBBORN], close_grace=0.3)
    line = await asyncio.wait_for(t.receive(), 10)
    agent_pid, child_pid = map(int, line.split())
    await t.close()
    assert wait_dead(agent_pid) and wait_dead(child_pid)
    assert t.returncode == -signal.SIGKILL


async def test_children_left_behind_by_a_clean_exit_are_ended():
    code = ("import subprocess, sys; c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(100)']);"
            " print(c.pid, flush=True); sys.stdin.read()")
    t = await StdioTransport.spawn([sys.executable, "-c", code], close_grace=1.0)
    child = int((await asyncio.wait_for(t.receive(), 10)).split()[0])
    await t.close()
    assert t.returncode == 0 and wait_dead(child)


async def test_missing_program_and_bad_cwd(tmp_path):
    with pytest.raises(AgentStartError, match="not found"):
        await StdioTransport.spawn(["/nonexistent/agent"])
    with pytest.raises(AgentStartError, match="does not exist"):
        await StdioTransport.spawn([sys.executable, "-c", "pass"], cwd=tmp_path / "nope")
    with pytest.raises(AgentStartError, match="empty"):
        await StdioTransport.spawn([])


def test_agent_dies_when_the_host_is_killed_outright(tmp_path):
    host = textwrap.dedent("""
        import asyncio, sys
        from acphost.transport import StdioTransport
        async def main():
            t = await StdioTransport.spawn([sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); time.sleep(100)"])
            print((await t.receive()).decode().strip(), flush=True)
            await asyncio.sleep(100)
        asyncio.run(main())
    """)
    proc = subprocess.Popen([sys.executable, "-c", host], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    agent_pid = int(proc.stdout.readline())
    assert alive(agent_pid)
    proc.kill()  # SIGKILL: no cleanup code runs in the host
    proc.wait()
    assert wait_dead(agent_pid), "the agent outlived a SIGKILLed host"


async def test_unread_output_pauses_the_pipe_and_nothing_is_lost():
    code = ("import sys\nout = sys.stdout.buffer\nfor i in range(160):\n"
            "    out.write(bytes([65 + i % 26]) * 65536)\nout.flush()\nsys.stderr.write('wrote all\\n')")
    t = await StdioTransport.spawn([sys.executable, "-c", code])
    io = t._io
    deadline = time.monotonic() + 10
    while not io._reading_paused:  # nobody reads: the pipe must be paused
        assert time.monotonic() < deadline, "reading never paused"
        await asyncio.sleep(0.01)
    assert io._unread <= 2 * 1024 * 1024  # bounded, though 10 MB are on their way
    received = bytearray()
    while chunk := await t.receive():
        received += chunk
    assert len(received) == 160 * 65536
    assert all(received[i * 65536] == 65 + i % 26 for i in range(160))
    info = await t.exit_info(5)
    await t.close()
    assert info.returncode == 0 and info.stderr_tail == "wrote all"


async def test_stderr_lines_reach_the_callback_even_when_it_fails():
    seen = []

    def callback(line):
        seen.append(line)
        raise RuntimeError("callback bug")

    t = await StdioTransport.spawn([sys.executable, "-c", "import sys; sys.stderr.write('a\\r\\nb\\nno newline')"])
    t.on_stderr = callback
    assert t.on_stderr is callback
    info = await t.exit_info(10)
    await t.close()
    assert info.stderr_tail == "a\nb\nno newline"
    assert seen[-1] == "no newline"


async def test_writing_to_an_agent_that_exited_raises_connection_error():
    t = await StdioTransport.spawn([sys.executable, "-c", "pass"])
    assert await t.receive() == b""
    await t.exit_info(5)
    with pytest.raises(ConnectionError):
        for _ in range(100):  # the broken pipe shows on a write or on drain
            t.send(b"x" * 65536)
            await t.drain()
    await t.close()
    with pytest.raises(ConnectionError):
        t.send(b"{}\n")


async def test_a_program_that_is_not_executable_is_named(tmp_path):
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho hi\n")  # no x bit
    with pytest.raises(AgentStartError, match="not executable"):
        await StdioTransport.spawn([str(script)])
    with pytest.raises(AgentStartError, match="not executable"):
        await StdioTransport.spawn([str(tmp_path)])  # a directory
