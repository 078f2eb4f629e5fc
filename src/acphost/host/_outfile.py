"""Opening the host's own output files so that an agent cannot redirect or erase them.

The audit log, the trace, a saved session: an agent that can write in the
directory could plant a symbolic link or a FIFO at the name before the host
opens it (the host would then write wherever the link points, or hang), or
replace the file afterwards. So :func:`open_output`:

* opens with ``O_NOFOLLOW`` (a final symbolic link is refused, never
  followed) and ``O_NONBLOCK`` (a FIFO cannot block the open), then checks
  with ``fstat`` that the open file is a regular file, before anything is
  truncated or written;
* appends with ``O_APPEND`` (every write lands at the end, whatever else
  writes to the file), or truncates only after the check;
* returns the open stream: the host keeps writing to the file it checked even
  if the name is later replaced. Register the path in
  ``HostConfig.protected_paths`` too, so the agent's file writes cannot
  replace it through the host in the first place.

Directories above the final name are the user's choice and are followed.
"""

from __future__ import annotations

import fcntl
import os
import stat
from typing import IO, Literal, overload

from .._errors import OutputFileError

__all__ = ["open_output"]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@overload
def open_output(
    path: str | os.PathLike[str],
    *,
    append: bool = True,
    binary: Literal[False] = False,
    mode: int = 0o600,
) -> IO[str]: ...


@overload
def open_output(
    path: str | os.PathLike[str],
    *,
    append: bool = True,
    binary: Literal[True],
    mode: int = 0o600,
) -> IO[bytes]: ...


def open_output(
    path: str | os.PathLike[str],
    *,
    append: bool = True,
    binary: bool = False,
    mode: int = 0o600,
) -> IO[str] | IO[bytes]:
    """Open one of the host's output files safely (see the module docstring).

    Args:
        path: the file; created with ``mode`` (owner-only by default) if missing.
        append: append to an existing file (``O_APPEND``); otherwise it is
            truncated, after the regular-file check.
        binary: return a binary stream instead of UTF-8 text.
        mode: the permission bits of a new file.

    Returns:
        The open stream (text streams are line-buffered UTF-8). Close it when done.

    Raises:
        OutputFileError: the name is a symbolic link, a FIFO, a device, a
            directory or anything but a regular file, or it cannot be opened
            (the message names the path and the reason).

    """
    name = os.fspath(path)
    flags = _FLAGS | (os.O_APPEND if append else 0)
    try:
        fd = os.open(name, flags, mode)
    except OSError as exc:
        raise _open_error(name, exc) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OutputFileError(
                f"refusing to write {name!r}: it is not a regular file; choose another path"
            )
        # Regular files ignore O_NONBLOCK; clear it so the stream behaves as usual.
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        if not append:
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    if binary:
        return open(fd, "wb")
    return open(fd, "w", encoding="utf-8", buffering=1)


def _open_error(name: str, exc: OSError) -> OutputFileError:
    try:
        st = os.lstat(name)
    except OSError:
        return OutputFileError(f"cannot open {name!r} for writing: {exc.strerror}")
    if stat.S_ISLNK(st.st_mode):
        return OutputFileError(
            f"refusing to write {name!r}: it is a symbolic link; remove it or choose another path"
        )
    if not stat.S_ISREG(st.st_mode):
        return OutputFileError(
            f"refusing to write {name!r}: it is not a regular file; choose another path"
        )
    return OutputFileError(f"cannot open {name!r} for writing: {exc.strerror}")
