"""acphost -s NAME: the host serves only this user's acphost, never a sandboxed agent.

Through real processes: a host started by a real run, and clients connecting
to its real socket (one confined by acphost's own sandbox).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from acphost.config import AgentSpec
from acphost.launch import named_places
from tests.support.named import Named

#: A client that knows the socket's path but not the token: it tries every request.
_PROBE = r"""
import json, socket, sys
path, token_file = sys.argv[1], sys.argv[2]
try:
    open(token_file).read()
    print("TOKEN READ")
except OSError:
    print("token unreadable")
requests = [
    {"v": 1, "op": "status"},
    {"v": 1, "op": "cancel_running"},
    {"v": 1, "op": "status", "token": "guess"},
    {"v": 1, "op": "prompt", "prompt": [{"type": "text", "text": "echo injected"}],
     "options": {"no_such_option": 1}, "keep_alive": 600},
]
for request in requests:
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(20)
            s.connect(path)
            s.sendall(json.dumps(request).encode() + b"\n")
            answer = s.makefile("rb").readline()
            print("answer", json.loads(answer).get("t") if answer else "closed",
                  answer.decode(errors="replace").strip())
    except OSError as exc:
        print("unreachable", type(exc).__name__)
"""


@pytest.fixture
def named(workspace):
    runs = Named(workspace)
    yield runs
    left = runs.close()
    assert not left, f"processes left behind: {left}"


def _probe(place, preexec=None, env=None):
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, place.socket, os.path.join(place.folder, "token")],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=preexec,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _refused_only(lines):
    answers = [line for line in lines if line.startswith(("answer", "unreachable"))]
    assert len(answers) == 4, lines
    for line in answers:
        if line.startswith("answer"):
            kind = line.split()[1]
            assert kind == "refused", line
            assert "no_such_option" not in line, line  # nothing said about the options


def test_a_client_without_the_token_is_refused_and_a_real_run_is_served(named, workspace):
    done = named.run("-a", "demo", "-s", "tok", "--keep-alive", "30s", "echo one")
    assert done.returncode == 0 and done.stdout == "one\n", done.stderr
    (place,) = named_places(str(workspace))
    assert os.stat(os.path.join(place.folder, "token")).st_mode & 0o777 == 0o600
    lines = _probe(place)
    _refused_only(lines)
    assert "TOKEN READ" in lines  # the user's own process may read it, but did not send it
    row = named.status("tok")
    assert row["state"] == "idle" and row["keep_alive"] == 30.0  # the probe changed nothing
    done = named.run("-a", "demo", "-s", "tok", "--keep-alive", "0.3s", "echo two")
    assert done.returncode == 0 and done.stdout == "two\n", done.stderr
    named.wait_gone()


def test_a_process_in_acphosts_sandbox_cannot_use_a_named_session(named, workspace, monkeypatch):
    from acphost.host import build_confinement, sandbox_support

    if sandbox_support()[0] == 0:
        pytest.skip("no Landlock here")
    # A state folder too deep for a socket's path: the socket is in /tmp, which
    # the sandbox does not hide; the token stays in the (denied) state folder.
    deep = workspace.parent / ("s" * 60) / ("t" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(deep))
    done = named.run("-a", "demo", "-s", "conf", "--keep-alive", "30s", "echo one")
    assert done.returncode == 0, done.stderr
    (place,) = named_places(str(workspace))
    assert not place.socket.startswith(place.folder)
    other = workspace.parent / "other"
    other.mkdir()
    sandbox = build_confinement(AgentSpec(name="p", command="/bin/sh", source="t"), str(other))
    try:
        lines = _probe(place, sandbox.preexec(), {**os.environ, **sandbox.env})
    finally:
        sandbox.close()
    assert "TOKEN READ" not in lines, lines  # acphost's state folder is denied
    _refused_only(lines)
    assert named.status("conf")["keep_alive"] == 30.0
    done = named.run("-a", "demo", "-s", "conf", "--keep-alive", "0.3s", "echo two")
    assert done.returncode == 0 and done.stdout == "two\n", done.stderr
    named.wait_gone()
