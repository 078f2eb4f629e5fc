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
another machine or shipped in a checkout. Every path read back from it is
checked by :meth:`OutDir.inside` (relative, no ``..``, no symbolic link on
the way: the canonical path is under the folder's own) and read through the
package's bounded reader; every folder written to is a real directory made
here (:meth:`OutDir.own_dir`), never one a planted link leads elsewhere.
Nothing named by a file in it is ever removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from ..config import InputFileError, loads_strict, open_input, read_input
from ._model import OutcomeError, RunOutcome

__all__ = ["FORMAT", "VERSION", "BatchError", "OutDir", "check_run_id"]

FORMAT = "acphost-batch"
VERSION = 1

_FIX = "the batch output directory was changed by hand; run the batch again"


#: What a run id looks like (what :mod:`._plan` makes): a file name, never ``.``, ``..`` or a path.
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


class BatchError(Exception):
    """The batch cannot go on (output directory busy or unusable); the message says why."""


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

    """

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(os.path.expanduser(path))

    def run_dir(self, run_id: str) -> str:
        """The directory of one run's files.

        Raises:
            BatchError: ``run_id`` is not a plain file name.

        """
        return os.path.join(self.path, "runs", check_run_id(run_id, self.path))

    def inside(self, rel: str) -> str:
        """The canonical path of ``rel`` (``/``-separated) inside the directory.

        A path read back from a results folder (a ``result.json``'s ``diff``,
        a run id) is data: it must be relative, without ``.`` or ``..``, and
        no component on the way may be a symbolic link, so the file is the
        folder's own wherever the folder came from. The directory itself is
        the user's choice and may be reached through links.

        Raises:
            BatchError: ``rel`` leaves the directory or goes through a link.

        """
        parts = rel.split("/")
        if (
            not rel
            or rel.startswith("/")
            or "\0" in rel
            or any(p in ("", ".", "..") for p in parts)
        ):
            raise BatchError(f"{rel!r} is not a path inside the results folder {self.path}")
        root = os.path.realpath(self.path)
        path = os.path.join(root, *parts)
        if os.path.realpath(path) != path:
            raise BatchError(
                f"{rel!r} in the results folder {self.path} goes through a symbolic link: "
                "acphost reads only the folder's own files"
            )
        return path

    def open_file(self, rel: str, what: str) -> IO[bytes]:
        """Open a file of the folder for a bounded read (:meth:`inside`, then ``open_input``).

        Raises:
            BatchError: outside the folder, through a link, missing, not a
                regular file (a FIFO never blocks it), or unreadable.

        """
        try:
            return open_input(self.inside(rel), what=what)
        except InputFileError as exc:
            raise BatchError(str(exc)) from None

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
        try:
            os.makedirs(self.path, exist_ok=True)
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
            OutcomeError: the file exists but is not a valid outcome.

        """
        path = os.path.join(self.run_dir(run_id), "result.json")
        try:
            if not os.path.lexists(path):
                return None
            path = self.inside(f"runs/{run_id}/result.json")
            data = loads_strict(read_input(path, what="run result"), where=path, fix=_FIX)
        except BatchError as exc:
            raise OutcomeError(str(exc)) from None
        except InputFileError as exc:
            if exc.missing:
                return None
            raise OutcomeError(str(exc)) from None
        return RunOutcome.from_json(data, path)

    def read_plan(self) -> dict[str, Any]:
        """``batch.json``.

        Raises:
            BatchError: missing or not a batch's file.

        """
        path = os.path.join(self.path, "batch.json")
        try:
            if os.path.lexists(path):
                path = self.inside("batch.json")  # a link to a file elsewhere is refused
            data = loads_strict(read_input(path, what="batch file"), where=path, fix=_FIX)
        except InputFileError as exc:
            if exc.missing:
                raise BatchError(
                    f"{self.path} is not a batch's output directory (no batch.json)"
                ) from None
            raise BatchError(str(exc)) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BatchError(f"{path} is not an acphost batch file")
        if not isinstance(data.get("version"), int) or data["version"] > VERSION:
            raise BatchError(f"{path} is from a newer acphost (version {data.get('version')!r})")
        if not isinstance(data.get("runs"), list):
            raise BatchError(f"{path}: runs is missing")
        return data
