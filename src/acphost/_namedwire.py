"""What both ends of a named session's wire share, importable before anything else.

A warm ``acphost -s NAME PROMPT`` starts by reading this module (and the
standard library's cheapest ones): the wire's version, where named sessions
live, and where the command line keeps the shortcuts that let such a run skip
resolving its agent again. No pathlib, no asyncio: the run is done sooner
than they would load.
"""

from __future__ import annotations

import os

from ._xdg import APP, base_dir

__all__ = ["WIRE_VERSION", "named_root", "shortcut_folder", "state_home"]

#: The version of the run <-> host wire; both sides send it, a host refuses others.
#: (2: the host renders each run's turn and sends its output, not its updates.)
WIRE_VERSION = 2


def state_home() -> str:
    """The state folder of acphost (``config.state_dir``, as a string)."""
    return os.path.join(base_dir("XDG_STATE_HOME", "~/.local/state"), APP)


def named_root() -> str:
    """The folder of every named session's private folder."""
    return os.path.join(state_home(), "named")


def shortcut_folder() -> str:
    """Where a run that resolved its agent leaves a shortcut for the runs that repeat it."""
    return os.path.join(named_root(), "shortcuts")
