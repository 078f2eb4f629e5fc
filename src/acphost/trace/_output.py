"""Opening the host's own output files (a trace, an audit log) so an agent cannot subvert them.

The agent runs as the same user and may know where acphost writes. Opening
the path naively would follow a symbolic link it planted (redirecting what
acphost writes onto any file the user can write), truncate a hard link to
another file, or block forever on a FIFO. :func:`open_output` refuses all of
those: the final component is never followed (``O_NOFOLLOW``), the opened
object must be a regular file with a single link, and it is opened without
blocking. The descriptor is then kept for the whole run, so an agent that
later renames, deletes or replaces the path cannot redirect or erase what is
written; writes append (``O_APPEND``), so even a truncation of the file
leaves no hole. The file is owner-only (0600).
"""

from __future__ import annotations

import errno
import os
import stat

from .._errors import AcpError

__all__ = ["OutputFileError", "open_output"]

_REASONS = {
    errno.ELOOP: "it is a symbolic link (output files are never written through a link)",
    errno.EISDIR: "it is a directory",
    errno.ENOENT: "its directory does not exist",
    errno.ENOTDIR: "a component of the path is not a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.ENXIO: "it is a FIFO or a device, not a regular file",
    errno.ENOSPC: "no space left on the device",
}


class OutputFileError(AcpError, OSError):
    """An output file cannot be opened safely; the message says which and why.

    Attributes:
        path: the path given.
        reason: why it was refused, in words.

    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot write {path}: {reason}")

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason}"


def open_output(path: str | os.PathLike[str], *, append: bool = False) -> int:
    """Open an output file for writing, safely; return its descriptor.

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
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(name, flags, 0o600)
    except OSError as exc:
        reason = _REASONS.get(exc.errno or 0, exc.strerror or str(exc))
        raise OutputFileError(name, reason) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OutputFileError(name, "it is not a regular file")
        if info.st_nlink > 1:
            raise OutputFileError(
                name, "it has other hard links (writing would change those files too)"
            )
        os.set_blocking(fd, True)
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
