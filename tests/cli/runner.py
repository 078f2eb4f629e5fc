"""Running the real ``acphost`` command in a test, with an isolated environment.

:func:`run` calls the real ``main()`` in the test's process
(:func:`tests.support.in_process.run_main`: real pipes on fds 0-2, the agent
a real subprocess). :func:`spawn` starts a whole ``python -m acphost``
process, for what only a process shows: the first command a reader of the
README types, Ctrl-C and signals, the exit code of a crash, the
interpreter's own handling of its streams.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.in_process import Result, run_main


def environment(cwd, env=None):
    """The run's environment: the demo agent takes no pause between scripted steps,
    its own config dir, no settings from outside; the state and data homes (the
    demo's sessions, the history) come from the test's fixture."""
    return {
        **os.environ,
        "ACPHOST_DEMO_STEP": "0",
        "XDG_CONFIG_HOME": str(cwd / ".xdg"),
        "ACPHOST_SETTINGS": "",
        **(env or {}),
    }


def run(args, *, cwd, input=None, env=None) -> Result:
    """``acphost ARGS`` in ``cwd``, run in process; ``input`` is stdin (None: /dev/null)."""
    return run_main(args, cwd=cwd, env=environment(cwd, env), stdin=input)


def spawn(args, *, cwd, input=None, env=None, timeout=60):
    """``python -m acphost ARGS`` in ``cwd``: a whole process, as a user starts it."""
    return subprocess.run(
        [sys.executable, "-m", "acphost", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env=environment(cwd, env),
        timeout=timeout,
    )
