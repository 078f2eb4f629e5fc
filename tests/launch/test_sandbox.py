"""The OS sandbox around the agent, through real processes: the CLI, a scripted agent, a shell.

The agent (``probe_agent.py``) tries on its own what the sandbox must stop;
the same run with ``--no-sandbox`` shows each attempt succeeds without it,
so a refusal is the sandbox's doing, not the test's setup.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from acphost.host import sandbox_support
from acphost.launch import RunOptions, UsageProblem, open_run
from tests.support.sandboxing import private_view

HERE = Path(__file__).resolve().parent
ABI, WHY = sandbox_support()
needs_landlock = pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")
# A denied folder is refused by Landlock; in the private view it is also
# covered by an empty folder, so what was in it is not even there.
SECRET = "ENOENT" if private_view()[0] else "EACCES"


@pytest.fixture
def place(tmp_path):
    """A home with a key, a state folder with a history, a workspace, a folder outside."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    state = tmp_path / "state"
    (state / "acphost").mkdir(parents=True)
    history = state / "acphost" / "history.sqlite3"
    history.write_text("the user's history\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    env = {
        "HOME": str(home),
        "XDG_STATE_HOME": str(state),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "ACPHOST_SETTINGS": "",
        "PROBE_OUTSIDE": str(outside),
        "PROBE_HISTORY": str(history),
    }
    return {"ws": ws, "outside": outside, "env": env, "tmp": tmp_path}


def acphost(place, *flags: str) -> subprocess.CompletedProcess[str]:
    agent = shlex.join([sys.executable, str(HERE / "probe_agent.py")])
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "acphost",
            "--agent-command",
            agent,
            "--approve-all",
            "--no-history",
            "-o",
            "simple",
            *flags,
            "probe",
        ],
        cwd=place["ws"],
        env={**os.environ, **place["env"]},
        capture_output=True,
        text=True,
        timeout=60,
    )


def outcomes(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_landlock
def test_the_agent_its_children_and_its_terminals_write_only_inside_and_read_no_secrets(place):
    got = outcomes(acphost(place, "-v"))
    assert got == {
        "write_inside": "ok",
        "read_workspace": "ok",
        "write_tmpdir": "ok",
        "write_outside": "EACCES",
        "read_ssh": SECRET,
        "read_history": SECRET,
        "child_write_outside": "EACCES",
        "terminal_write_outside": "EACCES",
    }
    assert os.listdir(place["outside"]) == []


@needs_landlock
def test_without_the_sandbox_the_same_attempts_succeed(place):
    done = acphost(place, "--no-sandbox")
    assert set(outcomes(done).values()) == {"ok"}
    assert sorted(os.listdir(place["outside"])) == ["agent.txt", "child.txt", "terminal.txt"]
    assert "unconfined" not in done.stderr  # asked for: no warning


@needs_landlock
def test_verbose_says_what_was_granted_and_the_private_temp_folder_is_removed(place):
    done = acphost(place, "-v")
    lines = [line for line in done.stderr.splitlines() if "sandbox:" in line]
    text = "\n".join(lines)
    assert f"writes: {place['ws']}" in text
    assert "~/.ssh" in text and "Landlock ABI" in text
    temp = next(p for p in text.split(", ") if "acphost-agent-" in p)
    assert not os.path.exists(temp.strip())


@needs_landlock
def test_settings_can_turn_it_off_per_agent_and_widen_writes(place):
    agent = [sys.executable, str(HERE / "probe_agent.py")]
    settings = place["tmp"] / "settings.json"
    entry = {"command": agent[0], "args": agent[1:], "sandbox": {"write": [str(place["outside"])]}}
    settings.write_text(json.dumps({"agent_servers": {"probe": entry}}))
    env = {**os.environ, **place["env"], "ACPHOST_SETTINGS": str(settings)}
    argv = [
        sys.executable,
        "-m",
        "acphost",
        "-a",
        "probe",
        "--approve-all",
        "--no-history",
        "-o",
        "simple",
        "probe",
    ]
    done = subprocess.run(
        argv, cwd=place["ws"], env=env, capture_output=True, text=True, timeout=60
    )
    got = outcomes(done)
    assert got["write_outside"] == "ok" and got["terminal_write_outside"] == "ok"
    assert got["read_ssh"] == SECRET
    entry["sandbox"] = False
    settings.write_text(json.dumps({"agent_servers": {"probe": entry}}))
    done = subprocess.run(
        argv, cwd=place["ws"], env=env, capture_output=True, text=True, timeout=60
    )
    assert outcomes(done)["read_ssh"] == "ok"


def test_a_bad_sandbox_setting_is_one_line_and_exit_2(place):
    settings = place["tmp"] / "settings.json"
    entry = {"command": "x", "sandbox": {"write": "/tmp"}}
    settings.write_text(json.dumps({"agent_servers": {"probe": entry}}))
    env = {**os.environ, **place["env"], "ACPHOST_SETTINGS": str(settings)}
    done = subprocess.run(
        [sys.executable, "-m", "acphost", "hi"],
        cwd=place["ws"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "sandbox.write must be a list of paths" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_sandbox_asked_for_where_it_cannot_be_had_is_one_line_and_exit_2(place):
    # No Landlock on this "system": the run is refused before anything starts.
    code = (
        "import sys\n"
        "from acphost.host import _landlock\n"
        "_landlock.abi_version = lambda: 0\n"
        "from acphost.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    argv = [sys.executable, "-c", code, "-a", "demo"]
    env = {**os.environ, **place["env"], "ACPHOST_DEMO_STEP": "0"}
    done = subprocess.run(
        [*argv, "--sandbox", "hi"],
        cwd=place["ws"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "--sandbox" in done.stderr
    # Settings "sandbox": true insists the same way.
    settings = place["tmp"] / "insist.json"
    entry = {"command": sys.executable, "args": ["-m", "acphost.agents.demo"], "sandbox": True}
    settings.write_text(json.dumps({"agent_servers": {"demo": entry}}))
    done = subprocess.run(
        [sys.executable, "-c", code, "--settings", str(settings), "hi"],
        cwd=place["ws"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "sandbox" in done.stderr
    # By default the agent runs, unconfined, and one line says so.
    done = subprocess.run(
        [*argv, "hi"], cwd=place["ws"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if "unconfined" in line] != []


@needs_landlock
async def test_the_library_assembly_confines_by_default_and_cleans_up(place, monkeypatch):
    for key, value in place["env"].items():
        monkeypatch.setenv(key, value)
    from acphost.config import agent_from_command

    spec = agent_from_command(shlex.join([sys.executable, str(HERE / "probe_agent.py")]))
    async with open_run(RunOptions(spec, str(place["ws"]))) as run:
        sandbox = run.confinement
        assert sandbox is not None and run.unconfined is None
        temp = sandbox.temp
        assert os.path.isdir(temp) and temp in sandbox.write
    assert not os.path.exists(temp)
    async with open_run(RunOptions(spec, str(place["ws"]), confine=False)) as run:
        assert run.confinement is None and run.unconfined


async def test_confine_true_where_it_cannot_be_had_is_refused_before_the_spawn(place, monkeypatch):
    from acphost.config import DEMO
    from acphost.host import _landlock

    monkeypatch.setattr(_landlock, "abi_version", lambda: 0)
    run = open_run(RunOptions(DEMO, str(place["ws"]), confine=True))
    with pytest.raises(UsageProblem, match="sandbox"):
        async with run:
            pytest.fail("the run should not have opened")
    assert run.failed_in == "spawn" and run.transport is None


@needs_landlock
def test_a_run_that_fails_on_a_refused_path_says_once_how_to_allow_it(place):
    target = place["outside"] / "state.json"
    code = f"open({str(target)!r}, 'w')"
    agent = shlex.join([sys.executable, "-c", code])
    env = {**os.environ, **place["env"]}
    done = subprocess.run(
        [sys.executable, "-m", "acphost", "--agent-command", agent, "hi"],
        cwd=place["ws"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    hints = [line for line in done.stderr.splitlines() if "sandbox refused" in line]
    assert len(hints) == 1, done.stderr
    assert str(target) in hints[0]
    assert f'"sandbox": {{"write": ["{place["outside"]}"]}}' in hints[0]
    done = subprocess.run(
        [sys.executable, "-m", "acphost", "--no-sandbox", "--agent-command", agent, "hi"],
        cwd=place["ws"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "sandbox refused" not in done.stderr and target.exists()


@needs_landlock
def test_the_demo_agent_runs_confined_and_keeps_its_sessions(place):
    env = {**os.environ, **place["env"], "ACPHOST_DEMO_STEP": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "acphost", "-v", "-a", "demo", "--no-history", "hello"],
        cwd=place["ws"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "sandbox: Landlock ABI" in done.stderr
    sessions = Path(place["env"]["XDG_STATE_HOME"]) / "acphost" / "demo"
    assert any(sessions.iterdir())  # written by the confined agent


@needs_landlock
@pytest.mark.parametrize("target", ["source", "out", "sibling"])
def test_a_batch_runs_agent_writes_only_its_own_copy(place, target):
    """Never the source checkout, the results folder, or another run's workspace."""
    source = place["ws"]
    (source / "README.md").write_text("# source\n")
    out = place["tmp"] / "out"
    # Kept workspaces are made side by side there: each run's beside the others'.
    outside = {"source": source, "out": out, "sibling": out / "workspaces"}[target]
    agent = shlex.join([sys.executable, str(HERE / "probe_agent.py")])
    env = {**os.environ, **place["env"], "PROBE_OUTSIDE": str(outside)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acphost",
            "batch",
            "--agent-command",
            agent,
            "-p",
            "probe",
            "--repeat",
            "2",
            "--jobs",
            "1",
            "--keep-workspaces",
            "--workspace",
            str(source),
            "--out",
            str(out),
            "--approve-all",
            "--no-history",
        ],
        cwd=place["tmp"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    texts = [json.loads(run["final_text"]) for run in report["runs"]]
    assert len(texts) == 2
    for got in texts:
        assert got["write_inside"] == "ok"
        assert got["write_outside"] == got["child_write_outside"] == "EACCES"
        assert got["terminal_write_outside"] == "EACCES"
    names = {"agent.txt", "child.txt", "terminal.txt", "inside.txt"}
    assert not names & set(os.listdir(outside))


@needs_landlock
def test_doctor_says_whether_and_how_the_agent_is_confined(place):
    env = {**os.environ, **place["env"], "ACPHOST_DEMO_STEP": "0"}

    def doctor(*flags: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "acphost", "doctor", "-a", "demo", *flags],
            cwd=place["ws"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    shown = doctor()
    assert f"sandbox:      Landlock ABI {ABI}" in shown
    assert f"writes: {place['ws']}" in shown and "reads: everywhere except" in shown
    assert "~/.ssh" in shown
    assert "sandbox:      none: the agent runs unconfined" in doctor("--no-sandbox")
