"""The XDG base directories, as plain strings (no pathlib: cheap to import).

The XDG Base Directory specification says a relative path in one of its
variables is invalid and must be ignored, so such a value falls back to the
default as if unset. Nothing here creates a directory.
"""

from __future__ import annotations

import os

__all__ = ["APP", "base_dir"]

#: The folder name under each base directory.
APP = "acphost"


def base_dir(variable: str, default: str) -> str:
    """The base directory ``$variable`` names when absolute, else ``default`` (``~`` expanded)."""
    value = os.environ.get(variable, "")
    if value and os.path.isabs(value):
        return value
    return os.path.expanduser(default)
