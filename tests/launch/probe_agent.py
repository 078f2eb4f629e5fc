"""A scripted ACP agent that tries, on its own, what a sandbox must stop (stdlib only).

On each prompt it tries, without asking the host: writing inside its
workspace and outside it (``PROBE_OUTSIDE``), writing in ``$TMPDIR``,
reading ``~/.ssh/id_ed25519`` and acphost's history (``PROBE_HISTORY``),
running a child that writes outside; then it asks the host for a terminal
(``terminal/create``) whose command writes outside. It answers with one
JSON object: each probe's outcome, ``"ok"`` or the errno's name
(``"EACCES"``).
"""

from __future__ import annotations

import errno
import itertools
import json
import os
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
    target = os.path.join(outside, "terminal.txt")
    created = request(
        "terminal/create",
        {
            "sessionId": session_id,
            "command": "/bin/sh",
            "args": ["-c", f"echo terminal > '{target}' && echo ok"],
            "cwd": cwd,
        },
    )
    terminal = created["terminalId"]
    request("terminal/wait_for_exit", {"sessionId": session_id, "terminalId": terminal})
    output = request("terminal/output", {"sessionId": session_id, "terminalId": terminal})
    request("terminal/release", {"sessionId": session_id, "terminalId": terminal})
    text = output["output"]
    result["terminal_write_outside"] = (
        "ok" if text.strip() == "ok" else "EACCES" if "Permission denied" in text else text
    )
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
