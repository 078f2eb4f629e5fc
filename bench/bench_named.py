"""Named sessions: a warm prompt against a cold run, against acpx, and what the queue adds.

Every run is timed as users run it: the installed console script (the
``acphost`` next to ``sys.executable``; ``python -m acphost`` with a note when
there is none), its modules' bytecode compiled once and cached (as installed:
``PYTHONPYCACHEPREFIX`` in the temporary home, so that the environment's
``PYTHONDONTWRITEBYTECODE`` does not make every run compile every module),
stdout and stderr read as they come. "First output" is the first byte on
stdout (the agent's answer; ``-o simple``); each figure is the median of
``--repeat`` runs, with the min and max beside it. One unmeasured run of each
kind comes first (it compiles what the next ones load).

1. **Warm vs cold**: the time from starting ``acphost`` to its first output
   and to its end, for a cold run (``acphost PROMPT``: the agent starts,
   initializes, opens a session) and for a second prompt to a warm named
   session (``acphost -s NAME PROMPT``: the run connects to the host whose
   agent is up). Two agents: the built-in demo agent, and the same agent
   behind a one-second start-up (``sleep 1`` then the demo agent), as a real
   agent that loads its runtime and model client. Target: the warm first
   output <= 10% of the cold one. Two floors show where a warm run's time
   goes: ``acphost --version`` (the interpreter and the console script) and
   ``acphost status -s NAME`` (the same plus one round trip to the warm
   host), and what the warm run imports (``-X importtime``: self times by package).
2. **Against acpx 0.19.1** (npm ``acpx``, with the ``node`` 22 binary from
   npm's ``node@22.23.3`` package, as ``tests/interop`` pins it: acpx needs
   Node >= 22.13), installed once under ``.cache/bench/acpx``, on the same
   demo agent (``--agent 'python -m acphost.agents.demo'``): ``acpx --agent
   CMD sessions new --name NAME``, one prompt to start its queue owner, then
   ``acpx --agent CMD prompt -s NAME PROMPT`` (a second prompt to the warm
   session) ``--repeat`` times, each in turn with a warm ``acphost -s NAME``
   prompt (so the machine's load falls on both alike). acpx's first output
   and end are timed as ours (first byte on stdout; its stderr banner comes a
   few ms earlier and is shown too). Target: acphost's first output well
   under half of acpx's, and its end as soon as its turn ends (acpx waits a
   fixed second of silence). Without npm or the network the section says so
   in one line and is skipped.
3. **The queue's added cost per prompt**, against the demo agent over real
   pipes: (a) the library, ``session.enqueue`` of N prompts at once against
   N sequential ``session.prompt``; (b) the host, N prompts each on its own
   socket connection to a warm named session's host (as N runs send them,
   one after the other; the run's own start-up left out) against N direct
   ``session.prompt`` turns. (b) speaks the run <-> host wire through what
   :mod:`acphost.launch` exports (``named_places``, ``send_message``,
   ``receive_message``) and the options a run sends as the CLI computes them;
   when that wire changed under it, (b) says so in one line and the figure
   comes from the command line instead: a warm ``acphost -s NAME`` run's end
   less a ``status`` run's end (start-up, imports and connecting cancelled
   out as far as the two share them) less one direct turn. That figure also
   counts the prompt path's own imports and output, so it is an upper bound
   of the queue's cost, not the cost. Target: <= 5 ms per prompt.

Usage::

    python bench/bench_named.py [--repeat 7] [--prompts 200] [--quick] [--no-acpx]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import selectors
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from acphost import AcpClient

REPO = Path(__file__).resolve().parents[1]
ACPX_DIR = REPO / ".cache" / "bench" / "acpx"
# acpx 0.19.1 needs Node >= 22.13; npm's `node` package brings one into the
# install folder (the same pin as tests/interop/packages.txt), whatever the system has.
ACPX_PINS = ("acpx@0.19.1", "node@22.23.3")
DEMO = [sys.executable, "-m", "acphost.agents.demo"]
SLOW_START = (
    "import os, sys, time; time.sleep(1); "
    "os.execv(sys.executable, [sys.executable, '-m', 'acphost.agents.demo'])"
)


def _console_script() -> list[str]:
    script = Path(sys.executable).parent / "acphost"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    print(f"note: no console script at {script}; timing `python -m acphost` instead")
    return [sys.executable, "-m", "acphost"]


ACPHOST = _console_script()


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACPHOST_")}
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


@dataclass(frozen=True)
class Sample:
    """One run: seconds from its start to the first stdout byte, to any first byte, to its end."""

    first_out: float
    first_any: float
    end: float


def _timed(argv: list[str], cwd: Path, env: dict[str, str], *, check: bool = True) -> Sample:
    """Run ``argv`` with both pipes read as they come; raise when it fails or prints nothing."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first: dict[str, float] = {}
    err = bytearray()
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ, "out")
        sel.register(proc.stderr, selectors.EVENT_READ, "err")
        while sel.get_map():
            for key, _ in sel.select():
                data = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                first.setdefault(key.data, time.perf_counter() - start)
                if key.data == "err" and len(err) < 4096:
                    err += data
    code = proc.wait()
    end = time.perf_counter() - start
    if check and (code != 0 or "out" not in first):
        tail = err.decode(errors="replace").strip()[-400:]
        raise RuntimeError(f"{shlex.join(argv)} failed (exit {code}): {tail}")
    out = first.get("out", end)
    return Sample(out, min(first.values(), default=end), end)


def acphost(args: list[str], cwd: Path, env: dict[str, str], *, check: bool = True) -> Sample:
    return _timed([*ACPHOST, *args], cwd, env, check=check)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f}"


def spread(values: list[float]) -> str:
    """``median (min-max)`` in ms."""
    low, high = min(values) * 1000, max(values) * 1000
    return f"{ms(statistics.median(values))} ms ({low:.0f}-{high:.0f})"


def _name(label: str) -> str:
    return "bench-" + "".join(c if c.isalnum() else "-" for c in label)


def warm_vs_cold(
    agent: list[str], label: str, cwd: Path, env: dict[str, str], repeat: int
) -> list[Sample]:
    simple = [*agent, "-o", "simple"]
    acphost([*simple, "echo compile"], cwd, env)  # unmeasured: compiles the run's modules
    cold = [acphost([*simple, "echo hi"], cwd, env) for _ in range(repeat)]
    name = _name(label)
    acphost([*simple, "-s", name, "--keep-alive", "120s", "echo warm up"], cwd, env)
    try:
        warm = [acphost([*simple, "-s", name, "echo hi"], cwd, env) for _ in range(repeat)]
        acphost(["status", "-s", name], cwd, env)  # unmeasured: compiles its modules
        status = [acphost(["status", "-s", name], cwd, env) for _ in range(repeat)]
    finally:
        acphost([*simple, "-s", name, "--keep-alive", "0", "echo bye"], cwd, env, check=False)
    cold_first = statistics.median(s.first_out for s in cold)
    warm_first = statistics.median(s.first_out for s in warm)
    print(f"  {label}:")
    print(
        f"    cold  first output {spread([s.first_out for s in cold])}, "
        f"end {spread([s.end for s in cold])}"
    )
    print(
        f"    warm  first output {spread([s.first_out for s in warm])}, "
        f"end {spread([s.end for s in warm])}"
    )
    print(
        f"    `status -s NAME` (start-up + one round trip to the host): end "
        f"{spread([s.end for s in status])}"
    )
    verdict = "meets" if warm_first <= 0.10 * cold_first else "MISSES"
    ratio = warm_first / cold_first
    print(f"    warm/cold first output {ratio:6.1%} ({verdict} the <= 10% target)")
    return warm


def floor(cwd: Path, env: dict[str, str], repeat: int) -> None:
    acphost(["--version"], cwd, env)
    runs = [acphost(["--version"], cwd, env) for _ in range(repeat)]
    print(
        f"  `acphost --version` (the interpreter and the console script): end "
        f"{spread([s.end for s in runs])}"
    )


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def warm_imports(cwd: Path, env: dict[str, str]) -> None:
    """What a warm run imports (``-X importtime``): modules, total, the largest packages."""
    name = _name("imports")
    simple = ["-a", "demo", "-o", "simple", "-s", name]
    acphost([*simple, "--keep-alive", "60s", "echo warm up"], cwd, env)
    # The first run of this very command line resolves it and leaves the
    # shortcut the next ones take: measure one of those.
    acphost([*simple, "echo again"], cwd, env)
    try:
        proc = subprocess.run(
            [*ACPHOST, *simple, "echo hi"],
            cwd=cwd,
            env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    finally:
        acphost([*simple, "--keep-alive", "0", "echo bye"], cwd, env, check=False)
    found = [m for line in proc.stderr.splitlines() if (m := _IMPORT_LINE.match(line))]
    top_level = sum(int(m.group(2)) for m in found if len(m.group(3)) == 1)
    # Self times summed by package (acphost's by subpackage): where a warm run's
    # start-up goes, beyond the interpreter's own (`acphost --version`).
    groups: dict[str, int] = {}
    for m in found:
        parts = m.group(4).split(".")
        key = ".".join(parts[:2]) if parts[0] == "acphost" else parts[0]
        groups[key] = groups.get(key, 0) + int(m.group(1))
    largest = sorted(groups.items(), key=lambda kv: -kv[1])[:8]
    listed = ", ".join(f"{key} {us / 1000:.0f}" for key, us in largest)
    print(
        f"  a warm run's imports (-X importtime, which inflates them): {len(found)} modules, "
        f"{top_level / 1000:.0f} ms; by package (self, ms): {listed}"
    )


# -- acpx -------------------------------------------------------------------------------


class AcpxUnavailable(Exception):
    """acpx cannot be installed or run here; the message says why."""


def _installed(spec: str) -> bool:
    name, _, version = spec.rpartition("@")
    try:
        manifest = json.loads((ACPX_DIR / "node_modules" / name / "package.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("version") == version


def ensure_acpx() -> tuple[Path, Path]:
    """Install acpx and its node under ``.cache/bench/acpx`` if missing.

    Returns the acpx bin and the folder of the node binary it must run on.
    """
    npm = shutil.which("npm")
    if npm is None:
        raise AcpxUnavailable("npm is not installed")
    if not all(_installed(spec) for spec in ACPX_PINS):
        ACPX_DIR.mkdir(parents=True, exist_ok=True)
        print(f"  (installing {' '.join(ACPX_PINS)} into {ACPX_DIR})")
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--fetch-retries=1",
            "--fetch-timeout=60000",
            "--prefix",
            str(ACPX_DIR),
            *ACPX_PINS,
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        except subprocess.TimeoutExpired:
            raise AcpxUnavailable(
                "npm install took over 600 s (is the registry reachable?)"
            ) from None
        if proc.returncode != 0 or not all(_installed(spec) for spec in ACPX_PINS):
            last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
            raise AcpxUnavailable(f"npm install failed (exit {proc.returncode}): {last[0]}")
    node_bin = ACPX_DIR / "node_modules" / "node" / "bin"
    try:
        version = subprocess.run(
            [node_bin / "node", "--version"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise AcpxUnavailable(f"npm's node package gave no runnable node ({exc})") from None
    if not version.startswith("v22."):
        raise AcpxUnavailable(f"npm's node package runs {version!r}, not node 22")
    return ACPX_DIR / "node_modules" / ".bin" / "acpx", node_bin


def acpx_side_by_side(cwd: Path, env: dict[str, str], repeat: int) -> None:
    try:
        acpx_bin, node_bin = ensure_acpx()
    except AcpxUnavailable as exc:
        print(f"  acpx skipped: {exc}")
        return
    # The bin runs `#!/usr/bin/env node`: the pinned node first on PATH, as a user's would be.
    acpx_env = {**env, "PATH": f"{node_bin}{os.pathsep}{env.get('PATH', '')}"}
    agent = shlex.join(DEMO)
    base = [str(acpx_bin), "--agent", agent]
    name = "bench-acpx"
    ours = ["-a", "demo", "-o", "simple", "-s", name]
    started_acpx = False
    try:
        _timed([str(acpx_bin), "--version"], cwd, acpx_env)  # it runs on this node
        _timed([*base, "sessions", "new", "--name", name], cwd, acpx_env)
        started_acpx = True
        _timed([*base, "--ttl", "120", "prompt", "-s", name, "echo warm up"], cwd, acpx_env)
        acphost([*ours, "--keep-alive", "120s", "echo warm up"], cwd, env)
        theirs: list[Sample] = []
        mine: list[Sample] = []
        for _ in range(repeat):
            theirs.append(_timed([*base, "prompt", "-s", name, "echo hi"], cwd, acpx_env))
            mine.append(acphost([*ours, "echo hi"], cwd, env))
    except RuntimeError as exc:
        print(f"  acpx skipped: {exc}")
        return
    finally:
        if started_acpx:  # stops its queue owner and the agent
            _timed([*base, "sessions", "close", name], cwd, acpx_env, check=False)
        acphost([*ours, "--keep-alive", "0", "echo bye"], cwd, env, check=False)
    their_first = statistics.median(s.first_out for s in theirs)
    my_first = statistics.median(s.first_out for s in mine)
    their_end = statistics.median(s.end for s in theirs)
    my_end = statistics.median(s.end for s in mine)
    print(
        f"  acpx 0.19.1 `prompt -s NAME` (warm): first output "
        f"{spread([s.first_out for s in theirs])}, end {spread([s.end for s in theirs])}"
        f"; its stderr banner at {spread([s.first_any for s in theirs])}"
    )
    first, end = spread([s.first_out for s in mine]), spread([s.end for s in mine])
    print(f"  acphost `-s NAME` (warm), in turns: first output {first}, end {end}")
    verdict = "meets" if my_first < 0.5 * their_first else "MISSES"
    print(
        f"  acphost/acpx: first output {my_first / their_first:6.1%} ({verdict} the "
        f"'well under half' target), end {my_end / their_end:6.1%}"
    )
    # A run ends as its turn ends: its end less its first output is the turn's
    # tail and the exit, with no wait for silence.
    print(
        f"  after the first output: acpx runs {ms(their_end - their_first)} ms more, "
        f"acphost {ms(my_end - my_first)} ms"
    )


# -- the queue --------------------------------------------------------------------------


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


async def library_queue(cwd: Path, prompts: int) -> float:
    """Print (a); return a direct turn's seconds."""
    async with AcpClient.start(DEMO) as client:
        session = await client.new_session(str(cwd))
        await _direct(session, 20)  # warm up both paths
        await _queued(session, 20)
        direct = await _direct(session, prompts)
        queued = await _queued(session, prompts)
    print(
        f"  (a) library: {prompts} turns, prompt one by one {direct / prompts * 1000:6.2f} "
        f"ms/turn, enqueued at once {queued / prompts * 1000:6.2f} ms/turn, added "
        f"{(queued - direct) / prompts * 1000:+6.2f} ms/prompt"
    )
    return direct / prompts


async def _via_host(cwd: Path, name: str, prompts: int) -> float:
    """Seconds for ``prompts`` turns, each on its own connection to the warm host of ``name``.

    Raises:
        RuntimeError: the host's wire is not what this speaks (it changed).

    """
    # Imported here: the wire and the run's options are the lead's moving parts;
    # when they change, (b) falls back to the command line instead of the bench failing.
    from acphost.cli._named import _fingerprint  # noqa: PLC0415
    from acphost.cli._parser import build_parser  # noqa: PLC0415
    from acphost.content import text  # noqa: PLC0415
    from acphost.history import default_path, history_enabled  # noqa: PLC0415
    from acphost.launch import (  # noqa: PLC0415
        WIRE_LIMIT,
        named_places,
        receive_message,
        send_message,
    )

    (place,) = [p for p in named_places(str(cwd)) if p.name == name]
    # The options a run of `acphost -a demo -s NAME` sends: computed by the CLI itself.
    parsed = build_parser().parse_args(["-a", "demo", "-s", name, "x"])
    options = _fingerprint(parsed, default_path() if history_enabled() else None)

    async def one(i: int) -> None:
        reader, writer = await asyncio.open_unix_connection(place.socket, limit=WIRE_LIMIT)
        send_message(
            writer,
            {
                "op": "prompt",
                "prompt": [text(f"echo {i}").to_wire()],
                "text": f"echo {i}",
                "output": "simple",
                "tty": {"out": False, "err": False},
                "queue": True,
                "options": options,
                "ticket": None,
                "token": place.read_token(),
                "keep_alive": None,
                "limits": {},
            },
        )
        while True:
            message = await receive_message(reader)
            if message is None or message.get("t") in ("exit", "error", "refused", "gone"):
                break
        writer.close()
        if message is None or message.get("t") != "exit" or message.get("code") != 0:
            raise RuntimeError(f"the host answered {message!r}")

    for i in range(20):
        await one(i)
    start = time.perf_counter()
    for i in range(prompts):
        await one(i)
    return time.perf_counter() - start


def host_queue(cwd: Path, env: dict[str, str], prompts: int, repeat: int, turn: float) -> None:
    name = "bench-wire"
    simple = ["-a", "demo", "-o", "simple", "-s", name]
    acphost([*simple, "--keep-alive", "120s", "echo up"], cwd, env)
    try:
        try:
            via_host = asyncio.run(_via_host(cwd, name, prompts))
        except Exception as exc:  # the wire changed under this bench: say so, measure the CLI
            print(
                f"  (b) the host's wire: not measured ({type(exc).__name__}: {exc});"
                " from the command line instead:"
            )
        else:
            print(
                f"  (b) the host: {prompts} turns, direct {turn * 1000:6.2f} ms/turn, through "
                f"the host (a connection each) {via_host / prompts * 1000:6.2f} ms/turn, "
                f"added {(via_host / prompts - turn) * 1000:+6.2f} ms/prompt"
            )
            return
        runs = [acphost([*simple, "echo hi"], cwd, env).end for _ in range(repeat)]
        status = [acphost(["status", "-s", name], cwd, env).end for _ in range(repeat)]
    finally:
        acphost([*simple, "--keep-alive", "0", "echo bye"], cwd, env, check=False)
    added = statistics.median(runs) - statistics.median(status) - turn
    print(
        f"      a warm run {spread(runs)} - a status run {spread(status)} - a direct turn "
        f"{turn * 1000:.2f} ms = {added * 1000:+.1f} ms per prompt (an upper bound: it "
        "counts the prompt path's own imports and output too)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7, help="runs per figure (median)")
    p.add_argument("--prompts", type=int, default=200, help="turns for the queue's cost")
    p.add_argument("--quick", action="store_true", help="a fast look: --repeat 3 --prompts 50")
    p.add_argument("--no-acpx", action="store_true", help="skip the side by side with acpx")
    a = p.parse_args()
    if a.quick:
        a.repeat, a.prompts = 3, 50
    print(
        f"acphost: {shlex.join(ACPHOST)}; median (min-max) of {a.repeat} runs; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory(prefix="bench-named-") as tmp:
        home = Path(tmp)
        cwd = home / "ws"
        cwd.mkdir()
        env = _env(home)
        print("1. time to first output: a cold run vs a second prompt to a warm named session")
        floor(cwd, env, a.repeat)
        warm_vs_cold(["-a", "demo"], "demo", cwd, env, a.repeat)
        slow = shlex.join([sys.executable, "-c", SLOW_START])
        warm_vs_cold(["--agent-command", slow], "1 s start-up", cwd, env, a.repeat)
        warm_imports(cwd, env)
        print("2. a warm second prompt side by side with acpx 0.19.1 (the demo agent)")
        if a.no_acpx:
            print("  acpx skipped: --no-acpx")
        else:
            acpx_side_by_side(cwd, env, a.repeat)
        print("3. the queue's added cost per prompt (demo agent)")
        os.environ.update(env)
        turn = asyncio.run(library_queue(cwd, a.prompts))
        host_queue(cwd, env, a.prompts, a.repeat, turn)


if __name__ == "__main__":
    main()
