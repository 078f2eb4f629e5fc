"""Update throughput: acphost against the official SDK and bare-asyncio baselines.

A flood agent (``bench/flood_agent.py``) answers one prompt with N
``session/update`` lines. Each consumer runs in its own fresh subprocess and
times the prompt only (from sending it to its result, start-up excluded):

- ``acphost``: ``AcpClient.start``, iterate the ``Turn``'s typed updates
  (``keep_history=False``);
- ``acphost-v2``: the same on ACP v2 (``protocol=2``: the flood agent answers
  v2, and the client maps each v2 update onto the one model);
- ``sdk``: ``acp.spawn_agent_process`` with a ``Client`` whose
  ``session_update`` counts, until ``prompt()`` returns;
- ``raw``: an asyncio ``readline()`` + ``json.loads`` loop (no typing, no state);
- ``orjson``: an ``asyncio`` subprocess protocol + ``orjson.loads`` (parse only);
- ``decode``: the same protocol, plus ``acphost.schema.decode_session_update`` on each
  update (parse and typed decoding, no client: what the schema layer adds to parsing).

Usage::

    python bench/bench_throughput.py                      # both scenarios, 3 runs
    python bench/bench_throughput.py --scenario chunks --n 100000 --runs 5
    python bench/bench_throughput.py --profile acphost    # cProfile one consumer

Targets: acphost >= 10x the SDK on ``chunks`` (100,000 ``agent_message_chunk``),
>= 3x on ``diffs`` (10,000 ``tool_call_update`` with a ~4 KB diff each).
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
FLOOD = str(HERE / "flood_agent.py")
SCENARIOS = {"chunks": 100_000, "diffs": 10_000}
TARGETS = {"chunks": 10.0, "diffs": 3.0}
CONSUMERS = ("acphost", "acphost-v2", "sdk", "raw", "orjson", "decode")


def agent_argv(n: int, scenario: str) -> list[str]:
    return [sys.executable, FLOOD, "--n", str(n), "--scenario", scenario]


# -- consumers (each runs in its own subprocess) ---------------------------------


async def consume_acphost(
    n: int, scenario: str, cwd: str, protocol: int = 1
) -> tuple[int, float]:
    from acphost import AcpClient  # noqa: PLC0415 - imported in the consumer process only

    async with AcpClient.start(
        agent_argv(n, scenario), keep_history=False, protocol=protocol
    ) as client:
        session = await client.new_session(cwd)
        t0 = time.perf_counter()
        turn = session.prompt("go")
        count = 0
        async for _update in turn:
            count += 1
        result = await turn
        elapsed = time.perf_counter() - t0
    assert result.stop_reason == "end_turn", result
    return count, elapsed


async def consume_sdk(n: int, scenario: str, cwd: str) -> tuple[int, float]:
    import acp  # noqa: PLC0415

    class Counter:
        count = 0

        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            self.count += 1

    counter = Counter()
    argv = agent_argv(n, scenario)
    async with acp.spawn_agent_process(counter, argv[0], *argv[1:]) as (conn, _proc):  # type: ignore[arg-type]
        await conn.initialize(protocol_version=1)
        new = await conn.new_session(cwd=cwd, mcp_servers=[])
        t0 = time.perf_counter()
        response = await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("go")])
        elapsed = time.perf_counter() - t0
    assert response.stop_reason == "end_turn", response
    return counter.count, elapsed


def _requests(cwd: str) -> list[bytes]:
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": cwd, "mcpServers": []},
        },
    ]
    return [json.dumps(f).encode() + b"\n" for f in frames]


def _prompt_frame() -> bytes:
    frame = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "session/prompt",
        "params": {"sessionId": "flood-1", "prompt": [{"type": "text", "text": "go"}]},
    }
    return json.dumps(frame).encode() + b"\n"


async def consume_raw(n: int, scenario: str, cwd: str) -> tuple[int, float]:
    argv = agent_argv(n, scenario)
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, limit=1 << 24
    )
    assert proc.stdin is not None and proc.stdout is not None
    for frame in _requests(cwd):
        proc.stdin.write(frame)
        await proc.stdin.drain()
        json.loads(await proc.stdout.readline())
    t0 = time.perf_counter()
    proc.stdin.write(_prompt_frame())
    await proc.stdin.drain()
    count = 0
    readline = proc.stdout.readline
    loads = json.loads
    while True:
        msg = loads(await readline())
        if msg.get("id") == 3:
            break
        if msg.get("method") == "session/update":
            count += 1
    elapsed = time.perf_counter() - t0
    proc.stdin.close()
    await proc.wait()
    return count, elapsed


async def consume_orjson(n: int, scenario: str, cwd: str) -> tuple[int, float]:
    return await _consume_protocol(n, scenario, cwd, decode=False)


async def consume_decode(n: int, scenario: str, cwd: str) -> tuple[int, float]:
    return await _consume_protocol(n, scenario, cwd, decode=True)


async def _consume_protocol(n: int, scenario: str, cwd: str, decode: bool) -> tuple[int, float]:
    import orjson  # noqa: PLC0415

    from acphost.schema import decode_session_update  # noqa: PLC0415

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
                    if decode:
                        decode_session_update(msg["params"]["update"], "update")
                    self.count += 1
                else:
                    self.responses.put_nowait(msg)

    transport, proto = await loop.subprocess_exec(
        Proto, *agent_argv(n, scenario), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None
    )
    stdin = transport.get_pipe_transport(0)
    assert isinstance(stdin, asyncio.WriteTransport)
    for frame in _requests(cwd):
        stdin.write(frame)
        await proto.responses.get()
    t0 = time.perf_counter()
    stdin.write(_prompt_frame())
    await proto.responses.get()
    elapsed = time.perf_counter() - t0
    stdin.close()
    transport.close()
    return proto.count, elapsed


RUNNERS = {
    "acphost": consume_acphost,
    "sdk": consume_sdk,
    "acphost-v2": lambda n, scenario, cwd: consume_acphost(n, scenario, cwd, 2),
    "raw": consume_raw,
    "orjson": consume_orjson,
    "decode": consume_decode,
}


def run_consumer(name: str, n: int, scenario: str, profile: bool) -> None:
    """Child mode: run one consumer, print ``{"count", "seconds"}`` as JSON."""
    with tempfile.TemporaryDirectory() as cwd:
        coro = RUNNERS[name](n, scenario, os.path.realpath(cwd))
        if profile:
            import cProfile  # noqa: PLC0415
            import pstats  # noqa: PLC0415

            prof = cProfile.Profile()
            prof.enable()
            count, seconds = asyncio.run(coro)
            prof.disable()
            stats = pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime")
            stats.print_stats(30)
            stats.sort_stats("cumulative").print_stats(40)
        else:
            count, seconds = asyncio.run(coro)
    print(json.dumps({"count": count, "seconds": seconds}))


# -- orchestration ---------------------------------------------------------------


def spawn(name: str, n: int, scenario: str) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--consumer", name, "--n", str(n), "--scenario", scenario]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, timeout=900)
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if data["count"] != n:
        raise SystemExit(f"{name}: received {data['count']} updates, expected {n}")
    return data


def bench(scenario: str, n: int, runs: int, consumers: list[str]) -> dict[str, float]:
    times: dict[str, list[float]] = {c: [] for c in consumers}
    for _ in range(runs):
        for name in consumers:  # interleaved, so drift hits every consumer alike
            times[name].append(spawn(name, n, scenario)["seconds"])
    med = {c: statistics.median(t) for c, t in times.items()}
    print(f"\n## {scenario}: N={n:,}, median of {runs} run(s), prompt only (start-up excluded)\n")
    print("| consumer | median s | updates/s | runs (s) | vs SDK |")
    print("|---|---:|---:|---|---:|")
    for name in consumers:
        rate = n / med[name]
        vs = f"{med['sdk'] / med[name]:.2f}x" if "sdk" in med else "-"
        runs_s = ", ".join(f"{t:.3f}" for t in times[name])
        print(f"| {name} | {med[name]:.3f} | {rate:,.0f} | {runs_s} | {vs} |")
    if "acphost" in med and "sdk" in med:
        ratio = med["sdk"] / med["acphost"]
        target = TARGETS.get(scenario, 1.0)
        verdict = "met" if ratio >= target else "MISSED"
        print(f"\nacphost/SDK throughput ratio: {ratio:.2f}x (target >= {target}x: {verdict})")
    if "acphost" in med and "raw" in med:
        print(f"acphost/raw readline+json: {med['raw'] / med['acphost']:.2f}x of the baseline")
    return med


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--n", type=int, default=None, help="updates (default per scenario)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--consumers", default=",".join(CONSUMERS))
    parser.add_argument("--consumer", choices=CONSUMERS, help=argparse.SUPPRESS)
    parser.add_argument(
        "--profile", choices=CONSUMERS, help="run one consumer under cProfile (stats on stderr)"
    )
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
