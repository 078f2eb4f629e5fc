"""The places, lock and wire of named sessions (real files, sockets and processes)."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys

import pytest

from acphost.launch import (
    NamedUnavailable,
    UsageProblem,
    connect_named,
    named_places,
    parse_duration,
    place_of,
    receive_message,
    send_message,
)
from acphost.launch._named import try_lock
from tests.support.waiting import eventually


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("0", 0.0), ("30s", 30.0), ("5m", 300.0), ("1h", 3600.0), ("250ms", 0.25), ("0.3s", 0.3)],
)
def test_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "-1s", "5 minutes", "1d", "9999h"])
def test_bad_durations_are_usage_problems(text):
    with pytest.raises(UsageProblem, match="--keep-alive"):
        parse_duration(text)


def test_a_place_is_private_and_named_places_finds_it_by_workspace(workspace, tmp_path):
    place = place_of("demo", str(workspace), "review")
    for folder in (place.folder, os.path.dirname(place.folder)):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert place_of("demo", str(workspace), "other", make=False).folder != place.folder
    assert place_of("other-agent", str(workspace), "review", make=False).folder != place.folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert [p.name for p in named_places(str(workspace))] == ["review"]
    assert named_places(str(elsewhere)) == []
    assert [p.name for p in named_places(str(workspace), "demo")] == ["review"]
    assert named_places(str(workspace), "other-agent") == []


def test_a_folder_that_is_not_private_is_refused(workspace):
    place = place_of("demo", str(workspace), "open")
    os.chmod(place.folder, 0o755)
    with pytest.raises(UsageProblem, match="not a private folder"):
        place_of("demo", str(workspace), "open")


def test_a_socket_path_too_long_for_sun_path_goes_to_a_private_temporary_folder(
    workspace, monkeypatch, tmp_path
):
    deep = tmp_path / ("x" * 80)
    deep.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(deep))
    place = place_of("demo", str(workspace), "long")
    assert len(place.socket.encode()) <= 100
    folder = os.path.dirname(place.socket)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700 and os.stat(folder).st_uid == os.getuid()


def test_the_lock_is_held_by_one_and_freed_when_its_holder_dies(workspace):
    place = place_of("demo", str(workspace), "lock")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
            place.lock,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        assert try_lock(place) is None
    finally:
        holder.kill()
        holder.wait()
    fd = try_lock(place)  # the kernel freed it with its holder: no pid to guess from
    assert fd is not None
    os.close(fd)


async def test_racing_connections_start_exactly_one_host(workspace):
    """Ten runs find no host at once: one takes the lock and starts it, all connect to it."""
    place = place_of("demo", str(workspace), "race")
    starts = []
    servers = []

    async def serve(reader, writer):
        message = await receive_message(reader)
        send_message(writer, {"t": "echo", "got": message})
        await writer.drain()
        writer.close()

    async def start(fd):
        starts.append(fd)
        await asyncio.sleep(0.05)  # a host takes a while to listen: the others poll meanwhile
        servers.append(await asyncio.start_unix_server(serve, path=place.socket))

    async def one(i):
        reader, writer = await connect_named(place, start, timeout=10)
        send_message(writer, {"op": "hello", "i": i})
        answer = await receive_message(reader)
        writer.close()
        return answer["got"]["i"]

    try:
        got = await asyncio.gather(*(one(i) for i in range(10)))
    finally:
        for server in servers:
            server.close()
    assert sorted(got) == list(range(10))
    assert len(starts) == 1


async def test_a_held_lock_with_no_socket_is_reported_after_the_timeout(workspace):
    place = place_of("demo", str(workspace), "stuck")
    fd = try_lock(place)
    assert fd is not None

    async def start(fd):
        raise AssertionError("the lock is held: nobody else starts a host")

    try:
        with pytest.raises(NamedUnavailable, match="holds its lock but does not answer"):
            await connect_named(place, start, timeout=0.2)
    finally:
        os.close(fd)


async def test_a_malformed_line_ends_the_conversation(workspace):
    reader = asyncio.StreamReader()
    reader.feed_data(b"[1, 2]\n")
    assert await receive_message(reader) is None
    reader = asyncio.StreamReader()
    reader.feed_data(b'{"t": "cut')
    reader.feed_eof()
    assert await receive_message(reader) is None


class _View:
    """A run's view as the launch layer sees one: it says the updates' kinds as text."""

    def __init__(self, send):
        self.send = send

    def started(self, session, budgeted):
        self.send({"t": "o", "d": "started\n"})

    def update(self, update):
        self.send({"t": "o", "d": f"{update.session_update}\n"})

    def child(self, child, update):
        pass

    def frame(self, direction, line):
        pass

    def note(self, text):
        self.send({"t": "e", "d": text})

    def close(self):
        pass

    def end(self, report):
        return report["code"]

    def failed(self, report):
        return report["code"]


async def test_a_host_taking_over_serves_the_dead_hosts_queue_in_its_order(workspace, monkeypatch):
    """The runs reconnect in the wrong order; their prompts still start in their first order."""
    from acphost.config import AgentSpec
    from acphost.content import text
    from acphost.launch import HostHooks, NamedHost, RunOptions
    from acphost.launch._named import write_json

    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    place = place_of("demo", str(workspace), "takeover")
    write_json(place.queue_file, {"waiting": [7, 8], "next": 9})
    demo = AgentSpec(name="demo", command=sys.executable, args=("-m", "acphost.agents.demo"))
    hooks = HostHooks(
        options=lambda sid: RunOptions(demo, str(workspace), confine=False),
        fingerprint={},
        end_report=lambda result, session, interrupted, budgeted: {"code": 0},
        error_report=lambda exc: {"code": 1, "text": str(exc)},
        budget=lambda limits: None,
        view=lambda request, send: _View(send),
        label=lambda prompt: prompt,
    )
    host = NamedHost(place, hooks, keep_alive=60.0)
    host.takeover_grace = 60.0  # ample under any load: the wait ends when ticket 7 is back
    fd = try_lock(place)
    listening = asyncio.Event()
    serving = asyncio.ensure_future(host.serve(listening.set))
    started = []

    async def run(word, ticket):
        reader, writer = await asyncio.open_unix_connection(place.socket)
        send_message(
            writer,
            {
                "op": "prompt",
                "prompt": [text(f"echo {word}").to_wire()],
                "ticket": ticket,
                "token": place.read_token(),
            },
        )
        while (message := await receive_message(reader)) is not None:
            if message["t"] == "queued":
                tickets[word] = message["ticket"]
            elif message["t"] == "start":
                started.append(word)
            elif message["t"] == "exit":
                break
        writer.close()
        return message

    tickets = {}
    try:
        await listening.wait()
        eight = asyncio.ensure_future(run("eight", 8))
        # The agent is up and its session open before the run of ticket 7 is back.
        await eventually(
            lambda: "eight" in tickets and host.session is not None,
            what="ticket 8 queued in the open session",
        )
        seven = asyncio.ensure_future(run("seven", 7))
        await eventually(lambda: "seven" in tickets, what="ticket 7 queued")
        fresh = asyncio.ensure_future(run("fresh", None))
        answers = await asyncio.wait_for(asyncio.gather(eight, seven, fresh), 30)
        host.stop()  # as SIGTERM does
        await asyncio.wait_for(serving, 30)
    finally:
        serving.cancel()
        os.close(fd)
    assert [(a["t"], a["code"]) for a in answers] == [("exit", 0)] * 3
    assert started == ["seven", "eight", "fresh"]
    assert tickets == {"eight": 8, "seven": 7, "fresh": 9}
    assert not os.path.exists(place.socket)
