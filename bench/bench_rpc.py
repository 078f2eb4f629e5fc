"""The JSON-RPC layer alone: transport + core + driver, taps off and on.

The flood agent (``bench/flood_agent.py``) streams N ``session/update`` lines
over a real pipe; each consumer runs in its own fresh subprocess and times the
prompt only (start-up excluded), as ``bench_throughput.py`` does, and also
reports the consumer's own CPU time per update (``time.process_time``), which
the other jobs on a shared machine disturb far less than wall time:

- ``rpc``: ``StdioTransport`` + ``Connection``, an ``on_notification`` that
  counts (what the client layer builds on);
- ``rpc+tap``: the same with a tap that sees every frame (as the jsonl mirror,
  the trace writer and the live check do);
- ``rpc+2taps``: two chained taps;
- ``orjson``: a bare subprocess protocol splitting lines for ``orjson.loads``
  (parse only, no validation, no dispatch): the ceiling.

Usage::

    python bench/bench_rpc.py                     # chunks and diffs, 5 runs
    python bench/bench_rpc.py --scenario chunks --runs 9
    python bench/bench_rpc.py --profile rpc+tap   # cProfile one consumer

Target (no ratio to the SDK: its RPC layer cannot run without its typed
client): the rpc consumer within 2x of the parse-only ceiling in CPU per update.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_throughput import (  # noqa: E402 - the sibling script, found through sys.path
    SCENARIOS,
    _prompt_frame,
    _requests,
    agent_argv,
)

CONSUMERS = ("rpc", "rpc+tap", "rpc+2taps", "orjson")


Result = tuple[int, float, float]  # updates, wall seconds, CPU seconds (the prompt only)


async def consume_orjson(n: int, scenario: str, cwd: str) -> Result:
    import orjson  # noqa: PLC0415

    loop = asyncio.get_running_loop()

    class Proto(asyncio.SubprocessProtocol):
        def __init__(self) -> None:
            self.buf = b""
            self.count = 0
            self.responses: asyncio.Queue[Any] = asyncio.Queue()

        def pipe_data_received(self, fd: int, data: bytes) -> None:
            lines = (self.buf + data).split(b"\n")
            self.buf = lines.pop()
            for line in lines:
                msg = orjson.loads(line)
                if "method" in msg:
                    self.count += 1
                else:
                    self.responses.put_nowait(msg)

    transport, proto = await loop.subprocess_exec(
        Proto, *agent_argv(n, scenario), stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    stdin = transport.get_pipe_transport(0)
    assert isinstance(stdin, asyncio.WriteTransport)
    for frame in _requests(cwd):
        stdin.write(frame)
        await proto.responses.get()
    t0, c0 = time.perf_counter(), time.process_time()
    stdin.write(_prompt_frame())
    await proto.responses.get()
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    stdin.close()
    transport.close()
    return proto.count, elapsed, cpu


async def consume_rpc(n: int, scenario: str, cwd: str, taps: int) -> Result:
    from acphost.rpc import Connection, chain_taps  # noqa: PLC0415 - consumer process only
    from acphost.transport import StdioTransport  # noqa: PLC0415

    seen = [0] * taps

    def make_tap(i: int) -> Any:
        def tap(direction: str, line: bytes) -> None:
            seen[i] += 1

        return tap

    count = 0

    def on_notification(method: str, params: Any) -> None:
        nonlocal count
        count += 1

    async def on_request(method: str, params: Any) -> None:
        return None

    transport = await StdioTransport.spawn(agent_argv(n, scenario))
    conn = Connection(
        transport,
        on_request=on_request,
        on_notification=on_notification,
        tap=chain_taps(*(make_tap(i) for i in range(taps))),
    )
    conn.start()
    for frame in _requests(cwd):
        msg = json.loads(frame)
        await conn.request(msg["method"], msg["params"])
    prompt = json.loads(_prompt_frame())
    t0, c0 = time.perf_counter(), time.process_time()
    await conn.request(prompt["method"], prompt["params"])
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    await conn.close()
    assert all(s >= count for s in seen), seen
    return count, elapsed, cpu


def run_consumer(name: str, n: int, scenario: str, profile: bool) -> None:
    """Child mode: run one consumer, print ``{"count", "seconds", "cpu"}`` as JSON."""
    if name == "orjson":
        make = lambda cwd: consume_orjson(n, scenario, cwd)  # noqa: E731
    else:
        taps = {"rpc": 0, "rpc+tap": 1, "rpc+2taps": 2}[name]
        make = lambda cwd: consume_rpc(n, scenario, cwd, taps)  # noqa: E731
    with tempfile.TemporaryDirectory() as cwd:
        coro = make(os.path.realpath(cwd))
        if profile:
            import cProfile  # noqa: PLC0415
            import pstats  # noqa: PLC0415

            prof = cProfile.Profile()
            prof.enable()
            count, seconds, cpu = asyncio.run(coro)
            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(25)
        else:
            count, seconds, cpu = asyncio.run(coro)
    print(json.dumps({"count": count, "seconds": seconds, "cpu": cpu}))


def spawn(name: str, n: int, scenario: str) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--consumer", name, "--n", str(n), "--scenario", scenario]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=900)
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if data["count"] != n:
        raise SystemExit(f"{name}: received {data['count']} updates, expected {n}")
    return data


def bench(scenario: str, n: int, runs: int, consumers: list[str]) -> None:
    results: dict[str, list[dict[str, Any]]] = {c: [] for c in consumers}
    for _ in range(runs):
        for name in consumers:  # interleaved, so drift hits every consumer alike
            results[name].append(spawn(name, n, scenario))
    wall = {c: statistics.median(r["seconds"] for r in rs) for c, rs in results.items()}
    # CPU of the consumer during the prompt: the minimum is the figure least
    # disturbed by the other jobs of a shared machine.
    cpu = {c: min(r["cpu"] for r in rs) for c, rs in results.items()}
    print(f"\n## {scenario}: N={n:,}, {runs} run(s) each, prompt only\n")
    print("| consumer | median s | updates/s | min CPU s | CPU ns/update | vs orjson (CPU) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in consumers:
        vs = f"{cpu[name] / cpu['orjson']:.2f}x" if "orjson" in cpu else "-"
        per = cpu[name] / n * 1e9
        print(
            f"| {name} | {wall[name]:.3f} | {n / wall[name]:,.0f} | {cpu[name]:.3f} "
            f"| {per:,.0f} | {vs} |"
        )
    if "rpc" in cpu and "rpc+tap" in cpu:
        extra = (cpu["rpc+tap"] - cpu["rpc"]) / n * 1e9
        print(f"\none tap costs {extra:,.0f} ns of CPU per update")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--n", type=int, default=None, help="updates (default per scenario)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--consumers", default=",".join(CONSUMERS))
    parser.add_argument("--consumer", choices=CONSUMERS, help=argparse.SUPPRESS)
    parser.add_argument("--profile", choices=CONSUMERS, help="cProfile one consumer (stderr)")
    args = parser.parse_args()
    scenarios = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    if args.consumer:
        run_consumer(args.consumer, args.n or SCENARIOS[scenarios[0]], scenarios[0], False)
        return
    if args.profile:
        for sc in scenarios:
            run_consumer(args.profile, args.n or SCENARIOS[sc], sc, True)
        return
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s)")
    for sc in scenarios:
        bench(sc, args.n or SCENARIOS[sc], args.runs, args.consumers.split(","))


if __name__ == "__main__":
    main()
