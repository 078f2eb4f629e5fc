"""Wall time of the command line, as whole processes, against baselines in the same run.

Three measures, each a median of ``--runs`` runs after a warm-up:

1. **Start-up**: ``acphost -o simple -a demo hello`` (two Python processes:
   ours and the demo agent) against two bare ``python -c pass``; target
   <= 4x. ``acphost --help`` against ``python -c "import asyncio"`` is shown
   too, and a minimal official-SDK client running the same prompt.
2. **Flood to a file**: ``acphost -o simple`` streaming ``bench/flood_agent.py``'s
   100,000 ``agent_message_chunk`` updates into a file, against an official
   SDK client writing the same text to a file. Start-up is cancelled out:
   each side is timed with N chunks and with 0, and the difference compared.
   Target: acphost >= 5x the SDK.
3. **A terminal**: ``acphost -o text`` streaming 10,000 chunks with stdout on
   a pty (80x24, drained as fast as it comes) against the same run piped to
   a file. Target: the pty run within 2x of the piped one.

    python bench/bench_cli.py [--runs N] [--only startup|flood|tty]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

SDK_PROMPT = r"""
import asyncio, sys
import acp

class Client:
    async def session_update(self, session_id, update, **kw):
        content = getattr(update, "content", None)
        text = getattr(content, "text", None)
        if text:
            sys.stdout.write(text)
    async def request_permission(self, *a, **kw):
        return None

async def main():
    argv = sys.argv[1:]
    async with acp.spawn_agent_process(Client(), *argv) as (conn, proc):
        await conn.initialize(protocol_version=1)
        s = await conn.new_session(cwd="/tmp", mcp_servers=[])
        await conn.prompt(session_id=s.session_id, prompt=[acp.text_block(sys.argv[-1])])
    sys.stdout.flush()

asyncio.run(main())
"""


def median_ms(run: Callable[[], float], runs: int) -> float:
    run()  # warm-up (bytecode, page cache)
    return statistics.median(run() for _ in range(runs)) * 1000


def piped(cmd: list[str], env: dict[str, str], out: str = os.devnull) -> Callable[[], float]:
    def run() -> float:
        with open(out, "w") as sink:
            start = time.perf_counter()
            subprocess.run(cmd, stdout=sink, stderr=subprocess.DEVNULL, env=env, check=False)
            return time.perf_counter() - start

    return run


def on_pty(cmd: list[str], env: dict[str, str]) -> Callable[[], float]:
    def run() -> float:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

        def drain() -> None:
            while True:
                try:
                    if not os.read(master, 65536):
                        break
                except OSError:
                    break

        reader = threading.Thread(target=drain)
        reader.start()
        start = time.perf_counter()
        subprocess.run(
            cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, check=False
        )
        elapsed = time.perf_counter() - start
        os.close(slave)
        reader.join()
        os.close(master)
        return elapsed

    return run


# A flood agent whose N updates are built once, before any run, into a file:
# the runs then differ only in what the clients do (the agent reads and
# writes bytes), and N=0 cancels out the start-up of both sides.
PREBUILT_AGENT = r"""
import json, sys
updates = open(sys.argv[1], "rb").read()
out = sys.stdout.buffer
for raw in sys.stdin.buffer:
    msg = json.loads(raw)
    if "id" not in msg or "method" not in msg:
        continue
    method, rid = msg["method"], msg["id"]
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
    elif method == "session/new":
        result = {"sessionId": "flood-1"}
    elif method == "session/prompt":
        out.write(updates)
        result = {"stopReason": "end_turn"}
    else:
        result = {}
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n")
    out.flush()
"""


def flood_agent(directory: str, n: int) -> list[str]:
    """The argv of a prebuilt flood agent of ``n`` chunks (see ``bench/flood_agent.py``)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from flood_agent import build_updates  # noqa: PLC0415

    data = os.path.join(directory, f"updates-{n}.jsonl")
    with open(data, "wb") as f:
        f.write(b"".join(build_updates(n, "chunks")))
    script = os.path.join(directory, "prebuilt_agent.py")
    with open(script, "w") as f:
        f.write(PREBUILT_AGENT)
    return [PY, script, data]


def flood_settings(directory: str, n: int) -> tuple[str, list[str]]:
    """A settings file naming the prebuilt flood agent ``flood``, and its argv."""
    argv = flood_agent(directory, n)
    path = os.path.join(directory, f"flood-{n}.json")
    with open(path, "w") as f:
        json.dump({"agent_servers": {"flood": {"command": argv[0], "args": argv[1:]}}}, f)
    return path, argv


def acphost(*args: str) -> list[str]:
    return [PY, "-m", "acphost", *args]


def startup(runs: int, env: dict[str, str], sdk: str) -> None:
    demo = [PY, "-m", "acphost.agents.demo"]
    rows = {
        "python -c pass": [PY, "-c", "pass"],
        "python -c 'import asyncio'": [PY, "-c", "import asyncio"],
        "acphost --help": acphost("--help"),
        "acphost -o simple -a demo hello": acphost("-o", "simple", "-a", "demo", "hello"),
        "official SDK client, same prompt": [PY, sdk, *demo, "hello"],
    }
    ms = {name: median_ms(piped(cmd, env), runs) for name, cmd in rows.items()}
    print("## Start-up (median ms)\n")
    for name, value in ms.items():
        print(f"{value:8.1f} ms  {name}")
    run_ratio = ms["acphost -o simple -a demo hello"] / (2 * ms["python -c pass"])
    help_ratio = ms["acphost --help"] / ms["python -c 'import asyncio'"]
    print(f"\nacphost prompt / 2 x python -c pass   = {run_ratio:.2f}x (target <= 4x)")
    print(f"acphost --help / import asyncio      = {help_ratio:.2f}x")


def flood(runs: int, env: dict[str, str], sdk: str, n: int) -> None:
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "out.txt")
    ms = {}
    for count in (n, 0):
        settings, agent = flood_settings(tmp, count)
        ours = acphost("--settings", settings, "-a", "flood", "-o", "simple", "go")
        theirs = [PY, sdk, *agent, "go"]
        ms[("acphost", count)] = median_ms(piped(ours, env, out), runs)
        ms[("sdk", count)] = median_ms(piped(theirs, env, out), runs)
    print(f"\n## {n:,} chunks streamed to a file (median ms)\n")
    for side in ("acphost", "sdk"):
        total, base = ms[(side, n)], ms[(side, 0)]
        print(f"{side:8} {total:8.1f} ms with {n:,}, {base:7.1f} ms with 0: {total - base:8.1f} ms")
    ratio = (ms[("sdk", n)] - ms[("sdk", 0)]) / (ms[("acphost", n)] - ms[("acphost", 0)])
    print(f"\nSDK / acphost streaming time = {ratio:.2f}x (target >= 5x)")


def tty(runs: int, env: dict[str, str], n: int) -> None:
    tmp = tempfile.mkdtemp()
    settings, _ = flood_settings(tmp, n)
    cmd = acphost("--settings", settings, "-a", "flood", "-o", "text", "go")
    term_env = {**env, "TERM": "xterm-256color"}
    pty_ms = median_ms(on_pty(cmd, term_env), runs)
    pipe_ms = median_ms(piped(cmd, term_env, os.path.join(tmp, "out.txt")), runs)
    print(f"\n## -o text, {n:,} chunks (median ms)\n")
    print(f"{pty_ms:8.1f} ms  on a pty (80x24)")
    print(f"{pipe_ms:8.1f} ms  piped to a file")
    print(f"\npty / piped = {pty_ms / pipe_ms:.2f}x (target <= 2x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--only", choices=("startup", "flood", "tty"))
    parser.add_argument("--flood-n", type=int, default=100_000)
    parser.add_argument("--tty-n", type=int, default=10_000)
    args = parser.parse_args()
    subprocess.run(
        [PY, "-m", "compileall", "-q", str(ROOT / "src")], check=True, stdout=subprocess.DEVNULL
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ACPHOST_DEMO_STEP"] = "0"
    env["XDG_CONFIG_HOME"] = tempfile.mkdtemp()
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(SDK_PROMPT)
        sdk = f.name
    if args.only in (None, "startup"):
        startup(args.runs, env, sdk)
    if args.only in (None, "flood"):
        flood(max(3, args.runs // 3), env, sdk, args.flood_n)
    if args.only in (None, "tty"):
        tty(max(3, args.runs // 3), env, args.tty_n)


if __name__ == "__main__":
    main()
