"""What the OS sandbox adds to an agent's start, on and off in the same run.

Three measures, each a median of ``--runs`` runs, the two sides in turns:

1. **Build**: :func:`acphost.host.build_confinement` for the demo agent
   (the Landlock ruleset, the read rules carved around the denied paths,
   the private temporary folder) and its close.
2. **Spawn**: ``StdioTransport.spawn`` of ``/bin/true`` until the call
   returns: unconfined (a ``fork`` with only the parent-death step between
   fork and exec) against confined (the sandbox's hook after it), and confined
   without the private view (Landlock alone: no mount namespace, no
   ``devpts``, no covering ``tmpfs``), to show what the namespace costs.
3. **Open**: ``open_run`` of the demo agent until ``initialize`` answered,
   the assembly's whole start, ``confine=False`` against the default.

Target: open with the sandbox <= open without it + 15 ms.

    python bench/bench_sandbox.py [--runs 21]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from acphost.config import DEMO  # noqa: E402
from acphost.host import build_confinement, sandbox_support  # noqa: E402
from acphost.launch import RunOptions, open_run  # noqa: E402
from acphost.transport import StdioTransport  # noqa: E402


async def _timed(action: Callable[[], Awaitable[None]]) -> float:
    started = time.perf_counter()
    await action()
    return (time.perf_counter() - started) * 1000


async def main(runs: int) -> None:
    abi, why = sandbox_support()
    if abi == 0:
        print(f"no Landlock here: {why}")
        return
    workspace = tempfile.mkdtemp(prefix="bench-sandbox-")
    spec = DEMO

    async def build() -> None:
        build_confinement(spec, workspace).close()

    async def spawn(confined: bool, view: bool = True) -> None:
        sandbox = build_confinement(spec, workspace) if confined else None
        if sandbox is not None and not view and sandbox.namespace is not None:
            sandbox.namespace.close()
            sandbox.namespace = None
        started = time.perf_counter()
        transport = await StdioTransport.spawn(
            ["/bin/true"], confine=sandbox.preexec() if sandbox else None
        )
        spawn.elapsed = (time.perf_counter() - started) * 1000  # type: ignore[attr-defined]
        await transport.close()
        if sandbox is not None:
            sandbox.close()

    async def opened(confined: bool) -> None:
        options = RunOptions(spec, workspace, session=None, confine=None if confined else False)
        async with open_run(options):
            pass

    rows: dict[str, list[float]] = {
        k: [] for k in ("build", "spawn off", "spawn on", "spawn landlock")
    }
    rows.update({"open off": [], "open on": []})
    await opened(True)  # warm-up: imports, caches
    for _ in range(runs):
        rows["build"].append(await _timed(build))
        for confined in (False, True):
            await spawn(confined)
            rows[f"spawn {'on' if confined else 'off'}"].append(spawn.elapsed)  # type: ignore[attr-defined]
        await spawn(True, view=False)
        rows["spawn landlock"].append(spawn.elapsed)  # type: ignore[attr-defined]
        for confined in (False, True):
            rows[f"open {'on' if confined else 'off'}"].append(
                await _timed(lambda c=confined: opened(c))  # type: ignore[misc]
            )
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"Landlock ABI {abi}; median of {runs} runs, ms\n")
    print("| measure | sandbox off | sandbox on | added |")
    print("|---|---:|---:|---:|")
    print(f"| build the sandbox (and close it) | | {med['build']:.2f} | |")
    for what, label in (
        ("spawn", "spawn `/bin/true` (call returns)"),
        ("open", "open_run demo to initialize"),
    ):
        off, on = med[f"{what} off"], med[f"{what} on"]
        print(f"| {label} | {off:.2f} | {on:.2f} | {on - off:+.2f} |")
        if what == "spawn":
            alone = med["spawn landlock"]
            alone_label = "... Landlock alone (no private view)"
            print(f"| {alone_label} | {off:.2f} | {alone:.2f} | {alone - off:+.2f} |")
    added = med["open on"] - med["open off"]
    print(f"\ntarget: open adds <= 15 ms: {'met' if added <= 15 else 'NOT met'} ({added:+.1f} ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    asyncio.run(main(parser.parse_args().runs))
