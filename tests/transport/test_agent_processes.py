"""Real agent processes that exit oddly, speak no ACP, or flood requests.

Each test runs a real program over real pipes and checks that nothing it
started is left running (polling /proc with a deadline).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import textwrap
from pathlib import Path

import pytest

from acphost import AcpClient, AgentExited
from acphost.errors import NotAnAcpAgent
from acphost.rpc import Connection
from acphost.transport import StdioTransport
from tests.support.waiting import eventually

INIT = {"protocolVersion": 1, "clientCapabilities": {}}


def live_members(pgid: int) -> list[int]:
    """Processes of the group ``pgid`` that are not zombies."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"




async def ignore(method, params):
    return None


async def connect(argv: list[str], **spawn) -> tuple[StdioTransport, Connection]:
    transport = await StdioTransport.spawn(argv, **spawn)
    conn = Connection(transport, on_request=ignore, on_notification=lambda m, p: None)
    conn.start()
    return transport, conn


def child_pid(tail: str) -> int:
    match = re.search(r"child=(\d+)", tail)
    assert match, tail
    return int(match.group(1))


# -- exit is seen by the process, not by the end of its output -----------------------------


@pytest.mark.parametrize(
    "child",
    ["sleep 1000", "(trap '' TERM; exec sleep 1000)"],
    ids=["child-holds-stdout", "child-ignores-sigterm"],
)
async def test_an_agent_that_exits_while_its_child_holds_stdout_is_detected(child):
    script = f"{child} & echo child=$! >&2; echo 'fatal: no model configured' >&2; exit 3"
    transport, conn = await connect(["sh", "-c", script])
    with pytest.raises(AgentExited) as caught:
        await conn.request("initialize", INIT)  # would wait forever for EOF
    err = caught.value
    assert err.returncode == 3 and "fatal: no model configured" in err.stderr_tail
    sleeper = child_pid(err.stderr_tail)
    await eventually(lambda: not alive(sleeper), what="the child to be ended")
    await eventually(lambda: not live_members(transport.pid), what="the group to be empty")
    await conn.close()


async def test_a_pipe_held_from_outside_the_group_does_not_hang_the_connection():
    # A child that leaves the process group (setsid) escapes the group kill;
    # the connection must still end, on our side of the pipe.
    escape = f"{sys.executable} -c 'import os, time; os.setsid(); time.sleep(1000)'"
    script = f"{escape} & echo child=$! >&2; sleep 0.3; exit 5"
    transport, conn = await connect(["sh", "-c", script])
    try:
        with pytest.raises(AgentExited) as caught:
            await conn.request("initialize", INIT)
        assert caught.value.returncode == 5
        escaped = child_pid(caught.value.stderr_tail)
        assert alive(escaped)  # out of our reach by design; only our end was closed
    finally:
        escaped = child_pid(transport.stderr_tail(100))
        if alive(escaped):
            os.kill(escaped, signal.SIGKILL)
        await conn.close()
    assert not live_members(transport.pid)


async def test_ending_the_orphans_of_an_exited_agent_loses_none_of_its_output():
    # The agent starts a child that holds its stdout, writes 300 KB of
    # updates and exits. The consumer is stalled until the child has been
    # ended; every frame written before the exit still arrives, then the exit.
    frame = b'{"jsonrpc":"2.0","method":"session/update","params":{"n":%d,"pad":"' + b"x" * 300 + b'"}}\n'
    code = textwrap.dedent(f"""
        import subprocess, sys
        subprocess.Popen(["sleep", "1000"])
        out = sys.stdout.buffer
        for i in range(1000):
            out.write({frame!r} % i)
        out.flush()
        sys.exit(7)
    """)
    seen: list[int] = []
    gate = asyncio.Event()

    async def slow(method, params):
        seen.append(params["n"])
        if len(seen) == 1:
            await gate.wait()

    transport = await StdioTransport.spawn([sys.executable, "-c", code])
    conn = Connection(transport, on_request=ignore, on_notification=slow)
    conn.start()
    await eventually(lambda: transport.returncode is not None, what="the agent to exit")
    await eventually(lambda: not live_members(transport.pid), what="its child to be ended")
    gate.set()
    error = await conn.closed
    assert isinstance(error, AgentExited) and error.returncode == 7
    assert seen == list(range(1000))
    await conn.close()


# -- programs that do not speak ACP ---------------------------------------------------------------


@pytest.mark.parametrize(
    "argv,first",
    [
        (["yes"], "y"),
        (["sh", "-c", "while :; do printf '\\033[31mhello from a script\\n'; done"],
         "\\x1b[31mhello from a script"),
        (["sh", "-c", "cat /dev/zero"], "\\x00" * 8),
    ],
    ids=["yes", "chatty-script", "binary"],
)
async def test_a_program_that_is_not_an_acp_agent_fails_fast(argv, first):
    transport, conn = await connect(argv, close_grace=0.2)
    with pytest.raises(NotAnAcpAgent, match="this does not look like an ACP agent") as caught:
        await conn.request("initialize", INIT)
    assert caught.value.first_line.startswith(first)
    assert "\x1b" not in str(caught.value)
    await conn.close()
    assert not live_members(transport.pid)


async def test_the_client_reports_a_program_that_is_not_an_acp_agent():
    children_before = _children()
    with pytest.raises(NotAnAcpAgent, match='the first: "y"'):
        async with AcpClient.start(["yes"], close_grace=0.2):
            pass
    await eventually(lambda: not (_children() - children_before), what="yes to be ended")


def _children() -> set[int]:
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    return {p for p in pids if alive(p)}


# -- a flood of requests over real pipes --------------------------------------------------------

FLOOD = textwrap.dedent("""
    import json, sys
    out = sys.stdout
    sys.stdin.readline()                       # initialize
    out.write(json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}) + "\\n")
    for i in range(500):
        out.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "fs/read_text_file",
                              "params": {"sessionId": "s", "path": f"/f{i}"}}) + "\\n")
    out.flush()
    answered = set()
    while len(answered) < 500:
        answered.add(json.loads(sys.stdin.readline())["id"])
    out.write(json.dumps({"jsonrpc": "2.0", "method": "done", "params": {"answered": len(answered)}}) + "\\n")
    out.flush()
    sys.stdin.read()
""")


async def test_a_request_flood_over_pipes_is_capped_and_fully_answered():
    release = asyncio.Event()
    running = most = 0
    done = asyncio.get_running_loop().create_future()

    async def read_file(method, params):
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await release.wait()
        finally:
            running -= 1
        return {"content": params["path"]}

    def note(method, params):
        if method == "done":
            done.set_result(params["answered"])

    transport = await StdioTransport.spawn([sys.executable, "-c", FLOOD])
    conn = Connection(transport, on_request=read_file, on_notification=note)
    conn.start()
    await conn.request("initialize", INIT)
    await eventually(lambda: conn.request_cap_hits == 1 and running == 64, what="the cap")
    assert conn.requests_in_flight == 64
    release.set()
    assert await done == 500
    assert most == 64 and conn.request_cap_hits >= 1
    await conn.close()
    assert not live_members(transport.pid)
