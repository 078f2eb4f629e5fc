"""Import time: ``import acphost`` against ``import asyncio`` and the official SDK.

``import acphost.schema`` (the generated types, every wire decoder) is timed too:
the test suite only pins *which* modules it loads (``tests/schema``), never how
long that takes.

Each statement runs in a fresh ``python -c`` subprocess: one warm-up run, then
the median wall time of ``--runs`` runs (default 21). ``src`` is precompiled
first, because the environment may set ``PYTHONDONTWRITEBYTECODE`` and a cold
``.pyc`` cache would measure the compiler, not the import.

Usage::

    python bench/bench_import.py            # the table
    python bench/bench_import.py --detail   # plus -X importtime top offenders

Target: ``import acphost`` <= ``import asyncio`` + 60 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 60.0

CASES = [
    ("python -c pass", "pass"),
    ("import asyncio", "import asyncio"),
    ("import acphost", "import acphost"),
    ("import acphost.schema", "import acphost.schema"),
    ("acphost.AcpClient", "import acphost; acphost.AcpClient"),
    ("import acp (SDK)", "import acp"),
]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # use the .pyc files compiled below
    return env


def precompile() -> None:
    """Compile src/ and the SDK so no run pays for byte-compilation."""
    import acp  # noqa: PLC0415 - only to find the SDK's install directory

    for target in (ROOT / "src", Path(acp.__file__).parent):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(target)], check=False, env=_env()
        )


def wall(code: str, runs: int) -> list[float]:
    argv = [sys.executable, "-c", code]
    env = _env()
    subprocess.run(argv, check=True, env=env)  # warm-up: page cache, .pyc
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, env=env)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def importtime(code: str, top: int) -> None:
    """Print the modules with the largest self time under ``-X importtime``."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        check=True,
        capture_output=True,
        text=True,
        env=_env(),
    ).stderr
    rows = []
    for line in out.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative, name = line[len("import time:") :].split("|")
        rows.append((int(self_us), int(cumulative), name.rstrip()))
    total = sum(r[0] for r in rows)
    print(f"\n-X importtime for `{code}`: {len(rows)} modules, {total / 1000:.1f} ms self total")
    print("| self ms | cumulative ms | module |")
    print("|---:|---:|---|")
    for self_us, cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"| {self_us / 1000:.2f} | {cumulative / 1000:.2f} | `{name}` |")
    ours = [r for r in rows if "acphost" in r[2]]
    print(f"\nacphost's own modules: {sum(r[0] for r in ours) / 1000:.1f} ms self total")
    for self_us, cumulative, name in sorted(ours, reverse=True)[:top]:
        print(f"| {self_us / 1000:.2f} | {cumulative / 1000:.2f} | `{name.strip()}` |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--detail", action="store_true", help="print -X importtime offenders")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    precompile()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), median of {args.runs} runs\n")
    med: dict[str, float] = {}
    spread: dict[str, tuple[float, float]] = {}
    for label, code in CASES:
        times = wall(code, args.runs)
        med[label] = statistics.median(times)
        spread[label] = (min(times), max(times))
    base = med["import asyncio"]
    print("| statement | median ms | min-max ms | - asyncio ms | / asyncio |")
    print("|---|---:|---:|---:|---:|")
    for label, _code in CASES:
        lo, hi = spread[label]
        print(
            f"| `{label}` | {med[label]:.1f} | {lo:.1f}-{hi:.1f} | "
            f"{med[label] - base:+.1f} | {med[label] / base:.2f}x |"
        )
    extra = med["import acphost"] - base
    verdict = "met" if extra <= TARGET_MS else "MISSED"
    print(
        f"\n`import acphost` - `import asyncio` = {extra:+.1f} ms "
        f"(target <= {TARGET_MS:.0f}: {verdict})"
    )
    client_extra = med["acphost.AcpClient"] - base
    print(f"`acphost.AcpClient` - `import asyncio` = {client_extra:+.1f} ms")
    sdk = med["import acp (SDK)"]
    print(
        f"SDK `import acp` / `acphost.AcpClient` = {sdk / med['acphost.AcpClient']:.2f}x; "
        f"/ `import acphost` = {sdk / med['import acphost']:.2f}x"
    )
    if args.detail:
        importtime("import acphost", args.top)
        importtime("import acphost; acphost.AcpClient", args.top)


if __name__ == "__main__":
    main()
