"""Opening the host's own output files so that an agent cannot subvert them.

The audit log, a trace, a saved session, a batch report: the agent runs as
the same user and may know where acphost writes. Opening such a path naively
would follow a symbolic link the agent planted (redirecting what acphost
writes onto any file the user can write), truncate a hard link to another
file, or block forever on a FIFO. So every output file is opened here:

* ``O_NOFOLLOW``: a final symbolic link is refused, never followed (the
  directories above the name are the user's choice and are followed);
* ``O_NONBLOCK`` for the open only: a FIFO cannot block it; then ``fstat``
  must show a regular file with a single link, before anything is truncated
  or written;
* ``O_APPEND``: every write lands at the end, whatever else writes to it;
* owner-only (0600), and the descriptor is kept for the whole run, so an
  agent that later renames, deletes or replaces the name cannot redirect or
  erase what is written.

Register the path in ``HostConfig.protected_paths`` as well, so the agent's
file writes cannot replace it through the host in the first place.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import IO, Literal, overload

from .errors import OutputFileError

__all__ = ["open_output", "open_output_fd"]

_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_APPEND
    | os.O_NOFOLLOW
    | os.O_NONBLOCK
    | os.O_NOCTTY
    | os.O_CLOEXEC
)

_REASONS = {
    errno.ELOOP: "it is a symbolic link (output files are never written through a link)",
    errno.EISDIR: "it is a directory, not a regular file",
    errno.ENOENT: "its directory does not exist",
    errno.ENOTDIR: "a component of the path is not a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.ENXIO: "it is a FIFO or a device, not a regular file",
    errno.ENOSPC: "no space left on the device",
}


def open_output_fd(path: str | os.PathLike[str], *, append: bool) -> int:
    """Open an output file safely (see the module docstring); return its descriptor.

    Call it before the agent starts, so a bad path fails before anything runs.

    Args:
        path: the file; created (mode 0600) when missing.
        append: keep what the file holds (an audit log); otherwise it is
            emptied once opened and checked.

    Returns:
        A blocking, close-on-exec descriptor opened for appending; the caller
        owns it (``os.close``).

    Raises:
        OutputFileError: the path is a symbolic link, a directory, a FIFO or
            device, a file with other hard links, or cannot be created.

    """
    name = os.fspath(path)
    try:
        fd = os.open(name, _FLAGS, 0o600)
    except OSError as exc:
        raise OutputFileError(
            name, _REASONS.get(exc.errno or 0, exc.strerror or str(exc))
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OutputFileError(name, "it is a FIFO, a device or a directory, not a regular file")
        if info.st_nlink > 1:
            raise OutputFileError(
                name, "it has other hard links (writing would change those files too)"
            )
        os.set_blocking(fd, True)  # regular files ignore it; streams expect blocking
        if info.st_uid == os.geteuid() and info.st_mode & 0o077:
            os.fchmod(fd, 0o600)
        if not append:
            os.ftruncate(fd, 0)
    except OutputFileError:
        os.close(fd)
        raise
    except OSError as exc:
        os.close(fd)
        raise OutputFileError(name, exc.strerror or str(exc)) from None
    return fd


@overload
def open_output(
    path: str | os.PathLike[str], *, append: bool = True, binary: Literal[False] = False
) -> IO[str]: ...


@overload
def open_output(
    path: str | os.PathLike[str], *, append: bool = True, binary: Literal[True]
) -> IO[bytes]: ...


def open_output(
    path: str | os.PathLike[str], *, append: bool = True, binary: bool = False
) -> IO[str] | IO[bytes]:
    """Open an output file safely (see the module docstring) as a stream.

    Args:
        path: the file; created owner-only when missing.
        append: keep what it holds; otherwise it is emptied after the checks.
        binary: a binary stream instead of line-buffered UTF-8 text.

    Returns:
        The open stream; close it when done.

    Raises:
        OutputFileError: as :func:`open_output_fd`.

    """
    fd = open_output_fd(path, append=append)
    if binary:
        return open(fd, "wb")
    return open(fd, "w", encoding="utf-8", buffering=1)
