"""The step between fork and exec that ties a child's life to the host's (acphost._child).

Real processes: a host process builds the step and forks; the race it closes
(the host dies before the child has set its parent-death signal) is made
certain by having the child wait for its host to be gone before the step.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from acphost import AgentStartError, _child
from acphost.transport import StdioTransport
from tests.support.waiting import eventually_sync

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
)

# The host: build the step, fork, print the child's pid and exit at once.
# The child: wait until the host is gone, take the step, then (were the step
# to let it through) write the file its program would have written.
ORPHAN = textwrap.dedent("""
    import os, sys, time
    from acphost import _child
    hook = _child.preexec()
    host = os.getpid()
    pid = os.fork()
    if pid == 0:
        deadline = time.monotonic() + 30
        while os.getppid() == host:  # polled: the host exits at once
            if time.monotonic() > deadline:
                os._exit(3)
            time.sleep(0.005)
        hook()
        with open(sys.argv[1], "w") as f:
            f.write("the program ran")
        os._exit(0)
    print(pid, flush=True)
    os._exit(0)
""")

# The same with a live host: the step lets the child through, the signal set
# (prctl(PR_GET_PDEATHSIG) reads it back).
LIVE = textwrap.dedent("""
    import ctypes, os, sys
    from acphost import _child
    hook = _child.preexec()
    pid = os.fork()
    if pid == 0:
        hook()
        value = ctypes.c_int(0)
        ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)
        with open(sys.argv[1], "w") as f:
            f.write(f"the program ran with signal {value.value}")
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
""")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_child_whose_host_died_before_the_step_never_runs_its_program(tmp_path):
    ran = tmp_path / "ran"
    host = subprocess.run(
        [sys.executable, "-c", ORPHAN, str(ran)], capture_output=True, text=True, timeout=60
    )
    assert host.returncode == 0, host.stderr
    child = int(host.stdout)
    eventually_sync(lambda: not alive(child), what="the orphaned child to exit")
    assert not ran.exists()


def test_a_child_whose_host_lives_runs_its_program(tmp_path):
    ran = tmp_path / "ran"
    host = subprocess.run(
        [sys.executable, "-c", LIVE, str(ran)], capture_output=True, text=True, timeout=60
    )
    assert (host.returncode, host.stdout.strip()) == (0, "0"), host.stderr
    assert ran.read_text() == f"the program ran with signal {int(signal.SIGKILL)}"


async def test_a_failing_step_starts_no_agent(monkeypatch, tmp_path):
    """A child whose death signal could not be set never runs its program."""
    monkeypatch.setattr(_child, "_prctl", lambda: lambda *args: -1)
    with pytest.raises(AgentStartError, match="cannot start the agent") as caught:
        await StdioTransport.spawn([sys.executable, "-c", "open('ran', 'w').close()"], cwd=tmp_path)
    assert "sandbox" not in str(caught.value)
    assert not (tmp_path / "ran").exists()
