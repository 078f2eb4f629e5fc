"""Wall time of the command line, as whole processes, against baselines in the same run.

Three measures, each a median of ``--runs`` runs after a warm-up:

1. **Start-up**: ``acphost -o simple -a demo hello`` (two Python processes:
   ours and the demo agent) against two bare ``python -c pass``; target
   <= 4x. ``acphost --help`` against ``python -c "import asyncio"`` is shown
   too, and a minimal official-SDK client running the same prompt.
   The floor (python + asyncio) is printed beside it, and what the run
   imports beyond ``import asyncio``, by package (``-X importtime``).
2. **Flood to a file**: ``acphost -o simple`` streaming ``bench/flood_agent.py``'s
   100,000 ``agent_message_chunk`` updates into a file, with the history on
   (a temporary store, never the user's) and with ``--no-history``, against
   an official SDK client writing the same text to a file; the three take
   turns. Start-up is cancelled out: each side is timed with N chunks and
   with 0, and the difference compared. Target: acphost >= 5x the SDK.
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


def import_costs(cmd: list[str], env: dict[str, str], runs: int = 5) -> dict[str, int]:
    """Each module's own import time (``-X importtime`` self, µs), the least of ``runs`` runs."""
    best: dict[str, int] = {}
    for _ in range(runs):
        proc = subprocess.run(
            [cmd[0], "-X", "importtime", *cmd[1:]],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True, check=False,
        )
        for line in proc.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, _, name = (part.strip() for part in line[len("import time:") :].split("|"))
            best[name] = min(best.get(name, 1 << 60), int(own))
    return best


def package_of(module: str) -> str:
    """``acphost.cli._run`` -> ``acphost.cli``; ``asyncio.events`` -> ``asyncio``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "acphost" and len(parts) > 1 else parts[0]


def import_table(env: dict[str, str]) -> None:
    """What the prompt run imports beyond the floor (``import asyncio``), by package."""
    run = import_costs(acphost("-o", "simple", "-a", "demo", "hello"), env)
    floor = import_costs([PY, "-c", "import asyncio"], env)
    by_package: dict[str, list[int]] = {}
    for module, us in run.items():
        entry = by_package.setdefault(package_of(module), [0, 0])
        entry[0 if module in floor else 1] += us
    print("\n## Imports of the prompt run (-X importtime, own time, least of 5 runs)\n")
    floor_ms = sum(floor.values()) / 1000
    print(f"{floor_ms:7.1f} ms  the floor: `import asyncio` ({len(floor)} modules)")
    extra = {m: us for m, us in run.items() if m not in floor}
    extra_ms = sum(extra.values()) / 1000
    print(f"{extra_ms:7.1f} ms  the run's other {len(extra)} modules, by package:\n")
    rows = sorted(by_package.items(), key=lambda kv: -kv[1][1])
    for package, (_, beyond) in rows:
        if beyond >= 300:
            print(f"{beyond / 1000:7.1f} ms  {package}")
    rest = sum(beyond for _, (_, beyond) in rows if beyond < 300)
    print(f"{rest / 1000:7.1f} ms  (packages under 0.3 ms each)")


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
    prompt = ms["acphost -o simple -a demo hello"]
    run_ratio = prompt / (2 * ms["python -c pass"])
    help_ratio = ms["acphost --help"] / ms["python -c 'import asyncio'"]
    floor = ms["python -c 'import asyncio'"] + ms["python -c pass"]
    print(f"\nacphost prompt / 2 x python -c pass   = {run_ratio:.2f}x (target <= 4x)")
    print(
        f"the floor (python + asyncio, and a second python for the agent) = {floor:.1f} ms"
        f" = {floor / (2 * ms['python -c pass']):.2f}x two python -c pass;"
        f" the prompt run is {prompt - floor:.1f} ms above it"
    )
    print(f"acphost --help / import asyncio      = {help_ratio:.2f}x")
    import_table(env)


def flood(runs: int, env: dict[str, str], sdk: str, n: int) -> None:
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "out.txt")
    ms = {}
    sides = ("acphost", "acphost --no-history", "sdk")
    for count in (n, 0):
        settings, agent = flood_settings(tmp, count)
        ours = acphost("--settings", settings, "-a", "flood", "-o", "simple", "go")
        commands = {
            "acphost": ours,
            "acphost --no-history": [*ours[:-1], "--no-history", "go"],
            "sdk": [PY, sdk, *agent, "go"],
        }
        # The sides take turns, run by run, so a change in the machine's load
        # falls on all of them alike.
        times: dict[str, list[float]] = {side: [] for side in sides}
        for side in sides:
            piped(commands[side], env, out)()  # warm-up
        for _ in range(runs):
            for side in sides:
                times[side].append(piped(commands[side], env, out)())
        for side in sides:
            ms[(side, count)] = statistics.median(times[side]) * 1000
    print(f"\n## {n:,} chunks streamed to a file (median ms; history in a temporary store)\n")
    streaming = {}
    for side in sides:
        total, base = ms[(side, n)], ms[(side, 0)]
        streaming[side] = total - base
        line = f"{total:8.1f} ms with {n:,}, {base:7.1f} ms with 0: {total - base:7.1f} ms"
        print(f"{side:21} {line}")
    print()
    for side in sides[:2]:
        ratio = streaming["sdk"] / streaming[side]
        print(f"SDK / {side} streaming time = {ratio:.2f}x (target >= 5x)")
    share = 1 - streaming["acphost --no-history"] / streaming["acphost"]
    print(f"the history's share of acphost's streaming time = {share:.0%}")


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
    # The runs record into a history of their own (never the user's), and the
    # demo agent keeps its sessions in a state home of its own.
    home = tempfile.mkdtemp()
    env["XDG_DATA_HOME"] = os.path.join(home, "data")
    env["XDG_STATE_HOME"] = os.path.join(home, "state")
    env["ACPHOST_HISTORY"] = os.path.join(home, "history.sqlite3")
    env.pop("ACPHOST_NO_HISTORY", None)
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
