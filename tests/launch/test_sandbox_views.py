"""The agent's private view, through real processes: the user's terminals and sockets stay out of reach.

The scripted agent (``probe_agent.py``) tries to open a terminal of the
test's, opens one of its own, connects to sockets by their path and runs
git; the same run with ``--no-sandbox`` shows each attempt reaches its
target without the sandbox, so the refusal is the sandbox's doing.
"""

from __future__ import annotations

import json
import os
import pty
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from acphost.host import sandbox_support
from tests.support.sandboxing import private_view

HERE = Path(__file__).resolve().parent
ABI, WHY = sandbox_support()


PRIVATE, NO_VIEW = private_view()
needs_view = pytest.mark.skipif(
    ABI == 0 or not PRIVATE, reason=f"no Landlock or no private view here: {WHY or NO_VIEW}"
)


@pytest.fixture
def place(tmp_path):
    """A home with an ssh folder, a runtime folder with an agent's socket, a workspace."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    runtime = tmp_path / "run"
    (runtime / "ssh").mkdir(parents=True, mode=0o700)
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    env = {
        "HOME": str(home),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_RUNTIME_DIR": str(runtime),
        "ACPHOST_SETTINGS": "",
        "PROBE_OUTSIDE": str(outside),
        "PROBE_HISTORY": os.devnull,
    }
    return {"ws": ws, "home": home, "runtime": runtime, "env": env, "tmp": tmp_path}


def acphost(place, *flags: str, env: dict[str, str] | None = None, wrap: tuple[str, ...] = ()):
    agent = shlex.join([sys.executable, str(HERE / "probe_agent.py")])
    argv = [sys.executable, "-m", "acphost", "--agent-command", agent, "--approve-all"]
    return subprocess.run(
        [*wrap, *argv, "--no-history", "-o", "simple", *flags, "probe"],
        cwd=place["ws"],
        env={**os.environ, **place["env"], **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def outcomes(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def pending(fd: int) -> bytes:
    """What the terminal's other side has to read now (nothing: b"")."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 1024)
    except BlockingIOError:
        return b""


@needs_view
def test_the_agent_opens_terminals_of_its_own_but_never_the_users(place):
    parent, child = pty.openpty()  # a terminal of the user's: the agent must not reach it
    env = {"PROBE_PTY": os.ttyname(child)}
    try:
        got = outcomes(acphost(place, "-v", env=env))
        assert got["their_terminal"] == "ENOENT"  # its /dev/pts holds only its own
        assert got["own_terminal"] == "ok"
        assert pending(parent) == b""
        got = outcomes(acphost(place, "--no-sandbox", env=env))
        assert got["their_terminal"] == "ok" and got["own_terminal"] == "ok"
        assert b"LEAKED" in pending(parent)
    finally:
        os.close(parent)
        os.close(child)


def _listen(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.listen(8)
    return sock


@needs_view
def test_the_users_sockets_are_hidden_and_their_variables_removed(place):
    agent_sock = place["runtime"] / "ssh" / "agent.sock"
    control = place["home"] / ".ssh" / "cm-host"  # an ssh ControlMaster socket
    bus = place["runtime"] / "bus"
    listeners = [_listen(p) for p in (agent_sock, control, bus)]
    env = {
        "SSH_AUTH_SOCK": str(agent_sock),
        "GPG_AGENT_INFO": f"{place['runtime']}/gnupg/S.gpg-agent:0:1",
        "DBUS_SESSION_BUS_ADDRESS": f"unix:path={bus}",
        "PROBE_SOCKET": os.pathsep.join(map(str, (agent_sock, control, bus))),
        "PROBE_VARIABLES": "1",
    }
    try:
        done = acphost(place, "-v", env=env)
        got = outcomes(done)
        assert got["socket"] == "ENOENT,ENOENT,ENOENT"
        assert got["agent_variables"] == "" and got["terminal_variables"] == ""
        assert got["write_outside"] == "EACCES"  # Landlock still holds
        shown = "\n".join(line for line in done.stderr.splitlines() if "sandbox:" in line)
        assert "other terminals: private" in shown
        hidden = next(line for line in shown.splitlines() if "sockets by path: hidden in" in line)
        assert str(place["runtime"]) in hidden and "~/.ssh" in hidden
        assert "its environment has no SSH_AUTH_SOCK" in shown
        got = outcomes(acphost(place, "--no-sandbox", env=env))
        assert got["socket"] == "ok,ok,ok"
        assert got["agent_variables"] == "SSH_AUTH_SOCK,GPG_AGENT_INFO,DBUS_SESSION_BUS_ADDRESS"
        assert got["terminal_variables"] == "SSH_AUTH_SOCK"
    finally:
        for sock in listeners:
            sock.close()


@needs_view
def test_a_workspace_inside_the_runtime_folder_keeps_it_visible(place):
    ws = place["runtime"] / "project"
    ws.mkdir()
    sock = _listen(place["runtime"] / "ssh" / "agent.sock")
    env = {"PROBE_SOCKET": str(place["runtime"] / "ssh" / "agent.sock")}
    try:
        got = outcomes(acphost({**place, "ws": ws}, env=env))
    finally:
        sock.close()
    assert got["write_inside"] == "ok"
    assert got["socket"] == "ok"  # not hidden: it holds the workspace


@needs_view
@pytest.mark.skipif(shutil.which("git") is None, reason="no git here")
def test_git_runs_in_the_private_view(place):
    got = outcomes(acphost(place, env={"PROBE_GIT": "1"}))
    assert got["git"] == "ok"
    assert (place["ws"] / ".git" / "HEAD").is_file()


def _refusing_namespaces() -> tuple[str, ...] | None:
    """A wrapper under which a child's unshare is refused (ENOSPC), or None when none can be had."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    script = (
        "echo 0 > /proc/sys/user/max_mnt_namespaces && "
        'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"'
    )
    wrap = (unshare, "-Ur", "/bin/sh", "-c", script, "sh")
    done = subprocess.run([*wrap, "/bin/true"], capture_output=True, timeout=30, check=False)
    return wrap if done.returncode == 0 else None


REFUSING = _refusing_namespaces()


@pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")
@pytest.mark.skipif(REFUSING is None, reason="cannot make a user namespace to refuse them in")
def test_where_the_kernel_refuses_namespaces_the_agent_runs_under_landlock_and_says_so(place):
    assert REFUSING is not None
    env = {"SSH_AUTH_SOCK": "/nowhere/agent.sock", "PROBE_VARIABLES": "1"}
    done = acphost(place, "-v", env=env, wrap=REFUSING)
    got = outcomes(done)
    assert got["write_outside"] == "EACCES" and got["agent_variables"] == ""
    shown = "\n".join(line for line in done.stderr.splitlines() if "sandbox:" in line)
    assert "other terminals: reachable (the kernel refused a user or mount namespace" in shown
    assert "sockets by path: reachable" in shown


def test_where_namespaces_are_off_the_description_says_the_terminals_are_reachable(place):
    if ABI == 0:
        pytest.skip(f"no Landlock here: {WHY}")
    code = (
        "import sys\n"
        "from acphost.host import _namespace\n"
        "_namespace.namespace_support = lambda: (False, 'no user namespaces: switched off')\n"
        "from acphost.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "doctor", "-a", "demo"],
        cwd=place["ws"],
        env={**os.environ, **place["env"], "ACPHOST_DEMO_STEP": "0"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "other terminals: reachable (no user namespaces: switched off)" in done.stdout
    assert "sockets by path: reachable (no user namespaces: switched off)" in done.stdout


def _bound(source: Path, target: Path) -> tuple[str, ...] | None:
    """A wrapper that runs its command with ``source`` bound at ``target`` (own namespaces)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
    wrap = (unshare, "-Ur", "--mount", "/bin/sh", "-c", script, "sh", str(source), str(target))
    done = subprocess.run([*wrap, "/bin/true"], capture_output=True, timeout=30, check=False)
    return wrap if done.returncode == 0 else None


@pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")
def test_a_denied_folder_bound_elsewhere_is_denied_there_too(place):
    key = place["home"] / ".ssh" / "id_ed25519"
    key.write_text("KEY\n")
    alias = place["tmp"] / "alias"
    alias.mkdir()
    wrap = _bound(place["home"], alias)
    if wrap is None:
        pytest.skip("cannot bind a folder in a user and mount namespace of the test's own here")
    env = {"PROBE_READ": os.pathsep.join([str(alias / ".ssh" / "id_ed25519"), str(key)])}
    got = outcomes(acphost(place, env=env, wrap=wrap))
    through_bind, direct = got["read"].split(",")
    assert through_bind in ("EACCES", "ENOENT") and direct in ("EACCES", "ENOENT")
    assert outcomes(acphost(place, "--no-sandbox", env=env, wrap=wrap))["read"] == "ok,ok"


@pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")
def test_a_terminal_bound_outside_dev_pts_is_not_readable(place):
    """As a container's /dev/console is the user's terminal, bound from the host's devpts."""
    parent, child = pty.openpty()
    console = place["tmp"] / "console"
    console.write_text("")
    try:
        wrap = _bound(Path(os.ttyname(child)), console)
        if wrap is None:
            pytest.skip("cannot bind a terminal in a user and mount namespace of the test's own")
        env = {"PROBE_OPEN": str(console)}
        assert outcomes(acphost(place, env=env, wrap=wrap))["open"] == "EACCES"
        assert outcomes(acphost(place, "--no-sandbox", env=env, wrap=wrap))["open"] == "ok"
    finally:
        os.close(parent)
        os.close(child)
