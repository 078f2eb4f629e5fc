"""Where acphost keeps its own files: the XDG base directories, one folder each.

The XDG Base Directory Specification names three places acphost uses:

- ``$XDG_CONFIG_HOME`` (default ``~/.config``): what the user writes or
  approves: ``settings.json``, the trusted project settings;
- ``$XDG_STATE_HOME`` (default ``~/.local/state``): what survives runs but is
  not precious: the session history, the demo agent's sessions;
- ``$XDG_DATA_HOME`` (default ``~/.local/share``): data files acphost keeps.

The specification says a relative path in one of these variables is invalid
and must be ignored, so such a value falls back to the default as if unset.
Nothing here creates a directory: callers that write make it (owner-only).
"""

from __future__ import annotations

from pathlib import Path

from .._xdg import APP, base_dir

__all__ = ["APP", "config_dir", "data_dir", "state_dir"]


def _base(variable: str, default: str) -> Path:
    return Path(base_dir(variable, default))


def config_dir() -> Path:
    """The user's acphost configuration folder.

    Returns:
        ``$XDG_CONFIG_HOME/acphost``, by default ``~/.config/acphost``.

    """
    return _base("XDG_CONFIG_HOME", "~/.config") / APP


def state_dir() -> Path:
    """The user's acphost state folder (history, saved agent sessions).

    Returns:
        ``$XDG_STATE_HOME/acphost``, by default ``~/.local/state/acphost``.

    """
    return _base("XDG_STATE_HOME", "~/.local/state") / APP


def data_dir() -> Path:
    """The user's acphost data folder.

    Returns:
        ``$XDG_DATA_HOME/acphost``, by default ``~/.local/share/acphost``.

    """
    return _base("XDG_DATA_HOME", "~/.local/share") / APP
