"""The file-system provider: ``fs/read_text_file`` and ``fs/write_text_file``.

Every path goes through the workspace jail (:mod:`acphost.host._jail`). The
rules:

* writes are always confined to the workspace; reads outside it only with
  ``allow_read_outside_workspace`` (read-anywhere never implies write-anywhere);
* only regular files are read or written: devices, FIFOs, sockets, directories
  and anything under ``/proc``, ``/sys`` or ``/dev`` are refused. Files are
  opened with ``O_NONBLOCK`` so that a FIFO swapped in cannot hang the host;
* a write is atomic: a temporary file in the same directory, ``fsync``,
  ``rename`` over the target, ``fsync`` of the directory.

Hard links. A file inside the workspace may be a hard link to a file that also
has a name outside it. *Reads* are allowed: the content is reachable through the
workspace name anyway, and no name is more "real" than another. *Writes* are
allowed too, because they are atomic renames: the rename replaces only the
workspace's directory entry, so the other name keeps the old content untouched
(tested). That also protects hard-linked package stores (pnpm) from an in-place
edit corrupting every project that shares the file.

Log lines carry paths, sizes and decisions, never file contents.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import secrets
import stat
from collections.abc import Awaitable, Callable
from typing import BinaryIO

from ..errors import InternalError, InvalidParams, RequestError, ResourceNotFound
from ._jail import Jail, Workspace, _os_error, _shown, check_path

__all__ = ["DEFAULT_MAX_READ_BYTES", "DEFAULT_MAX_SCAN_BYTES", "Authorizer", "FileSystemProvider"]

Authorizer = Callable[[str], Awaitable[None]]
"""Called with the canonical path the jail resolved, before it is read or written.

It raises (a :class:`~acphost.RequestError`) to refuse; the permission broker's
check is one. The path is exactly the one then opened.
"""

DEFAULT_MAX_READ_BYTES = 8 * 1024 * 1024
"""The default cap on the size of one ``fs/read_text_file`` response (8 MiB)."""

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
DEFAULT_MAX_SCAN_BYTES = 128 * 1024 * 1024
"""The default cap on the bytes read to find the first line of a window (128 MiB).

``fs/read_text_file`` with ``line`` must read every byte before that line;
beyond this the request fails with an error (a worker thread cannot be
interrupted, so the host must never start a read it cannot finish promptly).
"""

# Files are read in bounded pieces so a single huge line costs no memory.
_CHUNK = 64 * 1024

_log = logging.getLogger("acphost.host.fs")


def _past_newlines(data: bytes, count: int) -> int:
    """The offset just past the ``count``-th newline of ``data`` (it has that many)."""
    end = -1
    for _ in range(count):
        end = data.index(b"\n", end + 1)
    return end + 1


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


async def _open_in_thread(
    opener: Callable[[Workspace, str], tuple[int, str]], workspace: Workspace, path: str
) -> tuple[int, str]:
    """Run ``opener`` in a worker thread; if we are cancelled meanwhile, close its fd."""
    job = asyncio.ensure_future(asyncio.to_thread(opener, workspace, path))
    try:
        return await asyncio.shield(job)
    except asyncio.CancelledError:

        def close(done: asyncio.Future[tuple[int, str]]) -> None:
            if not done.cancelled() and done.exception() is None and done.result()[0] >= 0:
                os.close(done.result()[0])

        job.add_done_callback(close)
        raise


class FileSystemProvider:
    """Serves the agent's file requests inside a workspace jail.

    Args:
        allow_read_outside_workspace: let reads (never writes) reach any
            regular file outside the workspace; for debugging.
        missing_file_returns_empty: answer a read of a missing file with
            ``""`` instead of ``ResourceNotFound`` (Gemini CLI expects that).
        max_read_bytes: the largest response a read may produce, in bytes of
            UTF-8; larger answers fail with an error suggesting ``line``/``limit``.
        max_scan_bytes: the most bytes read to find the first line of a
            window (:data:`DEFAULT_MAX_SCAN_BYTES`); a line beyond them fails
            with an error.
        logger: where requests and decisions are logged (never contents);
            ``acphost.host.fs`` by default.

    """

    __slots__ = ("_allow_outside", "_log", "_max_read", "_max_scan", "_missing_empty")

    def __init__(
        self,
        *,
        allow_read_outside_workspace: bool = False,
        missing_file_returns_empty: bool = False,
        max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
        max_scan_bytes: int = DEFAULT_MAX_SCAN_BYTES,
        logger: logging.Logger | None = None,
    ) -> None:
        if max_read_bytes <= 0 or max_scan_bytes <= 0:
            raise ValueError("max_read_bytes and max_scan_bytes must be positive")
        self._max_scan = max_scan_bytes
        self._allow_outside = allow_read_outside_workspace
        self._missing_empty = missing_file_returns_empty
        self._max_read = max_read_bytes
        self._log = logger or _log

    async def read_text_file(
        self,
        workspace: Workspace,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        *,
        authorize: Authorizer | None = None,
    ) -> str:
        """Read a UTF-8 text file, or a window of its lines.

        The file is resolved and opened first (nothing is read), then
        ``authorize`` judges the canonical path of the very file opened; a
        missing file is judged by the path it would have.

        Args:
            workspace: the session's workspace.
            path: the absolute path the agent asked for.
            line: the first line to return, 1-based; ``None`` for the start.
            limit: how many lines to return at most; ``None`` for all.
            authorize: called with the canonical path before reading; it
                raises to refuse.

        Returns:
            The text, line endings kept. A window past the end is ``""``.

        Raises:
            InvalidParams: bad path, ``line`` < 1 or ``limit`` < 0, outside the
                jail, not a regular file, not UTF-8, over the size cap, or
                ``line`` not within the first ``max_scan_bytes``.
            ResourceNotFound: the file does not exist (unless
                ``missing_file_returns_empty``).
            InternalError: the operating system refused.

        """
        if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 1):
            raise InvalidParams(f"line must be an integer >= 1 (lines are 1-based), got {line!r}")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise InvalidParams(f"limit must be an integer >= 0, got {limit!r}")
        normal = check_path(path)
        try:
            fd, canonical = await _open_in_thread(self._open_for_read, workspace, normal)
            try:
                if authorize is not None:
                    await authorize(canonical)
                if fd < 0:
                    raise ResourceNotFound(f"file {_shown(normal)} does not exist")
                text = await asyncio.to_thread(self._read, fd, canonical, line, limit)
            finally:
                if fd >= 0:
                    os.close(fd)
        except ResourceNotFound:
            if self._missing_empty:
                self._log.info("read %s: missing, answered empty (compat)", _shown(normal))
                return ""
            self._log.info("read %s: missing", _shown(normal))
            raise
        except RequestError as exc:
            self._log.info("read %s: refused: %s", _shown(normal), exc.message)
            raise
        self._log.info("read %s line=%s limit=%s: %d chars", _shown(normal), line, limit, len(text))
        return text

    async def write_text_file(
        self,
        workspace: Workspace,
        path: str,
        content: str,
        *,
        authorize: Authorizer | None = None,
    ) -> None:
        """Replace (or create) a text file inside the workspace, atomically.

        Missing parent directories are created. An existing file keeps its
        permission bits. On any failure the target is untouched and no
        temporary file remains.

        The path is resolved first without touching anything, ``authorize``
        judges the canonical path, and the write then resolves it again
        (creating parents) and refuses if the result is not the path judged
        (a link swapped in meanwhile).

        Args:
            workspace: the session's workspace.
            path: the absolute path the agent asked for.
            content: the new text, written as UTF-8.
            authorize: called with the canonical path before anything is
                created or written; it raises to refuse.

        Raises:
            InvalidParams: bad path, outside the workspace, the target is a
                directory, a symbolic link or not a regular file, or
                ``content`` is not a string.
            InternalError: the operating system refused (permissions, disk full).

        """
        if not isinstance(content, str):
            raise InvalidParams("content must be a string")
        normal = check_path(path)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidParams("content is not encodable as UTF-8 (lone surrogate)") from exc
        try:
            canonical = await asyncio.to_thread(self._canonical_for_write, workspace, normal)
            if authorize is not None:
                await authorize(canonical)
            await asyncio.to_thread(self._write, workspace, normal, data, canonical)
        except RequestError as exc:
            self._log.info("write %s: refused: %s", _shown(normal), exc.message)
            raise
        self._log.info("write %s: %d bytes", _shown(normal), len(data))

    # -- blocking halves, run in a worker thread ---------------------------------

    def _open_for_read(self, workspace: Workspace, path: str) -> tuple[int, str]:
        """Open the regular file ``path`` names; return its fd and canonical path.

        A missing file gives fd -1 and the canonical path it would have.
        """
        shown = _shown(path)
        inside = workspace.contains(path)
        if not inside and not self._allow_outside:
            raise InvalidParams(f"path {shown} is outside the workspace")
        # A path inside the workspace resolves inside it (symlinks out refused);
        # only the read-anywhere mode walks from "/".
        jail = Jail(workspace, anywhere=self._allow_outside)
        try:
            fd, canonical = self._open_regular(jail, path, shown)
        except ResourceNotFound:
            return -1, jail.canonical(path)
        try:
            st = os.fstat(fd)
            jail.refuse_pseudo(canonical, st, shown)
            if not stat.S_ISREG(st.st_mode):
                raise InvalidParams(f"path {shown} is {_kind(st.st_mode)}, not a regular file")
        except BaseException:
            os.close(fd)
            raise
        return fd, canonical

    def _read(self, fd: int, path: str, line: int | None, limit: int | None) -> str:
        """Read the window from an fd :meth:`_open_for_read` opened (the caller closes it)."""
        shown = _shown(path)
        with open(fd, "rb", closefd=False) as stream:
            size = os.fstat(fd).st_size
            self._log.debug("read %s: opened, %d bytes on disk", shown, size)
            if line is None and limit is None and size > self._max_read:
                raise self._too_big(shown)
            data = self._window(stream, line or 1, limit, shown)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidParams(
                f"file {shown} is not UTF-8 text (invalid byte at offset {exc.start} of the "
                "requested range)"
            ) from exc

    def _open_regular(self, jail: Jail, path: str, shown: str) -> tuple[int, str]:
        """Resolve and open a regular file for reading, without following links."""
        for _attempt in range(3):
            with jail.resolve(path) as where:
                if where.st is None:
                    raise ResourceNotFound(f"file {shown} does not exist")
                jail.refuse_pseudo(where.path, where.st, shown)
                if not stat.S_ISREG(where.st.st_mode):
                    kind = _kind(where.st.st_mode)
                    raise InvalidParams(f"path {shown} is {kind}, not a regular file")
                try:
                    return os.open(where.name, _READ_FLAGS, dir_fd=where.dir_fd), where.path
                except OSError as exc:
                    # ELOOP: the entry became a symlink after the lstat; resolve
                    # again so the new link is checked like any other.
                    if exc.errno != errno.ELOOP:
                        raise _os_error(exc, shown) from exc
        raise InternalError(f"path {shown} kept changing while it was being opened")

    def _too_big(self, shown: str) -> InvalidParams:
        return InvalidParams(
            f"file {shown} is larger than the host's {self._max_read}-byte read limit; "
            "read it in parts with line and limit"
        )

    def _window(self, stream: BinaryIO, first: int, limit: int | None, shown: str) -> bytes:
        """Skip to line ``first`` and collect ``limit`` lines, within both caps.

        Chunks are read and their newlines counted (memchr speed, never a
        Python call per line), so a file of a million empty lines costs what
        its bytes cost. Skipping stops after ``max_scan_bytes``: a huge or
        sparse file (``truncate -s 1T``) with no newline would otherwise keep
        a worker thread reading for minutes, which nothing can interrupt.
        """
        if limit == 0:
            return b""
        need = first - 1  # newlines to pass before the window starts
        scanned = 0
        piece = b""
        while need:
            if scanned >= self._max_scan:
                raise InvalidParams(
                    f"line {first} of file {shown} is not within the first {self._max_scan} "
                    "bytes, the most the host scans to find a line; read a file this large "
                    "with an earlier line, or from a terminal"
                )
            chunk = stream.read(min(_CHUNK, self._max_scan - scanned))
            if not chunk:
                return b""
            scanned += len(chunk)
            count = chunk.count(b"\n")
            if count < need:
                need -= count
                continue
            piece = chunk[_past_newlines(chunk, need) :]
            need = 0
        out = bytearray()
        taken = 0
        while True:
            if limit is not None:
                count = piece.count(b"\n")
                if taken + count >= limit:
                    out += piece[: _past_newlines(piece, limit - taken)]
                    break
                taken += count
            out += piece
            if len(out) > self._max_read:
                raise self._too_big(shown)
            piece = stream.read(_CHUNK)
            if not piece:
                break
        if len(out) > self._max_read:
            raise self._too_big(shown)
        return bytes(out)

    def _canonical_for_write(self, workspace: Workspace, path: str) -> str:
        """The canonical path a write of ``path`` would replace; creates nothing."""
        if not workspace.contains(path):
            raise InvalidParams(
                f"path {_shown(path)} is outside the workspace; writes are confined to it"
            )
        return Jail(workspace).canonical(path)

    def _write(self, workspace: Workspace, path: str, data: bytes, expected: str) -> None:
        shown = _shown(path)
        if not workspace.contains(path):
            raise InvalidParams(f"path {shown} is outside the workspace; writes are confined to it")
        jail = Jail(workspace)
        with jail.resolve(path, create_parents=True) as where:
            if where.path != expected:
                raise InternalError(
                    f"path {shown} changed while it was being checked (now {_shown(where.path)}); "
                    "nothing was written"
                )
            mode: int | None = None  # a new file: 0o666 less the umask, as usual
            if where.st is not None:
                if not stat.S_ISREG(where.st.st_mode):
                    raise InvalidParams(
                        f"path {shown} is {_kind(where.st.st_mode)}; only regular files are written"
                    )
                mode = stat.S_IMODE(where.st.st_mode)
            self._replace(where.dir_fd, where.name, data, mode, shown)
            self._log.debug(
                "write %s: replaced %s", shown, "existing file" if where.st else "new file"
            )

    def _replace(self, dir_fd: int, name: str, data: bytes, mode: int | None, shown: str) -> None:
        temp = f".{name[:200]}.acphost-{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(temp, _TEMP_FLAGS, 0o666 if mode is None else 0o600, dir_fd=dir_fd)
        except OSError as exc:
            raise _os_error(exc, shown) from exc
        try:
            try:
                with open(fd, "wb", closefd=True) as out:
                    out.write(data)
                    out.flush()
                    if mode is not None:
                        os.fchmod(fd, mode)
                    os.fsync(fd)
                # rename(2) replaces the directory entry; it never follows a
                # symlink swapped in at the target name, and fails on a directory.
                os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                try:
                    os.unlink(temp, dir_fd=dir_fd)
                except OSError:
                    _log.warning("could not remove temporary file %r", temp)
                raise
        except IsADirectoryError as exc:
            raise InvalidParams(
                f"path {shown} is a directory; only regular files are written"
            ) from exc
        except OSError as exc:
            raise _os_error(exc, shown) from exc
        try:
            os.fsync(dir_fd)
        except OSError as exc:
            raise InternalError(
                f"file {shown} was written but its directory could not be synced"
            ) from exc
