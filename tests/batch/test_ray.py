"""The Ray executor on a real local cluster (a head started here, on 127.0.0.1).

The cluster is started once for the module with ``ray start --head --block``
in its own process group, and that group is ended afterwards: nothing else
on the machine is touched.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from .conftest import FILES, WAIT_AGENT, acphost, git, pids_in, tree, wait_gone

WAIT_CMD = f"{sys.executable} {WAIT_AGENT}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def ray_cluster():
    """A local cluster: its address and its workers' temporary directory."""
    pytest.importorskip(
        "ray", reason="the Ray executor needs the ray extra: pip install 'acphost[ray]'"
    )
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="acph-ray-", dir="/tmp")  # Ray's socket paths must stay short
    # The workers' temporary directory (kept workspaces go there) is the test's own.
    os.mkdir(os.path.join(temp, "tmp"))
    env = {
        **os.environ,
        "ACPHOST_DEMO_STEP": "0",
        "RAY_USAGE_STATS_ENABLED": "0",
        "TMPDIR": os.path.join(temp, "tmp"),
    }
    head = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("ray")),
            "start",
            "--head",
            "--block",
            "--node-ip-address=127.0.0.1",
            f"--port={port}",
            f"--temp-dir={temp}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    started = threading.Event()
    log: list[str] = []

    def read() -> None:
        assert head.stdout is not None
        for line in head.stdout:
            log.append(line)
            if "Ray runtime started" in line:
                started.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not started.wait(180):
            pytest.fail("the Ray head did not start:\n" + "".join(log[-30:]))
        yield f"127.0.0.1:{port}", os.path.join(temp, "tmp")
    finally:
        try:
            os.killpg(head.pid, signal.SIGTERM)
            head.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(10)
        except ProcessLookupError:
            pass
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def ray_address(ray_cluster):
    return ray_cluster[0]


@pytest.mark.timeout(300)
def test_a_batch_runs_on_a_local_ray_cluster(ray_address, git_ws, tmp_path):
    out = tmp_path / "out"
    args = [
        "batch",
        "--executor",
        "ray",
        "--ray-address",
        ray_address,
        "--ray-cpus",
        "0.5",
        "-a",
        "demo",
        "-p",
        "echo hi",
        "-p",
        "terminal sh -c 'echo made > made.txt'",
        "-p",
        "crash",
        "--write",
        "-j",
        "3",
        "--workspace",
        str(git_ws),
        "--out",
        str(out),
    ]
    r = acphost(args, cwd=tmp_path, env={"ACPHOST_DEMO_STEP": "0"}, timeout=240)
    assert r.returncode == 1, r.stderr  # the crash
    report = json.loads((out / "report.json").read_text())
    runs = {run["prompt_id"]: run for run in report["runs"]}
    assert report["batch"]["executor"] == "ray"
    assert runs["p1"]["status"] == "ok" and runs["p1"]["final_text"].startswith("hi")
    assert runs["p2"]["changed_files"] == [{"path": "made.txt", "change": "added"}]
    assert "+made" in (out / runs["p2"]["diff"]).read_text()
    assert (
        runs["p3"]["status"] == "error"
        and "crashing on purpose" in runs["p3"]["error"]["stderr_tail"]
    )
    for run in runs.values():
        assert run["node"] not in ("", "local")
        assert (out / run["trace"]).read_text().startswith("{")
    assert tree(git_ws) == FILES and len(git(git_ws, "worktree", "list").splitlines()) == 1
    # The runs came back into this machine's history.
    listed = acphost(["history", "list"], cwd=tmp_path).stdout
    assert listed.count("\tdemo\t") == 3
    # The same command again: every run is already there.
    r = acphost(args, cwd=tmp_path, env={"ACPHOST_DEMO_STEP": "0"}, timeout=240)
    assert r.returncode == 1 and "acphost batch: [" not in r.stderr, r.stderr


@pytest.mark.timeout(300)
def test_ctrl_c_on_ray_cancels_the_turns_and_leaves_no_agent(ray_address, plain_ws, tmp_path):
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "acphost",
            "batch",
            "--executor",
            "ray",
            "--ray-address",
            ray_address,
            "--ray-cpus",
            "0.5",
            "--ray-env",
            "WAIT_AGENT_PIDFILE_DIR",
            "--no-sandbox",  # the agents note their pids outside their workspaces
            "--agent-command",
            WAIT_CMD,
            "-p",
            "wait 120",
            "--repeat",
            "4",
            "-j",
            "2",
            "--workspace",
            str(plain_ws),
            "--out",
            str(out),
        ],
        cwd=tmp_path,
        env={**os.environ, "WAIT_AGENT_PIDFILE_DIR": str(pid_dir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    end = time.monotonic() + 180
    while len(pids_in(pid_dir)) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the runs did not start on the cluster"
        time.sleep(0.05)
    # Each agent has its prompt: interrupt the turns.
    while len(list(pid_dir.glob("*.prompted"))) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the prompts did not reach the agents"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert wait_gone(pids_in(pid_dir)) == []
    report = json.loads((out / "report.json").read_text())
    assert [run["status"] for run in report["runs"]] == ["cancelled", "cancelled"]
    assert report["summary"]["not_run"] == 2


def test_without_ray_the_executor_is_a_one_line_error(plain_ws, tmp_path):
    shadow = tmp_path / "no-ray" / "ray"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    r = acphost(
        [
            "batch",
            "--executor",
            "ray",
            "-p",
            "echo hi",
            "--workspace",
            str(plain_ws),
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=tmp_path,
        env={"PYTHONPATH": str(shadow.parent)},
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == (
        "acphost: --executor ray needs Ray: pip install 'acphost[ray]'"
    )


@pytest.mark.timeout(300)
@pytest.mark.parametrize("planted", ["left", "link"])
def test_a_kept_workspace_on_a_worker_never_removes_what_was_there(
    planted, ray_cluster, plain_ws, tmp_path
):
    """The workers' kept folder has a fixed name in a shared directory: a workspace an
    earlier batch left there is left (the run's goes beside it), and a link planted in
    the folder's place is refused, never followed into the directory it names."""
    address, worker_tmp = ray_cluster
    kept = Path(worker_tmp) / "acphost-batch-workspaces"
    victim = tmp_path / "victim"
    (victim / "demo--p1--0").mkdir(parents=True)
    (victim / "demo--p1--0" / "mine.txt").write_text("precious\n")
    if planted == "link":
        shutil.rmtree(kept, ignore_errors=True)  # the cluster's own, from another test
        os.symlink(victim, kept)
    else:
        kept.mkdir(mode=0o700, exist_ok=True)
        shutil.rmtree(kept / "demo--p1--0", ignore_errors=True)
        shutil.copytree(victim / "demo--p1--0", kept / "demo--p1--0")
    try:
        out = tmp_path / "out"
        args = ["batch", "--executor", "ray", "--ray-address", address, "-a", "demo"]
        args += ["-p", "echo hi", "--keep-workspaces", "--workspace", str(plain_ws)]
        r = acphost([*args, "--out", str(out)], cwd=tmp_path, env={"ACPHOST_DEMO_STEP": "0"})
        result = json.loads((out / "runs" / "demo--p1--0" / "result.json").read_text())
        if planted == "link":
            assert r.returncode == 1 and "is not a directory of this user's" in r.stderr
        else:
            assert r.returncode == 0, r.stderr
            assert result["workspace"].endswith("acphost-batch-workspaces/demo--p1--0.2")
            assert (kept / "demo--p1--0" / "mine.txt").read_text() == "precious\n"
        assert (victim / "demo--p1--0" / "mine.txt").read_text() == "precious\n"
    finally:
        if kept.is_symlink():
            kept.unlink()


@pytest.mark.timeout(300)
def test_jobs_bounds_the_runs_in_flight_on_ray_not_the_nodes_cpus(ray_address, plain_ws, tmp_path):
    """12 runs at ``--jobs 12`` on a 2-CPU cluster are all in flight at once.

    The agents wait on their "model", not on a CPU: a reservation per run
    (0.25 CPU, the old default) held them to 8 at once whatever ``--jobs``
    said. Each agent here blocks until all twelve have their prompt.
    """
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    release = tmp_path / "release"
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "acphost",
            "batch",
            "--executor",
            "ray",
            "--ray-address",
            ray_address,
            "--ray-env",
            "WAIT_AGENT_PIDFILE_DIR",
            "--ray-env",
            "WAIT_AGENT_RELEASE",
            "--no-sandbox",  # the agents note their pids outside their workspaces
            "--agent-command",
            WAIT_CMD,
            "-p",
            "block",
            "--repeat",
            "12",
            "-j",
            "12",
            "--workspace",
            str(plain_ws),
            "--out",
            str(out),
        ],
        cwd=tmp_path,
        env={
            **os.environ,
            "WAIT_AGENT_PIDFILE_DIR": str(pid_dir),
            "WAIT_AGENT_RELEASE": str(release),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        end = time.monotonic() + 180
        while len(list(pid_dir.glob("*.prompted"))) < 12:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < end, (
                f"only {len(list(pid_dir.glob('*.prompted')))} of 12 runs were in flight at once"
            )
            time.sleep(0.05)
    finally:
        release.write_text("go")  # every agent ends its turn, on a failure too
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    report = json.loads((out / "report.json").read_text())
    assert [run["status"] for run in report["runs"]] == ["ok"] * 12
    assert wait_gone(pids_in(pid_dir)) == []
