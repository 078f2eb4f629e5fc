"""The command line's shape, run as the real ``acphost``: global options before any
subcommand, usage errors, a reader of stdout that goes away."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.in_process import run_main
from tests.support.waiting import eventually_sync

from .runner import run


@pytest.fixture
def home(tmp_path):
    """An isolated history store and settings file; the test runs in ``tmp_path``."""
    settings = tmp_path / "s.json"
    settings.write_text(json.dumps({"agent_servers": {}}))
    return {"ACPHOST_HISTORY": str(tmp_path / "history.sqlite3")}


@pytest.mark.parametrize(
    "argv",
    [
        ["-v", "history", "info"],
        ["-a", "demo", "history", "list"],
        ["--settings", "s.json", "history", "list"],
        ["history", "-v", "info"],
        ["--cwd", ".", "history"],
        ["-v", "usage"],
        ["-a", "demo", "--settings", "s.json", "usage", "--by", "day"],
        ["-v", "trust", "--list"],
        ["--settings", "s.json", "agents"],
        ["-v", "validate", "--help"],
        ["-v", "batch", "--help"],
        ["-v", "batch", "report", "--help"],
        ["-a", "demo", "replay", "--help"],
    ],
)
def test_global_options_before_any_subcommand(argv, tmp_path, home):
    """Every subcommand takes the global options given before its name, as doctor does."""
    r = run(argv, cwd=tmp_path, env=home)
    assert r.returncode == 0, r.stderr
    assert "unrecognized" not in r.stderr


def test_global_filter_options_keep_their_meaning(tmp_path, home):
    """``acphost -a NAME history list`` is ``acphost history list -a NAME``: the filter applies."""
    assert run(["-o", "simple", "echo one"], cwd=tmp_path, env=home).returncode == 0
    listed = run(["-a", "demo", "history", "list"], cwd=tmp_path, env=home).stdout
    assert len(listed.splitlines()) == 2  # the header and the one session
    listed = run(["-a", "other", "history", "list"], cwd=tmp_path, env=home).stdout
    assert len(listed.splitlines()) == 1


_HINT = re.compile(r"^(acphost(?: [a-z]+)*): [^\n]+; see '\1 --help'\n$")


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["history", "bogus"], "acphost history"),
        (["history", "show"], "acphost history show"),
        (["history", "prune"], "acphost history prune"),
        (["history", "prune", "--older-than", "soon"], "acphost history prune"),
        (["usage", "--by", "nope"], "acphost usage"),
        (["usage", "-o", "xml"], "acphost usage"),
        (["replay"], "acphost replay"),
        (["trust", "--bogus"], "acphost trust"),
        (["batch", "--bogus"], "acphost batch"),
        (["batch", "report"], "acphost batch report"),
        (["validate"], "acphost validate"),
        (["doctor", "--bogus"], "acphost doctor"),
        ([""], "acphost"),
        (["--replay-context", "hi"], "acphost"),
        (["-a", "demo", "--agent-command", "python -m acphost.agents.demo", "hi"], "acphost"),
        (["-a", "nosuchagent", "hi"], "acphost"),
        (["--bogus"], "acphost"),
    ],
)
def test_a_usage_error_is_one_line_and_a_pointer_to_help(argv, prog, tmp_path, home):
    r = run(argv, cwd=tmp_path, env=home, input="")
    assert r.returncode == 2
    match = _HINT.match(r.stderr)
    assert match is not None, r.stderr
    assert match.group(1) == prog
    assert r.stdout == ""


@pytest.mark.parametrize(
    "argv",
    [["usage"], ["history", "list"], ["history", "info"], ["agents"], ["trust", "--list"]],
)
def test_a_listing_whose_reader_went_away_ends_quietly(argv, tmp_path, home):
    """``acphost usage | true``: no "Broken pipe" message; exit 1, as a prompt run's."""
    assert run(["-o", "simple", "echo one"], cwd=tmp_path, env=home).returncode == 0
    (tmp_path / ".acphost").mkdir()
    (tmp_path / ".acphost" / "settings.json").write_text('{"agent_servers": {}}')
    assert run(["trust", str(tmp_path)], cwd=tmp_path, env=home).returncode == 0
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first write
    proc = subprocess.run(
        [sys.executable, "-m", "acphost", *argv],
        cwd=tmp_path,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ACPHOST_SETTINGS": "", "XDG_CONFIG_HOME": str(tmp_path / ".xdg"), **home},
        timeout=60,
    )
    os.close(write)
    assert (proc.returncode, proc.stderr) == (1, "")


def test_the_claude_preset_is_claude_agent_acp(tmp_path, home):
    """`-a claude` runs the package tests/interop runs against, not its superseded predecessor."""
    r = run(["agents"], cwd=tmp_path, env=home)
    rows = {line.split()[0]: line.split()[3:] for line in r.stdout.splitlines()[1:] if line.strip()}
    for name in ("claude", "claude-code", "claude-code-acp", "claude-acp"):
        assert rows[name] == ["npx", "-y", "@agentclientprotocol/claude-agent-acp@0.101.0"], name
    assert "@zed-industries/claude-code-acp" not in r.stdout
    interop = (Path(__file__).parents[1] / "interop" / "packages.txt").read_text()
    assert "@agentclientprotocol/claude-agent-acp@0.101.0" in interop.splitlines()


def test_slash_commands_sent_during_a_turn_are_not_printed_amid_the_answer(tmp_path, home):
    """The demo's `commands` turn sends available_commands_update mid-turn, as its start-up
    update may arrive (or not) during any turn: -o text shows the same answer either way."""
    r = run(["commands"], cwd=tmp_path, env=home)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Sent the list of slash commands.\n"
    r = run(["--list-commands", "echo x"], cwd=tmp_path, env=home)
    section, answer = r.stdout.split("\n\n", 1)
    assert section.startswith("commands") and "/" in section
    assert answer == "x\n"


def test_a_huge_agent_error_is_printed_bounded(tmp_path, hostile_env):
    """A 4 MB error.message and 4 MB of error.data reach stderr as a few KB, saying what was cut."""
    r = run_main(["hugeerror"], cwd=tmp_path, env=hostile_env)
    assert r.returncode == 1
    assert len(r.stderr) < 10_000, len(r.stderr)
    message, data = r.stderr.splitlines()
    assert message.startswith("acphost: the agent answered an error: huge mmm")
    assert re.search(r"m… \(\d+ more characters\)$", message), message[-80:]
    cut = int(re.search(r"\((\d+) more characters\)$", message).group(1))
    assert cut == len("huge ") + (4 << 20) + len(" (JSON-RPC error -32603)") - 2000
    assert data.startswith('  data: {"why": "ddd')
    assert re.search(r"d… \(\d+ more characters\)$", data), data[-80:]


def _alive(pid):
    """Whether ``pid`` runs (a zombie waiting for a reaper has ended; ours is reaped)."""
    with contextlib.suppress(ChildProcessError):  # not our child: another process reaps it
        os.waitpid(pid, os.WNOHANG)
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def subreaper():
    """Orphans are re-parented to this process, not to an init that may end them itself.

    A container's init (or systemd --user) may kill what is re-parented to it;
    then a process acphost left behind would vanish anyway. As the subreaper,
    the test sees what acphost really left running.
    """
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_CHILD_SUBREAPER is Linux's")
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        pytest.skip("cannot become a subreaper")
    left = []
    yield left
    prctl(36, 0, 0, 0, 0)
    for pid in left:  # whatever a failing run left behind
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_stops_the_agent_its_children_and_terminals(
    tmp_path, home, sig, subreaper
):
    """Like a second Ctrl-C: the agent's process group and the terminals end, the turn is
    recorded as interrupted, and acphost exits 128 + the signal."""
    agent = Path(__file__).with_name("forking_agent.py")
    settings = tmp_path / "s.json"
    settings.write_text(json.dumps(
        {"agent_servers": {"forking": {"command": sys.executable, "args": [str(agent)]}}}
    ))  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", "--settings", str(settings), "--approve-all", "go"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / ".xdg"), **home},
    )
    names = ("agent", "child", "term")
    eventually_sync(
        lambda: all((tmp_path / f"{n}.pid").exists() for n in names),
        timeout=15.0,
        what="the agent and its child writing their pids",
    )
    pids = {n: int((tmp_path / f"{n}.pid").read_text()) for n in names}
    subreaper.extend(pids.values())
    assert all(_alive(pid) for pid in pids.values())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err, err
    for name, pid in pids.items():
        eventually_sync(
            lambda pid=pid: not _alive(pid), timeout=15.0, what=f"the {name} ({pid}) ending"
        )
    (record,) = json.loads(run(["history", "list", "-o", "json"], cwd=tmp_path, env=home).stdout)
    sid = record["id"]
    (turn,) = json.loads(
        run(["history", "export", sid, "-f", "json"], cwd=tmp_path, env=home).stdout
    )["session"]["turns"]
    assert turn["host_stop"] == "interrupted" and turn["error"], turn


def test_the_codex_and_qwen_presets_are_the_versions_interop_runs(tmp_path, home):
    """`-a codex` and `-a qwen` run the packages tests/interop pins, in a mode that asks the client."""
    from acphost.config import presets

    known = presets()
    codex, qwen = known["codex"], known["qwen"]
    assert codex.args == ("-y", "@agentclientprotocol/codex-acp@2.6.0")
    assert codex.env["INITIAL_AGENT_MODE"] == "read-only"
    assert qwen.args == ("-y", "@qwen-code/qwen-code@0.24.4", "--acp", "--approval-mode", "default")
    interop = (Path(__file__).parents[1] / "interop" / "packages.txt").read_text().splitlines()
    assert {"@agentclientprotocol/codex-acp@2.6.0", "@qwen-code/qwen-code@0.24.4"} <= set(interop)
    r = run(["agents"], cwd=tmp_path, env=home)
    assert "@zed-industries/codex-acp" not in r.stdout
