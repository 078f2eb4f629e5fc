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

__all__ = [
    "DROPPED_FILE",
    "MAX_KEEP_ALIVE",
    "WIRE_VERSION",
    "duration_seconds",
    "named_root",
    "short_socket_folder",
    "shortcut_folder",
    "state_home",
]

#: The version of the run <-> host wire; both sides send it, a host refuses others.
#: (2: the host renders each run's turn and sends its output, not its updates.)
WIRE_VERSION = 2
#: In a name's folder: the tickets of the runs its host dropped for not reading.
DROPPED_FILE = "dropped.json"
#: The longest keep-alive a run may ask for: a week.
MAX_KEEP_ALIVE = 7 * 24 * 3600.0
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration_seconds(text: str) -> float | None:
    """Seconds from ``30s``, ``5m``, ``1h``, ``250ms`` or a bare number of seconds; else None.

    None for anything else (negative, empty, an unknown unit, an exponent,
    NaN, digits other than ASCII ones). Callers bound it.
    """
    text = text.strip()
    number, unit = text, "s"
    for suffix in ("ms", "s", "m", "h"):
        if text.endswith(suffix):
            number, unit = text[: -len(suffix)], suffix
            break
    whole, dot, part = number.partition(".")
    digits = (whole, part) if dot else (whole,)
    # ASCII digits around at most one dot: "1", "1.5", ".5" (not "1.", "1e3", "-1", "nan").
    if (not part and dot) or not all(d.isascii() and (d.isdigit() or not d) for d in digits):
        return None
    if not (whole or part):
        return None
    return float(number) * _UNITS[unit]


def state_home() -> str:
    """The state folder of acphost (``config.state_dir``, as a string)."""
    return os.path.join(base_dir("XDG_STATE_HOME", "~/.local/state"), APP)


def named_root() -> str:
    """The folder of every named session's private folder."""
    return os.path.join(state_home(), "named")


def shortcut_folder() -> str:
    """Where a run that resolved its agent leaves a shortcut for the runs that repeat it."""
    return os.path.join(named_root(), "shortcuts")


def short_socket_folder() -> str:
    """Where a named session's socket goes when its own folder's path is too long for one.

    One fixed folder, whatever ``TMPDIR`` says: every run must find the
    host, and runs started from different shells may differ in ``TMPDIR``.
    Private (``0700``); the sandbox denies it to every agent.
    """
    return f"/tmp/acphost-named-{os.getuid()}"
