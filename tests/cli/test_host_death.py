"""A host killed outright (SIGKILL) leaves nothing it started running.

No cleanup code of ours runs after a SIGKILL: the agent and the terminals it
asked for (``terminal/create`` on v1, the host's ``run_command`` tool on v2)
must be ended by the kernel, through the parent-death signal their spawn set
between fork and exec. Real processes throughout: ``python -m acphost`` (or
a named session's host), the demo agent or an agent deaf to the end of its
stdin, a real ``sh`` in a terminal; each process's state is read in
``/proc``, polled with a deadline.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from acphost.host import sandbox_support
from tests.support.named import Named, agents_in, hosts_in
from tests.support.waiting import eventually_sync

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
)

DEAF = Path(__file__).resolve().parent.parent / "support" / "deaf_agent.py"

#: The terminal's command writes its pid in the workspace (its cwd), then
#: becomes a long sleep under that same pid.
TERMINAL = "terminal sh -c 'echo $$ > term.pid.tmp && mv term.pid.tmp term.pid && exec sleep 600'"

SANDBOX = [
    pytest.param((), id="sandbox"),
    pytest.param(("--no-sandbox",), id="no-sandbox"),
]


@pytest.fixture
def runs(workspace):
    started = Named(workspace)
    yield started
    left = started.close()  # ends whatever survived, by pid, so one failure stays one
    assert not left, f"processes left behind: {left}"


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended: only its reaping is left)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def pid_in(path: Path) -> int:
    """The pid the file holds, once it is there (the deadline fails the test)."""
    eventually_sync(path.exists, what=f"{path.name} to be written", timeout=60)
    return int(path.read_text())


def wait_dead(pids: list[int], what: str) -> None:
    eventually_sync(lambda: not any(alive(p) for p in pids), what=what)


def needs_sandbox(flags: tuple[str, ...]) -> None:
    if not flags and sandbox_support()[0] == 0:
        pytest.skip(sandbox_support()[1])


@pytest.mark.parametrize("flags", SANDBOX)
@pytest.mark.parametrize("protocol", ["1", "2"])
def test_a_killed_run_takes_its_terminal_and_its_agent_with_it(runs, workspace, flags, protocol):
    """v1 spawns the terminal for ``terminal/create``, v2 for the ``run_command`` tool."""
    needs_sandbox(flags)
    run = runs.start("--yolo", "--protocol", protocol, *flags, TERMINAL)
    terminal = pid_in(workspace / "term.pid")
    (agent,) = agents_in(workspace)
    assert alive(terminal) and alive(agent)
    run.send_signal(signal.SIGKILL)  # no cleanup code of ours runs
    run.communicate(timeout=30)
    wait_dead([terminal, agent], "the terminal and the agent to die with their host")


@pytest.mark.parametrize("flags", SANDBOX)
def test_a_killed_run_takes_an_agent_deaf_to_the_end_of_its_stdin(runs, workspace, flags):
    needs_sandbox(flags)
    settings = workspace.parent / "settings.json"
    settings.write_text(
        json.dumps({"agent_servers": {"deaf": {"command": sys.executable, "args": [str(DEAF)]}}})
    )
    run = runs.start(*flags, "hang", env={"ACPHOST_SETTINGS": str(settings)})
    agent = pid_in(workspace / "deaf.pid")  # the turn is under way
    run.send_signal(signal.SIGKILL)
    run.communicate(timeout=30)
    wait_dead([agent], "the deaf agent to die with its host")


def test_a_killed_named_session_host_takes_its_terminal_and_its_agent_with_it(runs, workspace):
    run = runs.start("-a", "demo", "-s", "doomed", "--keep-alive", "60s", "--yolo", TERMINAL)
    terminal = pid_in(workspace / "term.pid")
    (host,) = hosts_in(workspace)
    (agent,) = agents_in(workspace)
    # The run is frozen first: it neither cancels the turn (which would kill
    # the terminal our way) nor starts a new host once this one is gone.
    run.send_signal(signal.SIGSTOP)
    os.kill(host, signal.SIGKILL)
    wait_dead([terminal, agent], "the terminal and the agent to die with their named host")
    run.send_signal(signal.SIGKILL)
    run.communicate(timeout=30)
