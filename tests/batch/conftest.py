"""Fixtures of the batch tests: real agents, git and plain workspaces, the real command."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acphost.batch import inspect_workspace, make_plan, numbered, run_batch
from acphost.config import AgentSpec

HERE = Path(__file__).parent
WAIT_AGENT = HERE / "wait_agent.py"

DEMO = AgentSpec(
    name="demo",
    command=sys.executable,
    args=("-m", "acphost.agents.demo"),
    env={"ACPHOST_DEMO_STEP": "0"},
    source="tests",
)
WAIT = AgentSpec(
    name="wait",
    command=sys.executable,
    args=(str(WAIT_AGENT),),
    source="tests",
    # It reports its pid in a file there (outside its workspace): the sandbox lets it.
    sandbox_write=("$WAIT_AGENT_PIDFILE_DIR",),
)

FILES = {"README.md": "# project\n", "hello.py": 'print("hello")\n', "src/lib.py": "X = 1\n"}


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    """No user settings or history: everything lives in the test's directory."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("ACPHOST_SETTINGS", "")
    monkeypatch.delenv("ACPHOST_HISTORY", raising=False)
    monkeypatch.delenv("ACPHOST_NO_HISTORY", raising=False)


def fill(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def plain_ws(tmp_path) -> Path:
    return fill(Path(os.path.realpath(tmp_path)) / "plain")


@pytest.fixture
def git_ws(tmp_path) -> Path:
    root = fill(Path(os.path.realpath(tmp_path)) / "repo")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


@pytest.fixture(params=["git", "plain"])
def any_ws(request, git_ws, plain_ws) -> Path:
    return git_ws if request.param == "git" else plain_ws


def tree(root: Path) -> dict[str, str]:
    """Every file under root (but .git) with its text."""
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


async def collect(plan, out, **kw):
    batch = run_batch(plan, str(out), **kw)
    outcomes = [o async for o in batch]
    return batch, {o.id: o for o in outcomes}


def plan_of(prompts, ws, agents=(DEMO,), **kw):
    return make_plan(list(agents), numbered(prompts), workspace=inspect_workspace(str(ws)), **kw)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive: it is only waiting to be reaped
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, timeout=10.0) -> list[int]:
    """The pids still alive at the deadline (empty as soon as all are gone)."""
    end = time.monotonic() + timeout
    left = [p for p in pids if alive(p)]
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = [p for p in left if alive(p)]
    return left


def pids_in(directory: Path) -> list[int]:
    return [int(p.stem) for p in directory.glob("*.pid")]


def acphost(args, *, cwd, env=None, timeout=120):
    """Run the real command."""
    return subprocess.run(
        [sys.executable, "-m", "acphost", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
