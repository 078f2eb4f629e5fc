"""Wall time of the command line against bare Python, measured in the same run.

Targets (issue 4): ``acphost --help`` at most 1.5x ``python -c "import asyncio"``;
``acphost -a demo -o simple "hello"`` (two Python processes: ours and the demo
agent) at most 2x two bare ``python -c pass`` runs. The official SDK is the
peer: a minimal SDK client running the same prompt against the same demo agent.

    python bench/bench_cli.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

SDK_CLIENT = r"""
import asyncio, sys
import acp
from acp import spawn_agent_process, text_block

class Client:
    async def session_update(self, session_id, update, **kw):
        pass
    async def request_permission(self, *a, **kw):
        return None

async def main():
    demo = (sys.executable, "-m", "acphost.agents.demo")
    async with spawn_agent_process(Client(), *demo) as (conn, proc):
        await conn.initialize(protocol_version=1)
        s = await conn.new_session(cwd="/tmp", mcp_servers=[])
        await conn.prompt(session_id=s.session_id, prompt=[text_block("hello")])

asyncio.run(main())
"""


def timed(cmd: list[str], runs: int, env: dict[str, str]) -> float:
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False
        )
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    subprocess.run(
        [PY, "-m", "compileall", "-q", str(ROOT / "src")], check=True, stdout=subprocess.DEVNULL
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ACPHOST_DEMO_STEP"] = "0"
    env["XDG_CONFIG_HOME"] = tempfile.mkdtemp()
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(SDK_CLIENT)
        sdk_client = f.name
    rows = {
        "python -c pass": [PY, "-c", "pass"],
        "python -c 'import asyncio'": [PY, "-c", "import asyncio"],
        "acphost --help": [PY, "-m", "acphost", "--help"],
        "acphost -a demo -o simple hello": [
            PY,
            "-m",
            "acphost",
            "-a",
            "demo",
            "-o",
            "simple",
            "hello",
        ],
        "official SDK client, same prompt": [PY, sdk_client],
    }
    ms = {name: timed(cmd, args.runs, env) for name, cmd in rows.items()}
    for name, value in ms.items():
        print(f"{value:8.1f} ms  {name}")
    help_ratio = ms["acphost --help"] / ms["python -c 'import asyncio'"]
    run_ratio = ms["acphost -a demo -o simple hello"] / (2 * ms["python -c pass"])
    sdk_ratio = ms["official SDK client, same prompt"] / ms["acphost -a demo -o simple hello"]
    print(f"\nacphost --help / import asyncio        = {help_ratio:.2f}x (target <= 1.5x)")
    print(f"acphost prompt / 2 x python -c pass     = {run_ratio:.2f}x (target <= 2x)")
    print(
        f"official SDK client / acphost prompt    = {sdk_ratio:.2f}x (higher is better for acphost)"
    )


if __name__ == "__main__":
    main()
