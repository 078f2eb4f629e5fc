"""The output directory: its layout, its lock, and writes that a crash cannot tear.

::

    OUT/
      batch.json              the plan (runs, agents, prompts) and how it was run
      runs/<id>/result.json   one run's outcome: written last, atomically (its "done" mark)
      runs/<id>/trace.jsonl   the redacted trace
      runs/<id>/diff.patch    the changes, when there are any
      workspaces/<id>/        kept workspaces (--keep-workspaces)
      report.json, report.md, report.html
      .lock                   held by the batch writing here
      .workdir                the id of the local executor's work directory (see _workdir)

One batch at a time writes to a directory: a second one gets a clear error
instead of mixing results.

A results folder is data, never instructions: it may have been copied from
another machine or shipped in a checkout. A batch writes only into a folder
it makes, an empty one, or one holding an acphost ``batch.json``
(:meth:`OutDir.check`); the default name is never followed through a link.
Every path read back from it is relative, without ``..``, and opened from
the folder's own descriptor one component at a time with ``O_NOFOLLOW``
(:meth:`OutDir.open_file`, :meth:`OutDir.read_file`): no check-then-open, so
no link swapped in leads out; it is read through the package's bounded
reader. Every folder written to is a real directory made here
(:meth:`OutDir.own_dir`), never one a planted link leads elsewhere. Nothing
named by a file in it is ever removed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from ..config import MAX_INPUT_BYTES, InputFileError, loads_strict, open_input, read_input
from ._model import OutcomeError, RunOutcome

__all__ = ["FORMAT", "VERSION", "BatchError", "OutDir", "check_run_id"]

FORMAT = "acphost-batch"
VERSION = 1

_FIX = "the batch output directory was changed by hand; run the batch again"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


#: What a run id looks like (what :mod:`._plan` makes): a file name, never ``.``, ``..`` or a path.
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


class BatchError(Exception):
    """The batch cannot go on (output directory busy or unusable); the message says why."""


class _ReadError(BatchError):
    """A file of the folder could not be read; ``missing`` when it (or a directory) is absent."""

    def __init__(
        self, message: str, cause: OSError | None = None, *, missing: bool = False
    ) -> None:
        super().__init__(message)
        self.missing = missing or isinstance(cause, FileNotFoundError)


def check_run_id(run_id: object, where: str) -> str:
    """``run_id`` if it is one acphost makes (a plain file name); else one clear error.

    Raises:
        BatchError: anything else (a path, ``..``, an empty or odd name).

    """
    if not isinstance(run_id, str) or not _RUN_ID.fullmatch(run_id):
        raise BatchError(
            f"{where}: the run id {run_id!r} is not one acphost makes (letters, digits, "
            "'.', '_' and '-'); the results folder was changed by hand or crafted"
        )
    return run_id


def write_atomic(path: str, text: str | bytes) -> None:
    """Write a file so that readers see the old content or the new, never a part.

    The new file replaces the name: a symbolic link planted there is replaced,
    never written through.
    """
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class OutDir:
    """A batch's output directory.

    Args:
        path: the directory (created when missing).
        chosen: the user named it (``--out``, a spec, a library call): a
            symbolic link there is theirs and is followed. False for a
            default name, which may come from a checkout: a link there is
            refused (:meth:`check`).

    """

    def __init__(self, path: str, *, chosen: bool = True) -> None:
        self.path = os.path.abspath(os.path.expanduser(path))
        self.chosen = chosen

    def run_dir(self, run_id: str) -> str:
        """The directory of one run's files.

        Raises:
            BatchError: ``run_id`` is not a plain file name.

        """
        return os.path.join(self.path, "runs", check_run_id(run_id, self.path))

    # -- whose folder it is --------------------------------------------------------------

    def check(self) -> None:
        """Check, writing nothing, that a batch may write here.

        A folder that does not exist yet is fine (:meth:`claim` makes it).
        One that exists is used only if it is a directory (through a link
        only when :attr:`chosen`) that is empty or holds an acphost batch's
        ``batch.json``: any other folder is someone's, and its report.md or
        batch.json must not be replaced.

        Raises:
            BatchError: one line saying what is there and what to do.

        """
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise BatchError(
                f"cannot use the output directory {self.path}: {exc.strerror}"
            ) from None
        if stat.S_ISLNK(info.st_mode) and not self.chosen:
            raise BatchError(
                f"{self.path} is a symbolic link: acphost does not write its results through a "
                "link it did not make (a checkout may ship one); remove it, or name the folder "
                "with --out"
            )
        if not os.path.isdir(self.path):
            raise BatchError(
                f"the output directory {self.path} is not a directory; choose another --out"
            )
        try:
            empty = not os.listdir(self.path)
        except OSError as exc:
            raise BatchError(
                f"cannot use the output directory {self.path}: {exc.strerror}"
            ) from None
        if empty:
            return
        try:
            self.read_plan()
        except BatchError:
            raise BatchError(
                f"{self.path} is not an acphost batch's results folder (no batch.json of "
                "acphost's): acphost writes only into a folder it made or an empty one; "
                "choose another --out"
            ) from None

    def claim(self) -> None:
        """Make the folder (never through a link), or :meth:`check` the one there.

        Raises:
            BatchError: as :meth:`check`, or it cannot be created.

        """
        parent = os.path.dirname(self.path)
        try:
            if self.chosen:
                os.makedirs(parent, exist_ok=True)  # the user's own path
            # mkdir makes a new directory or fails: a link of that name is never followed.
            os.mkdir(self.path, 0o755)
            return
        except FileExistsError:
            pass
        except OSError as exc:
            raise BatchError(f"cannot create the output directory {self.path}: {exc}") from None
        self.check()

    # -- reading back ----------------------------------------------------------------------

    def _parts(self, rel: str) -> list[str]:
        parts = rel.split("/")
        if (
            not rel
            or rel.startswith("/")
            or "\0" in rel
            or any(p in ("", ".", "..") for p in parts)
        ):
            raise BatchError(f"{rel!r} is not a path inside the results folder {self.path}")
        return parts

    @contextlib.contextmanager
    def _directory_of(self, rel: str) -> Iterator[tuple[int, str]]:
        """The open directory holding ``rel``, and its last component.

        Walked from the folder's own descriptor one component at a time,
        each opened with ``O_NOFOLLOW``: nothing is checked and then opened
        again by path, so a link swapped in at any moment is refused, never
        followed. The folder itself is the user's choice (see :meth:`check`).

        Raises:
            BatchError: ``rel`` leaves the folder, or a directory on the way
                is missing, a link or not a directory (``missing`` set when missing).

        """
        parts = self._parts(rel)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise _ReadError(
                f"cannot open the results folder {self.path}: {exc.strerror}", exc
            ) from None
        try:
            for n, part in enumerate(parts[:-1], 1):
                try:
                    inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    where = "/".join(parts[:n])
                    why = (
                        "is a symbolic link or not a directory"
                        if exc.errno in (errno.ELOOP, errno.ENOTDIR)
                        else exc.strerror
                    )
                    raise _ReadError(
                        f"{where} in the results folder {self.path} {why}: acphost reads only "
                        "the folder's own files",
                        exc,
                    ) from None
                os.close(fd)
                fd = inner
            yield fd, parts[-1]
        finally:
            os.close(fd)

    def open_file(self, rel: str, what: str) -> IO[bytes]:
        """Open a file of the folder for a bounded read, race-free (see :meth:`_directory_of`).

        Raises:
            BatchError: outside the folder, through a link, missing, not a
                regular file (a FIFO never blocks it), or unreadable.

        """
        with self._directory_of(rel) as (fd, name):
            try:
                return open_input(name, what=what, dir_fd=fd, shown=os.path.join(self.path, rel))
            except InputFileError as exc:
                raise _ReadError(str(exc), missing=exc.missing) from None

    def read_file(self, rel: str, what: str, limit: int = MAX_INPUT_BYTES) -> bytes | None:
        """A file of the folder, read whole and bounded; None when it does not exist.

        Raises:
            BatchError: as :meth:`open_file` (but missing), or larger than ``limit``.

        """
        try:
            with self._directory_of(rel) as (fd, name):
                return read_input(
                    name, what=what, limit=limit, dir_fd=fd, shown=os.path.join(self.path, rel)
                )
        except InputFileError as exc:
            if exc.missing:
                return None
            raise BatchError(str(exc)) from None
        except _ReadError as exc:
            if exc.missing:
                return None
            raise

    def own_dir(self, rel: str) -> str:
        """Make (or find) the directory ``rel`` of the folder, a real one; return its path.

        Raises:
            BatchError: ``rel`` (or a directory above it) is a symbolic link or
                not a directory: acphost writes only in directories it made.

        """
        parts = rel.split("/")
        path = self.path
        for n, part in enumerate(parts, 1):
            path = os.path.join(path, part)
            try:
                os.mkdir(path, 0o755)
            except FileExistsError:
                pass  # checked below: a link or a file is refused
            except OSError as exc:
                raise BatchError(f"cannot create {path}: {exc.strerror}") from None
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode):
                kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a directory"
                where = "/".join(parts[:n])
                raise BatchError(
                    f"{where} in the results folder {self.path} is {kind}: acphost writes only "
                    "in directories it made; remove it or choose another --out"
                )
        return path

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the directory for this batch.

        Raises:
            BatchError: another batch holds it, or it cannot be created.

        """
        self.claim()
        try:
            # O_NOFOLLOW: a .lock planted as a link is refused, never created through.
            fd = os.open(
                os.path.join(self.path, ".lock"),
                os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                0o600,
            )
        except OSError as exc:
            raise BatchError(f"cannot use the output directory {self.path}: {exc}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise BatchError(f"{self.path}/.lock is not a regular file: remove it")
            self.own_dir("runs")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise BatchError(
                    f"another acphost batch is writing to {self.path}: wait for it, "
                    "or choose another --out"
                ) from None
            yield
        finally:
            os.close(fd)

    def write_json(self, rel: str, data: Any) -> None:
        """Write ``OUT/<rel>`` atomically as indented JSON (in a directory made here).

        Raises:
            BatchError: the directory is a planted link or not a directory.

        """
        directory, _, name = rel.rpartition("/")
        where = self.own_dir(directory) if directory else self.path
        write_atomic(
            os.path.join(where, name), json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        )

    def save_outcome(self, outcome: RunOutcome) -> None:
        """Write ``runs/<id>/result.json`` (after the run's other files)."""
        self.write_json(f"runs/{outcome.id}/result.json", outcome.to_json())

    def load_outcome(self, run_id: str) -> RunOutcome | None:
        """A run's stored outcome; None when there is none.

        Raises:
            OutcomeError: the file exists but is not a valid outcome (or not
                the folder's own regular file).

        """
        rel = f"runs/{check_run_id(run_id, self.path)}/result.json"
        path = os.path.join(self.path, rel)
        try:
            data = self.read_file(rel, "run result")
            if data is None:
                return None
            return RunOutcome.from_json(loads_strict(data, where=path, fix=_FIX), path)
        except (BatchError, InputFileError) as exc:
            raise OutcomeError(str(exc)) from None

    def read_plan(self) -> dict[str, Any]:
        """``batch.json``.

        Raises:
            BatchError: missing or not a batch's file.

        """
        path = os.path.join(self.path, "batch.json")
        raw = self.read_file("batch.json", "batch file")  # a link to a file elsewhere is refused
        if raw is None:
            raise BatchError(f"{self.path} is not a batch's output directory (no batch.json)")
        try:
            data = loads_strict(raw, where=path, fix=_FIX)
        except InputFileError as exc:
            raise BatchError(str(exc)) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BatchError(f"{path} is not an acphost batch file")
        if not isinstance(data.get("version"), int) or data["version"] > VERSION:
            raise BatchError(f"{path} is from a newer acphost (version {data.get('version')!r})")
        if not isinstance(data.get("runs"), list):
            raise BatchError(f"{path}: runs is missing")
        return data
