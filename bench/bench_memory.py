"""Memory while streaming: RSS stays flat with ``keep_history=False``.

The flood agent streams N ``agent_message_chunk`` updates (default 200,000);
the consumer iterates the ``Turn`` and keeps nothing. RSS (``/proc/self/statm``)
is sampled before the prompt and at 10%, 50% and 100% of the stream. The same
runs with ``keep_history=True`` for contrast (the session state then keeps
every chunk's content block). Each mode runs in a fresh subprocess.

Usage::

    python bench/bench_memory.py [--n 200000]

Expectation: growth from 10% to 100% ≈ 0 with ``keep_history=False``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOOD = str(HERE / "flood_agent.py")
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


async def consume(n: int, keep_history: bool, cwd: str) -> dict[str, float]:
    from acphost import AcpClient  # noqa: PLC0415 - imported in the child only

    marks = {n // 10: "10%", n // 2: "50%", n: "100%"}
    samples: dict[str, float] = {}
    argv = [sys.executable, FLOOD, "--n", str(n), "--scenario", "chunks"]
    async with AcpClient.start(argv, keep_history=keep_history) as client:
        session = await client.new_session(cwd)
        gc.collect()
        samples["start"] = rss_mb()
        turn = session.prompt("go")
        count = 0
        async for _update in turn:
            count += 1
            if count in marks:
                samples[marks[count]] = rss_mb()
        await turn
        samples["messages"] = len(session.state.messages)
    return samples


def child(n: int, keep_history: bool) -> None:
    with tempfile.TemporaryDirectory() as cwd:
        samples = asyncio.run(consume(n, keep_history, os.path.realpath(cwd)))
    print(json.dumps(samples))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--child", choices=["keep", "drop"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.n, args.child == "keep")
        return
    print(f"N={args.n:,} agent_message_chunk updates, RSS in MiB (/proc/self/statm)\n")
    print("| keep_history | start | 10% | 50% | 100% | growth 10%→100% |")
    print("|---|---:|---:|---:|---:|---:|")
    for mode in ("drop", "keep"):
        out = subprocess.run(
            [sys.executable, __file__, "--child", mode, "--n", str(args.n)],
            check=True,
            capture_output=True,
            text=True,
        )
        s = json.loads(out.stdout.strip().splitlines()[-1])
        growth = s["100%"] - s["10%"]
        per_update = growth * 2**20 / (args.n * 0.9)
        label = "True" if mode == "keep" else "False"
        print(
            f"| {label} | {s['start']:.1f} | {s['10%']:.1f} | {s['50%']:.1f} | "
            f"{s['100%']:.1f} | {growth:+.1f} MiB ({per_update:.0f} B/update) |"
        )


if __name__ == "__main__":
    main()
