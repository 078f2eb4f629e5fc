"""``acphost batch`` as users run it: a real subprocess, real agents, signals, a pty."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .conftest import FILES, WAIT_AGENT, acphost, git, pids_in, tree, wait_gone

WAIT_CMD = f"{sys.executable} {WAIT_AGENT}"
FAST = {"ACPHOST_DEMO_STEP": "0"}


def test_a_batch_from_flags_writes_the_reports_and_exits_1_when_a_run_fails(git_ws, tmp_path):
    out = tmp_path / "out"
    r = acphost(
        [
            "batch",
            "-a",
            "demo",
            "-p",
            "echo hi",
            "-p",
            "crash",
            "--repeat",
            "2",
            "--workspace",
            str(git_ws),
            "--out",
            str(out),
            "-j",
            "2",
        ],
        cwd=tmp_path,
        env=FAST,
    )
    assert r.returncode == 1, r.stderr
    assert "4 of 4 runs: 2 error, 2 ok; report: " in r.stdout
    lines = [x for x in r.stderr.splitlines() if x.startswith("acphost batch: [")]
    assert len(lines) == 4 and "Traceback" not in r.stderr
    report = json.loads((out / "report.json").read_text())
    assert sorted(run["status"] for run in report["runs"]) == ["error", "error", "ok", "ok"]
    # Every run is in the history (the crash comes mid-turn, after session/new).
    r = acphost(["history", "list"], cwd=tmp_path)
    assert r.stdout.count("\tdemo\t") == 4


def test_every_run_ok_exits_0_and_no_history_records_nothing(plain_ws, tmp_path):
    r = acphost(
        [
            "batch",
            "-p",
            "echo hi",
            "--workspace",
            str(plain_ws),
            "--out",
            str(tmp_path / "out"),
            "--no-history",
        ],
        cwd=tmp_path,
        env=FAST,
    )
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "xdg-data" / "acphost").exists()


def test_a_spec_file_holds_the_same_options(git_ws, tmp_path):
    (tmp_path / "prompts.jsonl").write_text(
        '{"id": "greet", "prompt": "echo hello"}\n{"id": "make", "prompt": '
        "\"terminal sh -c 'echo x > x.txt'\"}\n"
    )
    (tmp_path / "suite.toml").write_text(
        f"""
prompts_file = "prompts.jsonl"
workspace = "{git_ws}"
out = "results"
write = true
repeat = 2
jobs = 4

[[agent]]
name = "mine"
command = "{sys.executable}"
args = ["-m", "acphost.agents.demo"]
env = {{ ACPHOST_DEMO_STEP = "0" }}
"""
    )
    r = acphost(["batch", "--spec", "suite.toml"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads((tmp_path / "results" / "report.json").read_text())
    assert sorted(run["id"] for run in report["runs"]) == [
        "mine--greet--0",
        "mine--greet--1",
        "mine--make--0",
        "mine--make--1",
    ]
    made = [run for run in report["runs"] if run["prompt_id"] == "make"]
    assert all(run["changed_files"] == [{"path": "x.txt", "change": "added"}] for run in made)
    # Flags win over the spec: --repeat 1 on the same output directory redoes nothing.
    r = acphost(["batch", "--spec", "suite.toml", "--repeat", "1"], cwd=tmp_path)
    assert r.returncode == 0 and "acphost batch: [" not in r.stderr


def test_usage_errors_exit_2_with_one_line(plain_ws, tmp_path):
    cases = [
        (["--ask", "-p", "x"], "--ask cannot be used with batch"),
        (["--jobs", "0", "-p", "x"], "--jobs must be at least 1"),
        (["--spec", "missing.toml"], "the --spec file"),
        (["--prompts", "missing.txt"], "the --prompts file missing.txt does not exist"),
        (["-a", "nosuchagent", "-p", "x"], "nosuchagent"),
        (["--workspace", "nowhere", "-p", "x"], "is not a directory"),
        (["--out", "bad.toml", "-p", "x"], "bad.toml is not a directory; choose another --out"),
        (["-p", "x", "-p", "y", "--agent-command", "'unbalanced"], "--agent-command"),
    ]
    (tmp_path / "bad.toml").write_text("colour = 'blue'\n")
    cases.append((["--spec", "bad.toml"], "colour: unknown key"))
    (tmp_path / "rules.json").write_text("not json")
    cases.append((["--permission-policy", "rules.json", "-p", "x"], "rules.json"))
    for args, needle in cases:
        r = acphost(
            ["batch", "--workspace", str(plain_ws), *args]
            if "--workspace" not in args
            else ["batch", *args],
            cwd=tmp_path,
        )
        assert r.returncode == 2, (args, r.stderr)
        assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)


def test_batch_report_renders_the_reports_again(plain_ws, tmp_path):
    out = tmp_path / "out"
    acphost(
        ["batch", "-p", "echo <b>bold</b>", "--workspace", str(plain_ws), "--out", str(out)],
        cwd=tmp_path,
        env=FAST,
    )
    for name in ("report.json", "report.md", "report.html"):
        (out / name).unlink()
    r = acphost(["batch", "report", str(out)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(out / f"report.{x}") for x in ("json", "md", "html")]
    html = (out / "report.html").read_text()
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    r = acphost(["batch", "report", str(tmp_path)], cwd=tmp_path)
    assert r.returncode == 2 and "no batch.json" in r.stderr


def _start(args, cwd, env):
    return subprocess.Popen(
        [sys.executable, "-m", "acphost", *args],
        cwd=cwd,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(condition, proc, timeout=30.0):
    end = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the batch did not get there in time"
        time.sleep(0.02)


def test_ctrl_c_cancels_every_running_turn_writes_the_report_and_leaves_no_process(
    git_ws, tmp_path
):
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    out = tmp_path / "out"
    proc = _start(
        [
            "batch",
            "--no-sandbox",  # the agents note their pids outside their workspaces
            "--agent-command",
            WAIT_CMD,
            "-p",
            "wait 60",
            "--repeat",
            "6",
            "-j",
            "3",
            "--workspace",
            str(git_ws),
            "--out",
            str(out),
        ],
        tmp_path,
        {"WAIT_AGENT_PIDFILE_DIR": str(pid_dir)},
    )
    _wait_for(lambda: len(pids_in(pid_dir)) == 3, proc)
    # The agents are up; wait until each has its prompt (its trace shows it), then interrupt.
    _wait_for(
        lambda: (
            sum('"session/prompt"' in p.read_text() for p in out.glob("runs/*/trace.jsonl")) == 3
        ),
        proc,
    )
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted" in stdout
    assert wait_gone(pids_in(pid_dir)) == []
    report = json.loads((out / "report.json").read_text())
    assert [run["status"] for run in report["runs"]] == ["cancelled"] * 3
    assert all(run["stop_reason"] == "cancelled" for run in report["runs"])
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1
    assert tree(git_ws) == FILES


def test_resume_after_the_batch_was_killed(git_ws, tmp_path):
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    out = tmp_path / "out"
    release = tmp_path / "release"
    env = {"WAIT_AGENT_PIDFILE_DIR": str(pid_dir), "WAIT_AGENT_RELEASE": str(release)}
    args = [
        "batch",
        "--no-sandbox",  # the agents note their pids outside their workspaces
        "--agent-command",
        WAIT_CMD,
        "-p",
        "touch done.txt",
        "-p",
        "block",
        "--repeat",
        "2",
        "-j",
        "2",
        "--workspace",
        str(git_ws),
        "--out",
        str(out),
    ]
    proc = _start(args, tmp_path, env)
    try:
        results = lambda: sorted(p.parent.name for p in out.glob("runs/*/result.json"))  # noqa: E731
        # Runs go p1#0, p2#0, p1#1, p2#1: the two "touch" runs end, the two "block" runs wait.
        _wait_for(lambda: len(results()) == 2 and len(pids_in(pid_dir)) == 4, proc)
        # The results folder holds only the work directory's id; the workspaces are in it.
        ident = (out / ".workdir").read_text().strip()
        workdir = Path(tempfile.gettempdir()).resolve() / f"acphost-batch-{ident}"
        runs_in = lambda: [p for p in workdir.iterdir() if not p.name.startswith(".")]  # noqa: E731
        _wait_for(lambda: len(runs_in()) == 2, proc)
        finished = {name: (out / "runs" / name / "result.json").read_text() for name in results()}
    finally:  # killed here as in the test, or on a failure: no batch outlives the test
        proc.kill()
        proc.communicate(timeout=30)
    assert wait_gone(pids_in(pid_dir)) == []  # the agents died with their host
    leftovers = runs_in()
    assert len(leftovers) == 2 and len(git(git_ws, "worktree", "list").splitlines()) == 3
    release.write_text("go")
    r = acphost(args, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    redone = [x for x in r.stderr.splitlines() if x.startswith("acphost batch: [")]
    assert len(redone) == 2 and all("--p2--" in x for x in redone)
    for name, text in finished.items():
        assert (out / "runs" / name / "result.json").read_text() == text
    assert not any(os.path.exists(p) for p in leftovers)
    assert not workdir.exists() and not (out / ".workdir").exists()
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1
    report = json.loads((out / "report.json").read_text())
    assert [run["status"] for run in report["runs"]] == ["ok"] * 4


def test_live_progress_on_a_terminal_shows_agent_text_inert(plain_ws, tmp_path):
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "acphost",
            "batch",
            "--agent-command",
            WAIT_CMD,
            "-p",
            "fail \x1b]0;pwned\x07",
            "-p",
            "wait 0",
            "--workspace",
            str(plain_ws),
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=tmp_path,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "160"},
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        assert ready, "no output from the batch on its terminal"
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed: the batch ended
            break
        if not chunk:
            break
        seen += chunk
    stdout = proc.communicate(timeout=30)[0].decode()
    os.close(master)
    assert proc.returncode == 1
    text = seen.decode("utf-8", "replace")
    assert "✓ python--p2--0 ok (end_turn)" in text
    assert "✗ python--p1--0 error" in text
    # The agent's error message reaches the terminal with its escape made visible.
    assert "\x1b]0;pwned" not in text and "\\x1b]0;pwned\\x07" in text
    assert "2 of 2 runs: 1 error, 1 ok" in stdout
    assert Path(tmp_path / "out" / "report.html").is_file()


def test_a_huge_agent_error_is_shown_bounded(plain_ws, tmp_path):
    """A run whose agent answers with a 4 MB error.message is one line of a few KB."""
    hostile = Path(__file__).parents[1] / "cli" / "hostile_agent.py"
    r = acphost(
        ["batch", "--agent-command", f"{sys.executable} {hostile}", "-p", "hugeerror",
         "--workspace", str(plain_ws), "--out", str(tmp_path / "out"), "--no-history"],
        cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 1, r.stderr[-500:]
    (line,) = [x for x in r.stderr.splitlines() if x.startswith("acphost batch: [")]
    assert "the agent answered an error: huge mmm" in line and len(line) < 3000, len(line)
    assert line.endswith("more characters)")
