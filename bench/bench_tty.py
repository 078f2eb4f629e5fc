"""``-o text`` on a terminal against the same run piped: both floods, paired runs.

Two streams of 10,000 chunks (``--n``), each run with stdout on a pty (80x24,
drained as fast as it comes, ``TERM=xterm-256color``) and then piped to a
file, the two back to back so that each pair sees the same load:

- **demo**: the demo agent's ``flood N``: one Markdown paragraph of N lines
  (``flood 1``, ``flood 2``, ...), the live region's hardest case;
- **plain**: ``bench/flood_agent.py``'s prebuilt chunks (short sentences
  without newlines), as ``bench_cli.py --only tty`` streams them.

The ratio pty/piped is taken pair by pair; the table shows its median and
its spread (least-most) over ``--runs`` pairs, after one warm-up pair.
``--tree DIR`` (repeatable) adds another source tree (a checkout's folder
holding ``src/``), run in turns with this one, to compare before and after
in the same run::

    python bench/bench_tty.py [--runs 7] [--n 10000] [--tree /tmp/before]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cli import PY, ROOT, flood_settings, on_pty, piped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--tree", action="append", default=[], help="another checkout")
    args = parser.parse_args()
    trees = [str(ROOT), *(str(Path(t).resolve()) for t in args.tree)]
    for tree in trees:
        subprocess.run(
            [PY, "-m", "compileall", "-q", os.path.join(tree, "src")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    tmp = tempfile.mkdtemp()
    settings, _ = flood_settings(tmp, args.n)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base.update(
        TERM="xterm-256color",
        ACPHOST_DEMO_STEP="0",
        XDG_CONFIG_HOME=tempfile.mkdtemp(),
        XDG_DATA_HOME=os.path.join(tmp, "data"),
        XDG_STATE_HOME=os.path.join(tmp, "state"),
        ACPHOST_HISTORY=os.path.join(tmp, "history.sqlite3"),
    )
    base.pop("ACPHOST_NO_HISTORY", None)
    streams = {
        "demo": ["-a", "demo", "-o", "text", f"flood {args.n}"],
        "plain": ["--settings", settings, "-a", "flood", "-o", "text", "go"],
    }
    out = os.path.join(tmp, "out.txt")
    ratios: dict[tuple[str, str], list[float]] = {}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for i in range(args.runs + 1):
        for tree in trees:
            env = {**base, "PYTHONPATH": os.path.join(tree, "src")}
            for name, argv in streams.items():
                cmd = [PY, "-m", "acphost", *argv]
                pty_s = on_pty(cmd, env)()
                pipe_s = piped(cmd, env, out)()
                if i:  # the first pair warms the caches
                    ratios.setdefault((tree, name), []).append(pty_s / pipe_s)
                    times.setdefault((tree, name), []).append((pty_s, pipe_s))
    print(f"\n## -o text, {args.n:,} chunks: pty / piped, {args.runs} pairs\n")
    print("| tree | stream | pty ms (median) | piped ms (median) | ratio median | ratio spread |")
    print("|---|---|---:|---:|---:|---|")
    for (tree, name), values in ratios.items():
        pty_ms = statistics.median(t[0] for t in times[tree, name]) * 1000
        pipe_ms = statistics.median(t[1] for t in times[tree, name]) * 1000
        print(
            f"| {tree} | {name} | {pty_ms:.0f} | {pipe_ms:.0f} | "
            f"{statistics.median(values):.2f}x | {min(values):.2f}-{max(values):.2f}x |"
        )


if __name__ == "__main__":
    main()
