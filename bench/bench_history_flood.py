"""What the history costs a long turn: the CLI's memory, its streaming time, the store.

``acphost -o simple`` streams N ``agent_message_chunk`` updates into a file,
with the history on (a temporary store, never the user's) and with
``--no-history``; the two take turns, run by run, so a change in the
machine's load falls on both alike. Start-up is cancelled out: each side is
also timed with 0 chunks. Measured for each side (median of ``--runs``):

1. **Peak memory** of the CLI process alone (``VmHWM`` of ``/proc/self/status``
   read when its ``main()`` returns; the agent is another process and is
   not counted). Target: history on within 5 MiB of ``--no-history``.
2. **Streaming time** (the run with N chunks minus the run with 0). Target:
   the streaming rate with the history >= 0.85x the rate without.
3. **The store**: the bytes the turn's row holds (``text`` + ``events``)
   against the characters the agent streamed. Target: the text once.

The agent is either a prebuilt flood (``bench/flood_agent.py``'s updates,
written to a file before any run: the agent only copies bytes) or the demo
agent's ``flood N`` prompt (``--agent demo``).

Usage::

    python bench/bench_history_flood.py [--n 1000000] [--runs 3] [--agent prebuilt|demo]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
sys.path.insert(0, str(ROOT / "bench"))

# The CLI run in process (``main(argv)`` returns instead of ending the
# process), so that its own peak RSS can be read when it is done.
CLI = r"""
import sys, time
from acphost.cli import main
code = main(sys.argv[2:])
cpu = time.process_time()
with open("/proc/self/status") as f:
    peak = next(line for line in f if line.startswith("VmHWM:"))
with open(sys.argv[1], "w") as f:
    f.write(f"{peak.split()[1]} {cpu}")
sys.exit(code)
"""


def prebuilt(directory: str, n: int) -> tuple[str, str]:
    """A settings file naming the prebuilt flood agent ``flood``, and the prompt."""
    from bench_cli import flood_settings  # noqa: PLC0415

    path, _ = flood_settings(directory, n)
    return path, "go"


def demo(directory: str, n: int) -> tuple[str, str]:
    """The demo agent (named ``flood`` in a settings file) and its ``flood N`` prompt."""
    path = os.path.join(directory, "demo.json")
    with open(path, "w") as f:
        json.dump(
            {"agent_servers": {"flood": {"command": PY, "args": ["-m", "acphost.agents.demo"]}}}, f
        )
    return path, f"flood {n}"


def run_once(
    settings: str, prompt: str, env: dict[str, str], tmp: str, *, history: bool
) -> tuple[float, int, float]:
    """One run: (seconds, peak RSS in KiB, CPU seconds) of the CLI process."""
    peak = os.path.join(tmp, "peak")
    args = ["--settings", settings, "-a", "flood", "-o", "simple"]
    if not history:
        args.append("--no-history")
    cmd = [PY, "-c", CLI, peak, *args, prompt]
    with open(os.path.join(tmp, "out.txt"), "w") as sink:
        start = time.perf_counter()
        subprocess.run(cmd, stdout=sink, stderr=subprocess.DEVNULL, env=env, check=True)
        elapsed = time.perf_counter() - start
    with open(peak) as f:
        kib, cpu = f.read().split()
    return elapsed, int(kib), float(cpu)


def stored(path: str) -> tuple[int, int, int]:
    """The characters of the newest turn's text as stored: (``turns`` row, ``turn_text`` parts).

    And the file's size after a checkpoint. The row holds the text (``text``
    and the events' JSON) in stores before schema version 5; its parts hold
    it from version 5 on.
    """
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        _, row = conn.execute(
            "SELECT rowid, length(text) + length(events) FROM turns ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        parts = 0
        if "turn_text" in tables:
            parts = conn.execute("SELECT coalesce(sum(length(text)), 0) FROM turn_text").fetchone()[
                0
            ]
    finally:
        conn.close()
    return int(row), int(parts), os.path.getsize(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--agent", choices=("prebuilt", "demo"), default="prebuilt")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    home = tempfile.mkdtemp()
    env["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    env["XDG_DATA_HOME"] = os.path.join(home, "data")
    env["XDG_STATE_HOME"] = os.path.join(home, "state")
    env["ACPHOST_DEMO_STEP"] = "0"
    env.pop("ACPHOST_NO_HISTORY", None)
    make = prebuilt if args.agent == "prebuilt" else demo
    sides = {"history": True, "--no-history": False}
    secs: dict[tuple[str, int], float] = {}
    rss: dict[tuple[str, int], float] = {}
    cpu_s: dict[tuple[str, int], float] = {}
    store = ""
    for count in (args.n, 0):
        tmp = tempfile.mkdtemp(dir=home)
        settings, prompt = make(tmp, count)
        times: dict[str, list[float]] = {side: [] for side in sides}
        peaks: dict[str, list[int]] = {side: [] for side in sides}
        cpus: dict[str, list[float]] = {side: [] for side in sides}
        for i in range(args.runs + 1):  # the first round warms up
            for side, history in sides.items():
                store = os.path.join(tmp, f"history-{i}.sqlite3")
                env["ACPHOST_HISTORY"] = store
                elapsed, peak, cpu = run_once(settings, prompt, env, tmp, history=history)
                if i:
                    times[side].append(elapsed)
                    peaks[side].append(peak)
                    cpus[side].append(cpu)
        for side in sides:
            secs[(side, count)] = statistics.median(times[side])
            rss[(side, count)] = statistics.median(peaks[side]) / 1024
            cpu_s[(side, count)] = statistics.median(cpus[side])
        if count:
            row, parts, size = stored(os.path.join(tmp, f"history-{args.runs}.sqlite3"))
    print(
        f"\n## {args.n:,} chunks, -o simple to a file ({args.agent} agent; median of {args.runs})\n"
    )
    print("| side | peak RSS MiB | with 0 chunks | run s | run with 0 s | streaming s | CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    streaming = {}
    for side in sides:
        streaming[side] = secs[(side, args.n)] - secs[(side, 0)]
        print(
            f"| {side} | {rss[(side, args.n)]:.1f} | {rss[(side, 0)]:.1f} | "
            f"{secs[(side, args.n)]:.3f} | "
            f"{secs[(side, 0)]:.3f} | {streaming[side]:.3f} | "
            f"{cpu_s[(side, args.n)] - cpu_s[(side, 0)]:.3f} |"
        )
    print()
    extra = rss[("history", args.n)] - rss[("--no-history", args.n)]
    grown = rss[("history", args.n)] - rss[("history", 0)]
    print(f"memory: history on - off = {extra:+.1f} MiB (target <= 5 MiB)")
    print(f"memory: the history's run grew by {grown:+.1f} MiB from 0 to {args.n:,} chunks")
    ratio = streaming["--no-history"] / streaming["history"]
    print(f"streaming rate: history on / off = {ratio:.2f}x (target >= 0.85x)")
    cpu_on = cpu_s[("history", args.n)] - cpu_s[("history", 0)]
    cpu_off = cpu_s[("--no-history", args.n)] - cpu_s[("--no-history", 0)]
    print(f"the CLI's CPU for the stream: history off / on = {cpu_off / cpu_on:.2f}x")
    print(
        f"store: the turn's row holds {row:,} characters (text and events), its text "
        f"parts {parts:,}; the file {size / 2**20:.1f} MiB"
    )


if __name__ == "__main__":
    main()
