"""Reading the files a user names or an agent could have written, without blocking or bounds.

Settings, the trust store, permission rules, batch prompt files, history
imports, traces: each names a path the user typed (``--settings``,
``--prompts``, ``--spec``, ``history import FILE``, a trace to replay) or a
file in a folder the agent can write to. :func:`read_input` (and
:func:`open_input` for readers that stream, :func:`read_text_input` for
text) opens the path without blocking and checks with ``fstat`` that it is
a regular file: a FIFO would block the open or the read forever,
``/dev/zero`` or ``/dev/urandom`` would never end, and a directory has no
bytes. The size is capped (:data:`MAX_INPUT_BYTES`, more for history
imports) and the read never takes more than the cap plus one byte, so a file
that grows under us is refused too.

Each raises :class:`InputFileError`: one line naming the file and saying
what to do. Callers re-raise it as their own error class so each face keeps
its exit code. This module sits at the bottom of the package (beside
``_errors``) so that every layer, the bundled agents included, reads its
inputs the one way; :mod:`acphost.config` exports it.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import IO, AnyStr

from .errors import AcpError

__all__ = [
    "MAX_IMPORT_BYTES",
    "MAX_INPUT_BYTES",
    "InputFileError",
    "decode_text",
    "open_input",
    "read_input",
    "read_input_fd",
    "read_stream",
    "read_text_input",
]

#: The largest input file read whole: far above any settings, rules or prompts file.
MAX_INPUT_BYTES = 64 << 20

#: History imports hold whole transcripts, so they may be larger.
MAX_IMPORT_BYTES = 1 << 30

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class InputFileError(AcpError, ValueError):
    """An input file cannot be used: unreadable, not a regular file, too large, or bad JSON.

    The message is one line naming the file and saying what to do.

    Attributes:
        missing: the file does not exist (some callers treat that as "empty").

    """

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


def _open_checked(
    path: str | os.PathLike[str],
    what: str,
    limit: int,
    dir_fd: int | None = None,
    shown: str | None = None,
) -> tuple[int, int]:
    """Open ``path`` for reading; return ``(fd, size)`` once it is known to be a regular file.

    With ``dir_fd``, ``path`` is a name in that open directory and a
    symbolic link there is refused (``O_NOFOLLOW``): the file is the one in
    that directory, whatever is renamed around it.
    """
    name = shown if shown is not None else os.fspath(path)
    flags = _OPEN_FLAGS if dir_fd is None else _OPEN_FLAGS | os.O_NOFOLLOW
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait for one.
        fd = os.open(path, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise InputFileError(f"{what} {name} does not exist", missing=True) from None
    except OSError as exc:
        if dir_fd is not None and exc.errno == errno.ELOOP:
            raise InputFileError(
                f"{what} {name} is a symbolic link, not a regular file; name a file"
            ) from None
        reason = "permission denied" if exc.errno in (errno.EACCES, errno.EPERM) else exc.strerror
        raise InputFileError(f"cannot read {what} {name}: {reason}") from None
    return fd, _checked(fd, name, what, limit)


def _checked(fd: int, name: str, what: str, limit: int) -> int:
    """The size of the open file ``fd`` once it is known to be a regular file; closes it if not."""
    try:
        st = os.fstat(fd)
        for test, kind in _KINDS:
            if test(st.st_mode):
                raise InputFileError(f"{what} {name} is {kind}, not a regular file; name a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"{what} {name} is not a regular file; name a file")
        if st.st_size > limit:
            raise InputFileError(
                f"{what} {name} is larger than the {_mib(limit)} limit ({st.st_size} bytes)"
            )
        # A regular file never blocks; clear the flag so reads behave as usual.
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return st.st_size


def _read_all(fd: int, size: int, name: str, what: str, limit: int) -> bytes:
    """Read the checked file ``fd`` to its end, never past ``limit`` + 1 bytes; closes it."""
    try:
        chunks: list[bytes] = []
        total = 0
        while True:
            # Read to EOF, never past limit + 1: a file that grows while read is caught.
            chunk = os.read(fd, min(max(size, 1 << 16), limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputFileError(f"{what} {name} is larger than the {_mib(limit)} limit")
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {name}: {exc.strerror}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_input(
    path: str | os.PathLike[str],
    *,
    what: str,
    limit: int = MAX_INPUT_BYTES,
    dir_fd: int | None = None,
    shown: str | None = None,
) -> bytes:
    """Read a whole input file, refusing what is not a regular file of bounded size.

    Args:
        path: the file (``~`` is not expanded here).
        what: how the message names it, e.g. ``"the --settings file"``.
        limit: the most bytes accepted.
        dir_fd: an open directory ``path`` is a name in; the file is opened
            there, never through a symbolic link (``O_NOFOLLOW``).
        shown: how messages name the file (default: ``path``).

    Returns:
        The file's bytes.

    Raises:
        InputFileError: missing (``missing`` is set), unreadable, a directory,
            FIFO, device or socket, or larger than ``limit``.

    """
    fd, size = _open_checked(path, what, limit, dir_fd, shown)
    name = shown if shown is not None else os.fspath(path)
    return _read_all(fd, size, name, what, limit)


def read_input_fd(fd: int, *, name: str, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """:func:`read_input` for a file the caller opened itself, with the same checks and bound.

    For a caller that must choose how the file is reached: a project's
    settings file is opened relative to its folder's descriptor and never
    through a symbolic link (``O_NOFOLLOW``), so what is checked is what is
    read. Open it with ``O_NONBLOCK`` (a FIFO must not block the open).

    Args:
        fd: the open file; it is closed here, whatever happens.
        name: how messages name it (its path).
        what: how messages call it, e.g. ``"project settings file"``.
        limit: the most bytes accepted.

    Returns:
        The file's bytes.

    Raises:
        InputFileError: not a regular file, unreadable, or larger than ``limit``.

    """
    size = _checked(fd, name, what, limit)
    return _read_all(fd, size, name, what, limit)


def read_text_input(
    path: str | os.PathLike[str], *, what: str, limit: int = MAX_INPUT_BYTES
) -> str:
    """:func:`read_input` for a text file: its contents decoded as UTF-8.

    Raises:
        InputFileError: as :func:`read_input`, or the bytes are not UTF-8
            (the message names the first invalid byte).

    """
    return decode_text(read_input(path, what=what, limit=limit), f"{what} {os.fspath(path)}")


def decode_text(data: bytes, what: str) -> str:
    """``data`` decoded as UTF-8, or one clear error naming the first invalid byte.

    Args:
        data: the bytes.
        what: how the message names them, e.g. ``"stdin"``.

    Raises:
        InputFileError: the bytes are not UTF-8.

    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{what} is not UTF-8 (byte {exc.start} is invalid)") from None


def read_stream(stream: IO[AnyStr], *, what: str, limit: int = MAX_INPUT_BYTES) -> AnyStr:
    """Read a whole stream (stdin, a pipe), refusing one longer than ``limit``.

    A pipe has no size to check first, so at most ``limit`` + 1 units are
    read (bytes, or characters for a text stream): ``acphost < /dev/zero``
    ends with this error, not with the memory exhausted.

    Args:
        stream: the stream.
        what: how the message names it, e.g. ``"the prompt on stdin"``.
        limit: the most bytes (characters) accepted.

    Raises:
        InputFileError: the stream holds more than ``limit``.

    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputFileError(f"{what} is larger than the {_mib(limit)} limit")
    return data


def open_input(
    path: str | os.PathLike[str],
    *,
    what: str,
    limit: int | None = None,
    dir_fd: int | None = None,
    shown: str | None = None,
) -> IO[bytes]:
    """Open an input file for a streaming reader (a trace), with the checks of :func:`read_input`.

    Args:
        path: the file.
        what: how messages name it.
        limit: the most bytes accepted, or None for no cap (the reader
            bounds its own memory, e.g. a line at a time).
        dir_fd: as for :func:`read_input` (a name in that directory, no link).
        shown: how messages name the file (default: ``path``).

    Returns:
        The file, opened in binary mode; the caller closes it (``with``).

    Raises:
        InputFileError: as :func:`read_input`.

    """
    fd, _ = _open_checked(path, what, limit if limit is not None else 1 << 62, dir_fd, shown)
    return os.fdopen(fd, "rb")
