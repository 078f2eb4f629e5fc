"""A scripted ACP agent that tries, on its own, what a sandbox must stop (stdlib only).

On each prompt it tries, without asking the host: writing inside its
workspace and outside it (``PROBE_OUTSIDE``), writing in ``$TMPDIR``,
reading ``~/.ssh/id_ed25519`` and acphost's history (``PROBE_HISTORY``),
running a child that writes outside; then it asks the host for a terminal
(``terminal/create``) whose command writes outside. It answers with one
JSON object: each probe's outcome, ``"ok"`` or the errno's name
(``"EACCES"``).

Given ``PROBE_PTY`` (a terminal of the test's), it also tries to open that
terminal and write to it, then opens a pseudo-terminal of its own; given
``PROBE_SOCKET`` (listening Unix sockets, joined by ``os.pathsep``), it
connects to each; given
``PROBE_READ`` (paths joined by ``os.pathsep``), it reads each; given
``PROBE_OPEN``, it opens that file to read (a terminal: never read); given
``PROBE_GIT``, it runs ``git init`` and ``git commit`` in its workspace; given
``PROBE_VARIABLES``, it reports which of the user's agent variables
(``SSH_AUTH_SOCK``, ...) it and its terminal were given.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import pty
import socket
import subprocess
import sys
import tempfile

_ids = itertools.count(1000)


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def request(method: str, params: dict) -> dict:
    """Ask the host and wait for its answer (nothing else arrives meanwhile in these tests)."""
    ident = next(_ids)
    send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("id") == ident and "method" not in message:
            if "error" in message:
                raise RuntimeError(message["error"].get("message", "error"))
            return message["result"]
    raise SystemExit(0)


def outcome(action) -> str:
    try:
        action()
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc))
    return "ok"


def write(path: str) -> None:
    with open(path, "w") as f:
        f.write("probe\n")


def read(path: str) -> None:
    with open(path, "rb") as f:
        f.read()


CHILD = (
    "import errno, sys\n"
    "try:\n"
    "    open(sys.argv[1], 'w').write('child\\n')\n"
    "    print('ok')\n"
    "except OSError as exc:\n"
    "    print(errno.errorcode[exc.errno])\n"
)


AGENT_VARIABLES = ("SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS")


def their_terminal(path: str) -> None:
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        os.write(fd, b"LEAKED\n")
    finally:
        os.close(fd)


def own_terminal() -> None:
    parent, child = pty.openpty()
    try:
        os.write(parent, b"mine\n")
        if os.read(child, 16) != b"mine\n":
            raise OSError(errno.EIO, "the pty lost what was written")
    finally:
        os.close(parent)
        os.close(child)


def connect(path: str) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(path)


def git(cwd: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (
        ["init", "-q"],
        ["-c", "user.name=p", "-c", "user.email=p@e", "commit", "-q", "--allow-empty", "-m", "p"],
    ):
        done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=False)
        if done.returncode != 0:
            raise OSError(errno.EIO, done.stderr.decode(errors="replace")[-200:])


def views(result: dict[str, str], cwd: str) -> None:
    """The private view's probes: another terminal, an own one, a socket by path, git."""
    if "PROBE_PTY" in os.environ:  # before an own pty exists: none of ours may answer
        result["their_terminal"] = outcome(lambda: their_terminal(os.environ["PROBE_PTY"]))
        result["own_terminal"] = outcome(own_terminal)
    if "PROBE_SOCKET" in os.environ:
        paths = os.environ["PROBE_SOCKET"].split(os.pathsep)
        result["socket"] = ",".join(outcome(lambda p=p: connect(p)) for p in paths)
    if "PROBE_READ" in os.environ:
        paths = os.environ["PROBE_READ"].split(os.pathsep)
        result["read"] = ",".join(outcome(lambda p=p: read(p)) for p in paths)
    if "PROBE_OPEN" in os.environ:  # opened to read, never read (a terminal would wait)
        flags = os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK
        result["open"] = outcome(lambda: os.close(os.open(os.environ["PROBE_OPEN"], flags)))
    if "PROBE_GIT" in os.environ:
        result["git"] = outcome(lambda: git(cwd))
    if "PROBE_VARIABLES" in os.environ:
        result["agent_variables"] = ",".join(v for v in AGENT_VARIABLES if v in os.environ)


def probes(session_id: str, cwd: str) -> dict[str, str]:
    outside = os.environ["PROBE_OUTSIDE"]
    home = os.path.expanduser("~")
    result = {
        "write_inside": outcome(lambda: write(os.path.join(cwd, "inside.txt"))),
        "write_outside": outcome(lambda: write(os.path.join(outside, "agent.txt"))),
        "write_tmpdir": outcome(lambda: write(os.path.join(tempfile.gettempdir(), "probe-t.txt"))),
        "read_ssh": outcome(lambda: read(os.path.join(home, ".ssh", "id_ed25519"))),
        "read_history": outcome(lambda: read(os.environ["PROBE_HISTORY"])),
        "read_workspace": outcome(lambda: read(os.path.join(cwd, "inside.txt"))),
    }
    child = subprocess.run(
        [sys.executable, "-c", CHILD, os.path.join(outside, "child.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    result["child_write_outside"] = child.stdout.strip() or child.stderr.strip()[-80:]
    views(result, cwd)
    target = os.path.join(outside, "terminal.txt")
    created = request(
        "terminal/create",
        {
            "sessionId": session_id,
            "command": "/bin/sh",
            "args": [
                "-c",
                f"echo terminal > '{target}' && echo ok; echo \"sock=${{SSH_AUTH_SOCK-}}\" >&2",
            ],
            "cwd": cwd,
        },
    )
    terminal = created["terminalId"]
    request("terminal/wait_for_exit", {"sessionId": session_id, "terminalId": terminal})
    output = request("terminal/output", {"sessionId": session_id, "terminalId": terminal})
    request("terminal/release", {"sessionId": session_id, "terminalId": terminal})
    lines = output["output"].splitlines()
    sock = "".join(line[5:] for line in lines if line.startswith("sock="))
    text = "\n".join(line for line in lines if not line.startswith("sock="))
    result["terminal_write_outside"] = (
        "ok" if text.strip() == "ok" else "EACCES" if "Permission denied" in text else text
    )
    if "PROBE_VARIABLES" in os.environ:
        result["terminal_variables"] = "SSH_AUTH_SOCK" if sock.strip() else ""
    return result


def main() -> None:
    cwd = os.getcwd()
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []},
                }
            )
        elif method == "session/new":
            cwd = params.get("cwd", cwd)
            send({"jsonrpc": "2.0", "id": ident, "result": {"sessionId": "probe-1"}})
        elif method == "session/prompt":
            text = json.dumps(probes(params["sessionId"], cwd), sort_keys=True)
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {
                        "sessionId": params["sessionId"],
                        "update": {
                            "sessionUpdate": "agent_message_chunk",
                            "content": {"type": "text", "text": text},
                        },
                    },
                }
            )
            send({"jsonrpc": "2.0", "id": ident, "result": {"stopReason": "end_turn"}})
        elif ident is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "error": {"code": -32601, "message": "Method not found"},
                }
            )


if __name__ == "__main__":
    main()
