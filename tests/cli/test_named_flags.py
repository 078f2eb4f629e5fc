"""Flags that mean something only beside another, and what ``status``/``cancel`` may claim.

Through real ``acphost`` processes: a flag that would be ignored is a usage
error (exit 2, one line); ``acphost status`` and ``cancel`` say a session is
stopped only when no host holds its lock, and otherwise say why its live
host gave no answer.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import threading

import pytest

from acphost.launch import named_places, place_of
from tests.cli.runner import spawn
from tests.support.named import Named


@pytest.fixture
def named(workspace):
    runs = Named(workspace)
    yield runs
    left = runs.close()
    assert not left, f"processes left behind: {left}"


def _one_usage_line(done, prog="acphost"):
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: "), done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("flags", "needs"),
    [
        (["--keep-alive", "5m"], "--keep-alive needs --session NAME"),
        (["--keep-alive", "0"], "--keep-alive needs --session NAME"),  # 0 is given too
        (["--no-queue"], "--no-queue needs --session NAME"),
        (["--commands-timeout", "1"], "--commands-timeout needs --list-commands"),
    ],
)
def test_a_flag_given_without_the_flag_it_needs_is_a_usage_error(workspace, flags, needs):
    """They were ignored: the prompt ran cold, the user believing the agent was kept warm."""
    done = spawn(["-a", "demo", *flags, "echo hi"], cwd=workspace)
    assert needs in _one_usage_line(done)
    assert not named_places(str(workspace))  # refused before anything started


def test_the_flags_are_taken_beside_the_flag_they_need(named, workspace):
    done = spawn(["-a", "demo", "--list-commands", "--commands-timeout", "0.1"], cwd=workspace)
    assert done.returncode == 0, done.stderr
    done = named.run("-a", "demo", "-s", "ok", "--no-queue", "--keep-alive", "0", "echo hi")
    assert (done.returncode, done.stdout) == (0, "hi\n"), done.stderr
    named.wait_gone()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tui", "--port", "9000"], "--port needs --serve"),
        (["tui", "--host", "0.0.0.0"], "--host needs --serve"),
        (["tui", "--cwd", ".", "."], "PATH and --cwd both name the workspace"),
    ],
)
def test_the_tui_refuses_serving_flags_without_serve_and_two_workspaces(workspace, argv, message):
    """``tui --port 9000`` started the local TUI and never served anything."""
    done = spawn(["-a", "demo", *argv], cwd=workspace, timeout=30)
    assert message in _one_usage_line(done, "acphost tui")


# -- status and cancel: what is known of the host ------------------------------------


def _status(named, name):
    done = named.run("-a", "demo", "status", "-s", name, "-o", "json")
    (row,) = json.loads(done.stdout)
    return done.returncode, row


def test_a_live_host_that_refuses_or_has_no_token_is_not_called_stopped(named, workspace):
    done = named.run("-a", "demo", "-s", "live", "--keep-alive", "60s", "echo hello")
    assert (done.returncode, done.stdout) == (0, "hello\n"), done.stderr
    code, row = _status(named, "live")
    assert (code, row["state"]) == (0, "idle")
    host = row["host_pid"]
    (place,) = named_places(str(workspace))
    with open(place.token_file) as f:
        token = f.read()
    try:
        # A token that is not the host's: the host refuses every request.
        with open(place.token_file, "w") as f:
            json.dump({"token": "not the host's"}, f)
        code, row = _status(named, "live")
        assert (code, row["state"]) == (1, "unreachable"), row
        assert row["problem"].startswith("its host is alive but refused the request: ")
        assert place.lock in row["problem"] and place.log in row["problem"]
        text = named.run("-a", "demo", "status")
        assert text.returncode == 1
        assert text.stdout.startswith("live (demo): unreachable: its host is alive but refused")
        assert "stopped" not in text.stdout
        done = named.run("-a", "demo", "cancel", "-s", "live")
        assert done.returncode == 1 and done.stdout == "", done.stdout  # not "no turn is running"
        assert done.stderr.startswith("acphost: session live: cannot cancel: its host is alive")
        done = named.run("-a", "demo", "cancel", "-s", "live", "-o", "json")
        answer = json.loads(done.stdout)
        assert done.returncode == 1 and answer["cancelled"] == [] and answer["problems"]
        # A prompt is not served, and the run says so as what it is (not a usage error).
        for _ in range(2):  # and again: nothing changes meanwhile
            done = named.run("-a", "demo", "-s", "live", "echo denied")
            assert (done.returncode, done.stdout) == (1, ""), done.stderr
            assert done.stderr.startswith("acphost: session live cannot be used: "), done.stderr
            assert "--help" not in done.stderr and "stops by itself" in done.stderr
        # No token file at all: said as such (nothing is sent).
        os.unlink(place.token_file)
        code, row = _status(named, "live")
        assert code == 1 and f"its token file {place.token_file} is missing" in row["problem"]
    finally:
        with open(place.token_file, "w") as f:
            f.write(token)
    # The host was alive all along: with its token back, it answers and serves the next run.
    code, row = _status(named, "live")
    assert (code, row["state"], row["host_pid"]) == (0, "idle", host)
    done = named.run("-a", "demo", "-s", "live", "--keep-alive", "0", "echo bye")
    assert (done.returncode, done.stdout) == (0, "bye\n"), done.stderr
    named.wait_gone()
    assert _status(named, "live") == (0, _stopped(place))


def _stopped(place):
    return {"name": place.name, "agent": place.agent, "cwd": place.cwd, "state": "stopped"}


@contextlib.contextmanager
def _holding_lock(place):
    """Hold the name's lock as its host does: a host is alive."""
    fd = os.open(place.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def test_a_held_lock_without_a_listening_host_is_not_called_stopped(named, workspace):
    place = place_of("demo", str(workspace), "held")
    code, row = _status(named, "held")
    assert (code, row) == (0, _stopped(place))  # no host: the lock is free
    with _holding_lock(place):
        code, row = _status(named, "held")
    assert (code, row["state"]) == (1, "unreachable"), row
    assert "has not listened on its socket" in row["problem"] and place.lock in row["problem"]


def test_a_host_that_closes_without_answering_is_not_called_stopped(named, workspace):
    place = place_of("demo", str(workspace), "mute")
    with _holding_lock(place), socket.socket(socket.AF_UNIX) as server:
        with open(os.open(place.token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            json.dump({"token": "the mute host's"}, f)
        server.bind(place.socket)
        server.listen()

        def close_each() -> None:
            with contextlib.suppress(OSError):
                while True:
                    conn, _ = server.accept()
                    conn.recv(65536)
                    conn.close()

        threading.Thread(target=close_each, daemon=True).start()
        code, row = _status(named, "mute")
        assert (code, row["state"]) == (1, "unreachable"), row
        assert "closed the connection without an answer" in row["problem"]
        done = named.run("-a", "demo", "cancel")
        assert done.returncode == 1 and "no turn is running" not in done.stdout
        assert "session mute: cannot cancel: its host is alive but closed" in done.stderr
