"""The host's tools over the stdio bridge: real bridge processes, spawned as an agent spawns them.

Each test starts :class:`HostTools`, takes the ``McpServer`` entry it lists
for ``session/new`` and runs exactly that command with that environment,
then speaks MCP over the process's pipes. The host behind it is a recording
fake for the protocol, or the real host bridge (jail, policy, terminals).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from acphost.client._host_bridge import HostBridge
from acphost.config import AgentSpec
from acphost.host import (
    AllowAll,
    HostConfig,
    PermissionRequest,
    Verdict,
    _mcpserve,
    _mcpsocket,
    build_confinement,
    sandbox_support,
)
from acphost.host._mcpserve import HostTools
from acphost.redact import REDACTED, Redactor

DEADLINE = 20.0
SESSION = "sess-1"


class Bridge:
    """A bridge process started from a ``McpServerStdio`` entry, spoken to as an MCP client."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 100

    @classmethod
    async def spawn(
        cls, entry: dict[str, Any], env: dict[str, str] | None = None, **kwargs: Any
    ) -> Bridge:
        assert os.path.isabs(entry["command"])
        overlay = {e["name"]: e["value"] for e in entry["env"]}
        process = await asyncio.create_subprocess_exec(
            entry["command"],
            *entry["args"],
            env={**os.environ, **overlay, **(env or {})},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **kwargs,
        )
        return cls(process)

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), DEADLINE)
        assert line, "the bridge closed its stdout"
        decoded: dict[str, Any] = json.loads(line)
        return decoded

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        answer = await self.receive()
        assert answer["id"] == self.next_id, answer
        return answer

    async def initialize(self, version: str = "2025-06-18") -> dict[str, Any]:
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "test-agent", "version": "1"},
            },
        )
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    async def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        answer = await self.request("tools/call", {"name": name, "arguments": arguments})
        result: dict[str, Any] = answer["result"]
        return result

    async def finish(self) -> tuple[int, str]:
        """Wait for the exit; return the status and stderr."""
        assert self.process.stderr is not None
        stderr = await asyncio.wait_for(self.process.stderr.read(), DEADLINE)
        code = await asyncio.wait_for(self.process.wait(), DEADLINE)
        return code, stderr.decode()

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()


@pytest.fixture
async def bridges() -> AsyncIterator[list[Bridge]]:
    started: list[Bridge] = []
    yield started
    for bridge in started:
        bridge.kill()
        await bridge.process.wait()


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.reached = asyncio.Event()
        self.block = False

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        self.calls.append((method, params))
        self.reached.set()
        if method == "fs/read_text_file":
            return {"content": f"text of {params['path']}"}
        if method == "terminal/create":
            return {"terminalId": "t-1"}
        if method == "terminal/wait_for_exit" and self.block:
            await asyncio.Event().wait()
        if method == "terminal/output":
            return {"output": "", "exitStatus": {"exitCode": 0}}
        return {}


# -- the protocol, over a real bridge ---------------------------------------------------


async def test_an_agent_starts_the_listed_bridge_and_calls_a_tool(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    host = Recorder()
    async with HostTools(host, SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers(protocol=2)
        assert entry["type"] == "stdio" and entry["name"] == "acphost"
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        init = await bridge.initialize()
        assert init["result"]["protocolVersion"] == "2025-06-18"
        listed = await bridge.request("tools/list")
        names = [t["name"] for t in listed["result"]["tools"]]
        assert names == ["read_text_file", "write_text_file", "run_command"]
        result = await bridge.tool("read_text_file", path="notes.txt")
        assert result["content"][0]["text"] == f"text of {tmp_path}/notes.txt"
        assert host.calls == [
            ("fs/read_text_file", {"sessionId": SESSION, "path": f"{tmp_path}/notes.txt"})
        ]
        # The agent closes the bridge's stdin: it ends cleanly, saying nothing.
        assert bridge.process.stdin is not None
        bridge.process.stdin.close()
        assert await bridge.finish() == (0, "")


def test_the_v1_entry_has_no_type_and_the_v2_entry_has_stdio(tmp_path: Path) -> None:
    async def run() -> None:
        async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
            [v1] = tools.servers(protocol=1)
            [v2] = tools.servers(protocol=2)
            assert "type" not in v1 and v2["type"] == "stdio"
            assert {k: v for k, v in v2.items() if k != "type"} == v1
            assert set(v1) == {"name", "command", "args", "env"}

    asyncio.run(run())


async def test_the_socket_is_private_and_removed_on_close(tmp_path: Path) -> None:
    tools = HostTools(Recorder(), SESSION, cwd=str(tmp_path))
    async with tools:
        [entry] = tools.servers()
        path = next(e["value"] for e in entry["env"] if e["name"] == "ACPHOST_MCP_SOCKET")
        folder = os.path.dirname(path)
        assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
        assert folder.startswith(os.path.realpath(tempfile.gettempdir()))
        assert len(path.encode()) < 104  # fits sun_path everywhere
    assert not os.path.lexists(path) and not os.path.lexists(folder)


async def test_a_wrong_token_is_refused_and_the_right_one_still_works(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    host = Recorder()
    async with HostTools(host, SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        wrong = await Bridge.spawn(entry, {"ACPHOST_MCP_TOKEN": "not-the-token"})
        bridges.append(wrong)
        code, stderr = await wrong.finish()
        assert code == 1
        assert stderr.count("\n") == 1 and "refused" in stderr and "Traceback" not in stderr
        good = await Bridge.spawn(entry)
        bridges.append(good)
        await good.initialize()
    assert host.calls == []


async def test_another_sessions_token_does_not_open_this_sessions_socket(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    async with (
        HostTools(Recorder(), "a", cwd=str(tmp_path)) as one,
        HostTools(Recorder(), "b", cwd=str(tmp_path)) as two,
    ):
        [first] = one.servers()
        [second] = two.servers()
        token = next(e["value"] for e in second["env"] if e["name"] == "ACPHOST_MCP_TOKEN")
        crossed = await Bridge.spawn(first, {"ACPHOST_MCP_TOKEN": token})
        bridges.append(crossed)
        assert (await crossed.finish())[0] == 1


async def test_a_bridge_started_by_hand_says_what_it_needs(bridges: list[Bridge]) -> None:
    entry = {
        "command": os.path.abspath(sys.executable),
        "args": ["-I", "-S", os.path.abspath(_mcpserve.bridge.__file__)],
        "env": [],
    }
    bridge = await Bridge.spawn(entry, {"ACPHOST_MCP_SOCKET": "", "ACPHOST_MCP_TOKEN": ""})
    bridges.append(bridge)
    code, stderr = await bridge.finish()
    assert code == 1 and stderr.count("\n") == 1 and "ACPHOST_MCP_SOCKET" in stderr


async def test_a_bridge_whose_session_has_ended_says_so(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
    bridge = await Bridge.spawn(entry)
    bridges.append(bridge)
    code, stderr = await bridge.finish()
    assert code == 1 and stderr.count("\n") == 1 and "cannot reach" in stderr


async def test_the_bridge_exits_when_the_host_closes(tmp_path: Path, bridges: list[Bridge]) -> None:
    tools = HostTools(Recorder(), SESSION, cwd=str(tmp_path))
    async with tools:
        [entry] = tools.servers()
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.initialize()
    code, stderr = await bridge.finish()
    assert code == 1
    assert stderr.count("\n") == 1 and "session closed" in stderr


async def test_a_call_in_flight_at_close_is_answered_with_an_error(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    host = Recorder()
    host.block = True
    tools = HostTools(host, SESSION, cwd=str(tmp_path))
    async with tools:
        [entry] = tools.servers()
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.initialize()
        await bridge.send(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {"name": "run_command", "arguments": {"command": "sleep 100"}},
            }
        )
        while [m for m, _ in host.calls][-1:] != ["terminal/wait_for_exit"]:
            host.reached.clear()
            await asyncio.wait_for(host.reached.wait(), DEADLINE)
    answer = await bridge.receive()
    assert answer["id"] == 9 and "closed this session" in answer["error"]["message"]
    # The command's terminal was released, as after any call.
    assert [m for m, _ in host.calls][-1] == "terminal/release"
    assert (await bridge.finish())[0] == 1


async def test_a_cancelled_call_gets_no_answer_and_its_terminal_is_released(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    host = Recorder()
    host.block = True
    async with HostTools(host, SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.initialize()
        call = {"name": "run_command", "arguments": {"command": "sleep 100"}}
        await bridge.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": call})
        while [m for m, _ in host.calls][-1:] != ["terminal/wait_for_exit"]:
            host.reached.clear()
            await asyncio.wait_for(host.reached.wait(), DEADLINE)
        await bridge.send(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}
        )
        # The next answer is the ping's: the cancelled call was never answered.
        assert (await bridge.request("ping"))["result"] == {}
        assert [m for m, _ in host.calls][-1] == "terminal/release"


async def test_a_message_over_the_bound_closes_the_connection(
    tmp_path: Path, bridges: list[Bridge], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_mcpserve, "MAX_MESSAGE_BYTES", 4096)
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.initialize()
        await bridge.send(
            {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "y" * 8000}}
        )
        answer = await bridge.receive()
        assert answer["error"]["code"] == -32600 and "4096 bytes" in answer["error"]["message"]
        code, stderr = await bridge.finish()
        assert code == 1 and "session closed" in stderr


async def test_a_call_before_the_session_is_bound_is_a_tool_error(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    host = Recorder()
    async with HostTools(host, None, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.initialize()
        early = await bridge.tool("read_text_file", path="a")
        assert early["isError"] is True and "not open yet" in early["content"][0]["text"]
        tools.bind(SESSION)
        assert "isError" not in await bridge.tool("read_text_file", path="a")
    assert [m for m, _ in host.calls] == ["fs/read_text_file"]


def test_the_bridge_imports_nothing_of_acphost_nor_asyncio(tmp_path: Path) -> None:
    """It starts in milliseconds: standard library modules only, no site."""
    script = os.path.abspath(_mcpserve.bridge.__file__)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", script],
        capture_output=True,
        text=True,
        env={**os.environ, "ACPHOST_MCP_SOCKET": "", "ACPHOST_MCP_TOKEN": ""},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    assert "socket" in imported
    assert not [m for m in imported if m.startswith(("acphost", "asyncio", "site", "json"))]


# -- the real host: jail, policy, terminals ---------------------------------------------------


class RejectOutsideSrc:
    """A policy that allows reads and commands, and writes only under ``src/``."""

    async def decide(self, request: PermissionRequest) -> Verdict:
        if request.operation == "fs_write" and not all("/src/" in p for p in request.paths):
            return Verdict.reject("writes outside src/ need review (test rule)")
        return Verdict.allow("test rule")


@pytest.fixture
async def real_host(tmp_path: Path) -> AsyncIterator[tuple[HostBridge, Path]]:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    host = HostBridge(
        HostConfig(allow_write=True, permissions=RejectOutsideSrc()),
        SimpleNamespace(observed=False),  # type: ignore[arg-type]
    )
    session = SimpleNamespace(cwd=str(ws), additional_directories=(), state=None)
    host.attach({SESSION: session})
    yield host, ws
    await host.close()


async def test_through_the_real_host_writes_land_inside_and_are_refused_outside(
    real_host: tuple[HostBridge, Path], bridges: list[Bridge], tmp_path: Path
) -> None:
    host, ws = real_host
    outside = tmp_path / "outside.txt"
    async with HostTools(host.handle, SESSION, cwd=str(ws)) as tools:
        bridge = await Bridge.spawn(tools.servers(protocol=2)[0])
        bridges.append(bridge)
        await bridge.initialize()

        landed = await bridge.tool("write_text_file", path="src/a.py", content="print(1)\n")
        assert "isError" not in landed
        assert (ws / "src" / "a.py").read_text() == "print(1)\n"
        read = await bridge.tool("read_text_file", path=str(ws / "src" / "a.py"))
        assert read["content"][0]["text"] == "print(1)\n"

        # Inside the workspace, but the policy says no: its reason reaches the agent.
        refused = await bridge.tool("write_text_file", path="notes.md", content="x")
        assert refused["isError"] is True
        text = refused["content"][0]["text"]
        assert "permission denied by the host's policy" in text
        assert "writes outside src/ need review (test rule)" in text
        assert not (ws / "notes.md").exists()

        # Outside the workspace: the jail refuses before the policy is asked.
        jailed = await bridge.tool("write_text_file", path="../outside.txt", content="x")
        assert jailed["isError"] is True and "outside" in jailed["content"][0]["text"]
        assert not outside.exists()


async def test_through_the_real_host_a_command_returns_its_output_and_exit_status(
    real_host: tuple[HostBridge, Path], bridges: list[Bridge]
) -> None:
    host, ws = real_host
    (ws / "src" / "data.txt").write_text("hello\n")
    async with HostTools(host.handle, SESSION, cwd=str(ws)) as tools:
        bridge = await Bridge.spawn(tools.servers()[0])
        bridges.append(bridge)
        await bridge.initialize()
        result = await bridge.tool(
            "run_command",
            command="cat data.txt; echo $GREETING; exit 3",
            cwd="src",
            env={"GREETING": "hi"},
        )
        assert result["structuredContent"] == {
            "output": "hello\nhi\n",
            "exitStatus": {"exitCode": 3, "signal": None},
            "truncated": False,
            "timedOut": False,
        }
        argv = await bridge.tool("run_command", command="printf", args=["%s|", "a b", "c"])
        assert argv["structuredContent"]["output"] == "a b|c|"

        slow = await bridge.tool("run_command", command="sleep 30", timeoutSeconds=0.2)
        assert slow["structuredContent"]["timedOut"] is True
        assert slow["structuredContent"]["exitStatus"]["exitCode"] is None

        outside = await bridge.tool("run_command", command="pwd", cwd="/")
        assert outside["isError"] is True


async def test_through_the_real_host_without_write_the_tool_is_absent_and_the_host_refuses(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    host = HostBridge(
        HostConfig(allow_write=False, permissions=AllowAll()), SimpleNamespace(observed=False)
    )  # type: ignore[arg-type]
    host.attach(
        {SESSION: SimpleNamespace(cwd=str(tmp_path), additional_directories=(), state=None)}
    )
    try:
        async with HostTools(host.handle, SESSION, cwd=str(tmp_path), fs_write=False) as tools:
            bridge = await Bridge.spawn(tools.servers()[0])
            bridges.append(bridge)
            await bridge.initialize()
            listed = await bridge.request("tools/list")
            assert "write_text_file" not in [t["name"] for t in listed["result"]["tools"]]
            answer = await bridge.request(
                "tools/call", {"name": "write_text_file", "arguments": {"path": "a", "content": ""}}
            )
            assert answer["error"]["code"] == -32602
    finally:
        await host.close()
    assert not (tmp_path / "a").exists()


ABI, WHY = sandbox_support()


@pytest.fixture
def confined_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    # A short home: a socket made in it must fit sun_path.
    home = Path(tempfile.mkdtemp(prefix="h-", dir="/tmp"))
    (home / ".ssh").mkdir()
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    ws = tmp_path / "ws"
    ws.mkdir()
    yield home, ws
    shutil.rmtree(home)


@pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")
@pytest.mark.parametrize("made", ["before", "after"])
async def test_a_confined_agent_can_start_the_bridge_and_reach_the_host(
    confined_home: tuple[Path, Path],
    bridges: list[Bridge],
    monkeypatch: pytest.MonkeyPatch,
    made: str,
) -> None:
    """The agent's sandbox lets its bridge run and connect, whenever the socket was made.

    "after": the socket's folder is made once the sandbox exists, directly in
    the home folder beside a denied one, where the sandbox lets the agent
    read no new file: connecting to a socket needs no Landlock right.
    """
    home, ws = confined_home
    spec = AgentSpec(name="probe", command="/bin/sh", source="tests")
    host = Recorder()
    tools = HostTools(host, SESSION, cwd=str(ws))
    if made == "before":
        await tools.start()
    sandbox = build_confinement(spec, str(ws))
    try:
        if made == "after":
            monkeypatch.setattr(tempfile, "tempdir", str(home))
            await tools.start()
            folder = os.path.dirname(tools.servers()[0]["env"][0]["value"])
            assert os.path.dirname(folder) == str(home)
            # The agent cannot read a file made there...
            probe = Path(folder, "probe.txt")
            probe.write_text("PROBE\n")
            read = subprocess.run(
                ["cat", str(probe)], preexec_fn=sandbox.preexec(), capture_output=True, timeout=30
            )
            probe.unlink()
            assert read.returncode != 0 and b"PROBE" not in read.stdout
        # ...and yet its bridge connects.
        bridge = await Bridge.spawn(tools.servers()[0], preexec_fn=sandbox.preexec())
        bridges.append(bridge)
        await bridge.initialize()
        assert "isError" not in await bridge.tool("read_text_file", path="a")
    finally:
        sandbox.close()
        await tools.close()
    assert host.calls


SCHEMAS = Path(__file__).resolve().parents[2] / "src" / "acphost" / "schema"


@pytest.mark.parametrize(("protocol", "http"), [(1, False), (2, False), (1, True), (2, True)])
async def test_the_listed_server_validates_against_the_schema_of_its_version(
    tmp_path: Path, protocol: int, http: bool
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    path = SCHEMAS / f"v{protocol}" / "schema.json"
    if not path.exists():
        pytest.skip(f"the v{protocol} schema is not vendored in this checkout")
    schema = json.loads(path.read_text())
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path), http=http) as tools:
        [entry] = tools.servers(protocol=protocol)
    jsonschema.validate(entry, {"$defs": schema["$defs"], "$ref": "#/$defs/McpServer"})


async def test_connections_past_the_cap_are_closed_at_once(
    tmp_path: Path, bridges: list[Bridge], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_mcpserve, "_MAX_CONNECTIONS", 1)
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        first = await Bridge.spawn(entry)
        bridges.append(first)
        await first.initialize()
        second = await Bridge.spawn(entry)
        bridges.append(second)
        code, stderr = await second.finish()
        assert code == 1 and stderr.count("\n") == 1 and "too many connections" in stderr
        assert (await first.request("ping"))["result"] == {}


# -- connections that never show the token ---------------------------------------------


async def idle_connections(path: str, count: int) -> list[tuple[asyncio.StreamReader, Any]]:
    """``count`` connections to the session's socket that send nothing (any local process can)."""
    return [await asyncio.open_unix_connection(path) for _ in range(count)]


async def closed_by_the_host(reader: asyncio.StreamReader) -> bool:
    """Whether the host closed the connection (it answered nothing, for no token was sent)."""
    return await asyncio.wait_for(reader.read(), DEADLINE) == b""


async def test_idle_connections_without_the_token_do_not_keep_the_bridge_out(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    """More idle connections than the cap took every slot: the real bridge was refused."""
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        path = next(e["value"] for e in entry["env"] if e["name"] == "ACPHOST_MCP_SOCKET")
        idle = await idle_connections(path, _mcpserve._MAX_CONNECTIONS + 1)
        # Accepted in the order they connected: the bridge comes after all of them.
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.initialize()
        assert (await bridge.request("ping"))["result"] == {}
        # The oldest idle ones were closed to make room, unanswered.
        assert await closed_by_the_host(idle[0][0])
        for _, writer in idle:
            writer.close()


# Another local process connecting as fast as it can and sending nothing,
# keeping its newest connections open: the slots it takes are re-taken at once.
_FLOOD = """
import collections, socket, sys
kind, where = sys.argv[1:]
family, address = (socket.AF_UNIX, where) if kind == "unix" else (socket.AF_INET, ("127.0.0.1", int(where)))
held, made = collections.deque(), 0
while True:
    s = socket.socket(family, socket.SOCK_STREAM)
    try:
        s.connect(address)
    except OSError:
        s.close()
        continue
    held.append(s)
    made += 1
    if made == 200:
        print("flooding", flush=True)
    if len(held) > 300:
        held.popleft().close()
"""


@contextlib.asynccontextmanager
async def flooding(kind: str, where: str) -> AsyncIterator[None]:
    """Run a process flooding the server with silent connections, from 200 made on."""
    flood = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _FLOOD, kind, where, stdout=subprocess.PIPE
    )
    try:
        assert flood.stdout is not None
        assert await asyncio.wait_for(flood.stdout.readline(), DEADLINE) == b"flooding\n"
        yield
    finally:
        flood.kill()
        await flood.wait()


async def test_a_flood_of_silent_connections_does_not_keep_the_bridge_out(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    """The newest connections evicted the oldest before the bridge's token was read."""
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        path = next(e["value"] for e in entry["env"] if e["name"] == "ACPHOST_MCP_SOCKET")
        async with flooding("unix", path):
            for _ in range(3):
                bridge = await Bridge.spawn(entry)
                bridges.append(bridge)
                await bridge.initialize()
                assert (await bridge.request("ping"))["result"] == {}


async def test_room_is_made_by_closing_silent_connections_before_one_that_has_spoken(
    tmp_path: Path,
) -> None:
    """A client whose token is on its way is not the one closed, though the oldest."""
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        env = {e["name"]: e["value"] for e in entry["env"]}
        token = env["ACPHOST_MCP_TOKEN"].encode()
        reader, writer = await asyncio.open_unix_connection(env["ACPHOST_MCP_SOCKET"])
        writer.write(token[:10])
        await writer.drain()
        idle = await idle_connections(env["ACPHOST_MCP_SOCKET"], _mcpserve._MAX_UNAUTHENTICATED)
        assert await closed_by_the_host(idle[0][0])  # the oldest silent one made room
        writer.write(token[10:] + b"\n")
        assert await asyncio.wait_for(reader.readline(), DEADLINE) == b"ok\n"
        writer.close()
        for _, idle_writer in idle:
            idle_writer.close()


async def test_an_authenticated_bridge_is_never_pushed_out_and_idle_ones_time_out(
    tmp_path: Path, bridges: list[Bridge], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_mcpserve, "_MAX_CONNECTIONS", 1)
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path)) as tools:
        [entry] = tools.servers()
        path = next(e["value"] for e in entry["env"] if e["name"] == "ACPHOST_MCP_SOCKET")
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.initialize()
        idle = await idle_connections(path, 3 * _mcpserve._MAX_UNAUTHENTICATED)
        assert await closed_by_the_host(idle[0][0])
        assert (await bridge.request("ping"))["result"] == {}
        for _, writer in idle:
            writer.close()
        # One that sends no token in time is closed, unanswered.
        monkeypatch.setattr(_mcpserve, "_AUTH_TIMEOUT", 0.05)
        [(reader, writer)] = await idle_connections(path, 1)
        assert await closed_by_the_host(reader)
        writer.close()
        assert (await bridge.request("ping"))["result"] == {}


@pytest.mark.parametrize("http", [False, True])
async def test_the_token_has_the_form_the_redactor_masks_in_any_text(
    tmp_path: Path, http: bool
) -> None:
    """An agent that prints the mcpServers it was given does not leak the token."""
    async with HostTools(Recorder(), SESSION, cwd=str(tmp_path), http=http) as tools:
        [entry] = tools.servers()
    token = tools.secret
    assert re.fullmatch(r"acphost_mcp_[A-Za-z0-9_-]{43}", token)
    assert token in json.dumps(entry)
    for text in (json.dumps(entry), f"my servers: {entry!r}", f"the token is {token}"):
        out = Redactor().redact_text(text)
        assert token not in out and REDACTED in out, out
    assert HostTools(Recorder(), SESSION, cwd=str(tmp_path)).secret != token


async def test_the_bridge_tries_again_when_the_host_closes_it_unanswered(
    tmp_path: Path, bridges: list[Bridge]
) -> None:
    """A host making room among silent connections may close the bridge's: it was fatal."""
    place = _mcpsocket.SocketPlace()
    connections = 0

    async def host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        if await reader.readline() == b"the-token\n" and connections > 1:
            writer.write(b"ok\n")
            writer.write(await reader.readline())  # then echo one line
            await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(host, place.socket)
    place.made()
    try:
        entry = {
            "command": os.path.abspath(sys.executable),
            "args": ["-I", "-S", os.path.abspath(_mcpserve.bridge.__file__)],
            "env": [
                {"name": "ACPHOST_MCP_SOCKET", "value": place.socket},
                {"name": "ACPHOST_MCP_TOKEN", "value": "the-token"},
            ],
        }
        bridge = await Bridge.spawn(entry)
        bridges.append(bridge)
        await bridge.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert await bridge.receive() == {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert connections == 2
    finally:
        server.close()
        place.remove()
