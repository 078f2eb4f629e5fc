"""Named sessions: a warm prompt against a cold run, and what the queue adds per prompt.

1. **Warm vs cold**: the time from starting ``acphost`` to its first byte of
   output, and to its end, for a cold run (``acphost PROMPT``: the agent
   starts, initializes, opens a session) and for a second prompt to a warm
   named session (``acphost -s NAME PROMPT``: the run connects to the host
   whose agent is up). Two agents: the built-in demo agent, and the same
   agent behind a one-second start-up (``sleep 1`` then the demo agent), as
   a real agent that loads its runtime and model client. Target: the warm
   first byte <= 10% of the cold one. Each figure is the median of
   ``--repeat`` runs, with the modules' bytecode cached (as installed).
2. **The queue's added cost per prompt**, in-process against the demo agent
   over real pipes: (a) the library, ``session.enqueue`` of N prompts at
   once against N sequential ``session.prompt``; (b) the host's wire, N
   prompts each on its own socket connection to a warm named session's host
   (as N runs would send them, one after the other) against N direct
   ``session.prompt`` turns. Target: <= 5 ms per prompt.

Usage::

    python bench/bench_named.py [--repeat 5] [--prompts 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from acphost import AcpClient
from acphost.cli._named import _fingerprint
from acphost.cli._parser import build_parser
from acphost.content import text
from acphost.history import default_path, history_enabled
from acphost.launch import WIRE_LIMIT, named_places, receive_message, send_message

SLOW_START = (
    "import os, sys, time; time.sleep(1); "
    "os.execv(sys.executable, [sys.executable, '-m', 'acphost.agents.demo'])"
)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACPHOST_")}
    # As an installed package has them: compiled modules, not each start compiling
    # every module again (PYTHONDONTWRITEBYTECODE would make both runs pay that).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        ACPHOST_DEMO_STEP="0",
        ACPHOST_SETTINGS="",
    )
    return env


def _timed(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from the start of ``acphost ARGS`` to its first output byte, and to its end."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    first = proc.stdout.read(1)
    first_at = time.perf_counter() - start
    proc.stdout.read()
    code = proc.wait()
    end_at = time.perf_counter() - start
    if code != 0 or not first:
        raise SystemExit(f"acphost {shlex.join(args)} failed ({code})")
    return first_at, end_at


def warm_vs_cold(agent: list[str], label: str, cwd: Path, env: dict[str, str], repeat: int) -> None:
    cold = [_timed([*agent, "-o", "simple", "echo hi"], cwd, env) for _ in range(repeat)]
    name = "bench-" + "".join(c if c.isalnum() else "-" for c in label)
    _timed([*agent, "-s", name, "--keep-alive", "60s", "-o", "simple", "echo warm up"], cwd, env)
    warm = [
        _timed([*agent, "-s", name, "-o", "simple", "echo hi"], cwd, env) for _ in range(repeat)
    ]
    _timed([*agent, "-s", name, "--keep-alive", "0", "-o", "simple", "echo bye"], cwd, env)
    cold_first = statistics.median(c[0] for c in cold)
    warm_first = statistics.median(w[0] for w in warm)
    print(
        f"{label:>14}: cold first byte {cold_first * 1000:7.1f} ms, end "
        f"{statistics.median(c[1] for c in cold) * 1000:7.1f} ms | warm first byte "
        f"{warm_first * 1000:7.1f} ms, end {statistics.median(w[1] for w in warm) * 1000:7.1f} ms"
        f" | warm/cold first byte {warm_first / cold_first:6.1%}"
    )


async def _direct(session, prompts: int) -> float:
    start = time.perf_counter()
    for i in range(prompts):
        await session.prompt(f"echo {i}")
    return time.perf_counter() - start


async def _queued(session, prompts: int) -> float:
    start = time.perf_counter()
    turns = [session.enqueue(f"echo {i}") for i in range(prompts)]
    for turn in turns:
        await turn
    return time.perf_counter() - start


async def library_queue(cwd: Path, prompts: int) -> None:
    async with AcpClient.start([sys.executable, "-m", "acphost.agents.demo"]) as client:
        session = await client.new_session(str(cwd))
        await _direct(session, 20)  # warm up both paths
        await _queued(session, 20)
        direct = await _direct(session, prompts)
        queued = await _queued(session, prompts)
    print(
        f"  library: {prompts} turns, prompt one by one {direct / prompts * 1000:6.2f} ms/turn,"
        f" enqueued at once {queued / prompts * 1000:6.2f} ms/turn, "
        f"added {(queued - direct) / prompts * 1000:+6.2f} ms/prompt"
    )


async def wire_queue(cwd: Path, env: dict[str, str], prompts: int) -> None:
    name = "bench-wire"
    _timed(["-a", "demo", "-s", name, "--keep-alive", "60s", "-o", "simple", "echo up"], cwd, env)
    (place,) = [p for p in named_places(str(cwd)) if p.name == name]
    options = {}

    async def one(i: int) -> None:
        reader, writer = await asyncio.open_unix_connection(place.socket, limit=WIRE_LIMIT)
        send_message(
            writer,
            {
                "op": "prompt",
                "prompt": [text(f"echo {i}").to_wire()],
                "frames": False,
                "queue": True,
                "options": options,
                "label": "bench",
                "ticket": None,
                "token": place.read_token(),
                "keep_alive": None,
                "limits": {},
            },
        )
        while True:
            message = await receive_message(reader)
            if message is None or message.get("t") in ("end", "error", "refused", "gone"):
                break
        writer.close()
        if message is None or message.get("t") != "end":
            raise SystemExit(f"the host answered {message}")

    # The options a run of `acphost -a demo -s NAME` sends: read from the CLI itself.
    parsed = build_parser().parse_args(["-a", "demo", "-s", name, "x"])
    history = default_path() if history_enabled() else None
    options.update(_fingerprint(parsed, history))
    for i in range(20):
        await one(i)
    start = time.perf_counter()
    for i in range(prompts):
        await one(i)
    via_host = time.perf_counter() - start
    _timed(["-a", "demo", "-s", name, "--keep-alive", "0", "-o", "simple", "echo bye"], cwd, env)
    async with AcpClient.start([sys.executable, "-m", "acphost.agents.demo"]) as client:
        session = await client.new_session(str(cwd))
        await _direct(session, 20)
        direct = await _direct(session, prompts)
    print(
        f"     wire: {prompts} turns, direct {direct / prompts * 1000:6.2f} ms/turn, through the "
        f"host (a connection each) {via_host / prompts * 1000:6.2f} ms/turn, "
        f"added {(via_host - direct) / prompts * 1000:+6.2f} ms/prompt"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--prompts", type=int, default=200)
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-named-") as tmp:
        home = Path(tmp)
        cwd = home / "ws"
        cwd.mkdir()
        env = _env(home)
        print("1. time to first output: a cold run vs a second prompt to a warm named session")
        warm_vs_cold(["-a", "demo"], "demo", cwd, env, a.repeat)
        slow = shlex.join([sys.executable, "-c", SLOW_START])
        warm_vs_cold(["--agent-command", slow], "1 s start-up", cwd, env, a.repeat)
        print("2. the queue's added cost per prompt (demo agent)")
        os.environ.update(env)
        asyncio.run(library_queue(cwd, a.prompts))
        asyncio.run(wire_queue(cwd, env, a.prompts))


if __name__ == "__main__":
    main()
