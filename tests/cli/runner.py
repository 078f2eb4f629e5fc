"""Running the real ``acphost`` command in a test: a subprocess with an isolated environment."""

from __future__ import annotations

import os
import subprocess
import sys


def run(args, *, cwd, input=None, env=None, timeout=60):
    """``python -m acphost ARGS`` in ``cwd``: its own config dir, no settings from outside.

    The demo agent takes no pause between scripted steps; the state and data
    homes (the demo's sessions, the history) come from the test's fixture.
    """
    full_env = {
        **os.environ,
        "ACPHOST_DEMO_STEP": "0",
        "XDG_CONFIG_HOME": str(cwd / ".xdg"),
        "ACPHOST_SETTINGS": "",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "acphost", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )
