"""What a batch costs the host: wall time against the ideal, CPU per run, scaling, Ray's overhead.

The agent is ``tests/batch/wait_agent.py``: ``wait 1`` answers after one
second, like an agent bound by its model rather than by the CPU, and it
starts in a few tens of milliseconds. The workspace is a small git
repository (12 files), so every run also makes and removes a worktree and
compares it; the history is recorded into a store in the temporary
directory, as the command does by default.

1. **Headline**: 64 runs of ``wait 1`` at ``jobs=16`` (4 waves): wall time
   against the ideal, 4 s plus one agent start (spawn, ``initialize``,
   ``session/new``, measured here). Target: <= 1.3x. Run in-process through
   :func:`acphost.batch.run_batch`, and once more as the real command
   (``acphost batch``) for the end-to-end figure.
2. **CPU**: the host process's own CPU time per run (``RUSAGE_SELF``: the
   event loop, threads for git and copies) and its children's (the agents
   and git, ``RUSAGE_CHILDREN``).
3. **Scaling**: ``jobs`` 1 to 32, each with 4 x jobs runs (ideal 4 s).
4. **Ray** (when installed): the start-up of a local cluster (``ray start
   --head``) and of the driver's connection; then 32 runs of ``wait 1`` at
   ``jobs=16`` on the cluster, the first batch (the job's workers start) and
   warm ones, against the local executor; the extra latency per run is
   (wall - local wall) x jobs / runs.

Usage::

    python bench/bench_batch.py [--skip-ray] [--scaling 1,2,4,8,16,32] [--repeat 5]
                                [--no-pdeathsig]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from acphost.batch import (
    LocalExecutor,
    RayExecutor,
    inspect_workspace,
    make_plan,
    numbered,
    run_batch,
)
from acphost.client import AcpClient
from acphost.config import AgentSpec
from acphost.history import HistoryStore

ROOT = Path(__file__).resolve().parent.parent
WAIT_AGENT = ROOT / "tests" / "batch" / "wait_agent.py"
AGENT = AgentSpec(name="wait", command=sys.executable, args=(str(WAIT_AGENT),), source="bench")


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    (repo / "src").mkdir(parents=True)
    for i in range(10):
        (repo / "src" / f"mod{i}.py").write_text(f"VALUE = {i}\n" * 20)
    (repo / "README.md").write_text("# bench\n")
    (repo / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "bench"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


async def agent_start() -> float:
    """Median seconds to spawn the agent, initialize and open a session."""
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        async with AcpClient.start(AGENT.argv, close_grace=0.2) as client:
            await client.new_session(os.getcwd())
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def one_batch(repo: Path, tmp: Path, runs: int, jobs: int, executor=None, wait="1") -> dict:
    plan = make_plan([AGENT], numbered([f"wait {wait}"]), workspace=inspect_workspace(str(repo)),
                     repeat=runs)
    out = tempfile.mkdtemp(dir=tmp, prefix="out-")
    store = HistoryStore.open(os.path.join(out, "history.sqlite3"))
    self0, kids0 = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    statuses = [o.status async for o in run_batch(plan, out, jobs=jobs, history=store,
                                                   executor=executor)]
    wall = time.perf_counter() - t0
    self1, kids1 = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
    store.close()
    assert statuses.count("ok") == runs, statuses
    return {"wall": wall, "self_ms": (self1 - self0) / runs * 1000,
            "kids_ms": (kids1 - kids0) / runs * 1000}


def cli_batch(repo: Path, tmp: Path, runs: int, jobs: int) -> float:
    out = tempfile.mkdtemp(dir=tmp, prefix="cli-")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "xdg")}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "acphost", "batch",
         "--agent-command", f"{sys.executable} {WAIT_AGENT}", "-p", "wait 1",
         "--repeat", str(runs), "-j", str(jobs), "--workspace", str(repo), "--out", out],
        env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def start_ray(tmp: Path) -> tuple[subprocess.Popen, str, float, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    temp = tempfile.mkdtemp(prefix="acph-ray-", dir="/tmp")
    t0 = time.perf_counter()
    head = subprocess.Popen(
        [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block",
         "--node-ip-address=127.0.0.1", f"--port={port}", f"--temp-dir={temp}", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    started = threading.Event()

    def read() -> None:
        for line in head.stdout:
            if "Ray runtime started" in line:
                started.set()

    threading.Thread(target=read, daemon=True).start()
    if not started.wait(300):
        raise SystemExit("the Ray head did not start")
    return head, f"127.0.0.1:{port}", time.perf_counter() - t0, temp


def stop_ray(head: subprocess.Popen, temp: str) -> None:
    os.killpg(head.pid, signal.SIGTERM)
    try:
        head.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait(10)
    shutil.rmtree(temp, ignore_errors=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--scaling", default="1,2,4,8,16,32")
    parser.add_argument(
        "--repeat", type=int, default=1, help="measure the headline this many times (median)")
    parser.add_argument(
        "--no-pdeathsig",
        action="store_true",
        help="measure without the transport's preexec_fn (PR_SET_PDEATHSIG), which makes "
        "every agent spawn a fork the event loop waits on (to size that cost; not a setting)",
    )
    args = parser.parse_args()
    if args.no_pdeathsig:
        from acphost import _child  # noqa: PLC0415 - only for this measure

        _child._prctl = lambda: None  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        repo = make_repo(tmp)
        start = await agent_start()
        await one_batch(repo, tmp, 4, 4, wait="0")  # warm caches
        heads = [await one_batch(repo, tmp, 64, 16) for _ in range(args.repeat)]
        head = sorted(heads, key=lambda r: r["wall"])[len(heads) // 2]
        ideal = 4.0 + start
        print(f"cores: {os.cpu_count()} · agent start (spawn + initialize + session/new): "
              f"{start * 1000:.0f} ms\n")
        if args.repeat > 1:
            walls = ", ".join(f"{r['wall']:.2f}" for r in heads)
            print(f"headline walls over {args.repeat} batches: {walls} s (median below)\n")
        print("| batch | wall | ideal | wall / ideal | host CPU / run | agents+git CPU / run |")
        print("|---|---|---|---|---|---|")
        print(f"| 64 runs, jobs 16 (library) | {head['wall']:.2f} s | {ideal:.2f} s | "
              f"{head['wall'] / ideal:.2f}x (target <= 1.3x) | {head['self_ms']:.1f} ms | "
              f"{head['kids_ms']:.1f} ms |")
        wall = cli_batch(repo, tmp, 64, 16)
        print(f"| 64 runs, jobs 16 (`acphost batch`) | {wall:.2f} s | {ideal:.2f} s | "
              f"{wall / ideal:.2f}x | | |")
        print("\nScaling (4 x jobs runs of `wait 1`: ideal 4 s + one agent start):\n")
        print("| jobs | runs | wall | wall / ideal | runs/s | host CPU / run |")
        print("|---|---|---|---|---|---|")
        for jobs in (int(j) for j in args.scaling.split(",")):
            r = await one_batch(repo, tmp, 4 * jobs, jobs)
            print(f"| {jobs} | {4 * jobs} | {r['wall']:.2f} s | {r['wall'] / ideal:.2f}x | "
                  f"{4 * jobs / r['wall']:.1f} | {r['self_ms']:.1f} ms |")
        if args.skip_ray:
            return
        try:
            ray = importlib.import_module("ray")
        except ImportError:
            print("\nRay: not installed (pip install 'acphost[ray]'): skipped")
            return
        cluster, address, startup, ray_temp = start_ray(tmp)
        try:
            t0 = time.perf_counter()
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
            connect = time.perf_counter() - t0
            local = await one_batch(repo, tmp, 32, 16, executor=LocalExecutor())
            # One connection for every batch: the cluster keeps the job's workers.
            runs = [await one_batch(repo, tmp, 32, 16, executor=RayExecutor(cpus_per_run=0.1))
                    for _ in range(3)]
            ray.shutdown()
        finally:
            stop_ray(cluster, ray_temp)
        cold, warm = runs[0], min(runs[1:], key=lambda r: r["wall"])
        print("\nRay (a local cluster on this machine; 32 runs of `wait 1`, jobs 16):\n")
        print(f"- cluster start-up (`ray start --head` until ready): {startup:.1f} s")
        print(f"- the driver's connection (`ray.init`): {connect:.1f} s")
        print("\n| executor | wall | extra latency / run | host CPU / run |")
        print("|---|---|---|---|")
        for label, r in (("local", local), ("ray, first batch", cold), ("ray, warm", warm)):
            extra = (r["wall"] - local["wall"]) * 16 / 32
            print(f"| {label} | {r['wall']:.2f} s | {extra * 1000:.0f} ms "
                  f"| {r['self_ms']:.1f} ms |")


if __name__ == "__main__":
    asyncio.run(main())
