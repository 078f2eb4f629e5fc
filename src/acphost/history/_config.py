"""Where the history lives and whether a face records: the environment's say."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["default_path", "history_enabled"]


def default_path(env: Mapping[str, str] | None = None) -> str:
    """Where the history lives: ``$ACPHOST_HISTORY``, else the user data directory.

    The data directory is ``$XDG_DATA_HOME/acphost`` (default
    ``~/.local/share/acphost``), per the XDG base directory specification.

    Args:
        env: the environment (default ``os.environ``).

    Returns:
        The absolute path of the database file.

    """
    env = os.environ if env is None else env
    override = env.get("ACPHOST_HISTORY")
    if override:
        return os.path.abspath(os.path.expanduser(override))
    data = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(os.path.abspath(data), "acphost", "history.sqlite3")


def history_enabled(no_history: bool = False, env: Mapping[str, str] | None = None) -> bool:
    """Whether a face records its sessions: yes unless ``--no-history`` or ``ACPHOST_NO_HISTORY``.

    ``ACPHOST_NO_HISTORY`` turns recording off when set to anything but
    ``""``, ``0``, ``false``, ``no`` or ``off``.

    Args:
        no_history: the ``--no-history`` flag.
        env: the environment (default ``os.environ``).

    Returns:
        True when the face should attach a :class:`~acphost.history.HistoryRecorder`.

    """
    if no_history:
        return False
    env = os.environ if env is None else env
    value = env.get("ACPHOST_NO_HISTORY", "").strip().lower()
    return value in ("", "0", "false", "no", "off")
