"""The output directory: its layout, its lock, and writes that a crash cannot tear.

::

    OUT/
      batch.json              the plan (runs, agents, prompts) and how it was run
      runs/<id>/result.json   one run's outcome: written last, atomically (its "done" mark)
      runs/<id>/trace.jsonl   the redacted trace
      runs/<id>/diff.patch    the changes, when there are any
      runs/<id>/workspace.json  present while the run's workspace exists (crash clean-up)
      workspaces/<id>/        kept workspaces (--keep-workspaces)
      report.json, report.md, report.html
      .lock                   held by the batch writing here
      .workdir                the local executor's temporary directory (removed after a crash)

One batch at a time writes to a directory: a second one gets a clear error
instead of mixing results.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from typing import Any

from ..config import InputFileError, loads_strict, read_input
from ._model import OutcomeError, RunOutcome

__all__ = ["FORMAT", "VERSION", "BatchError", "OutDir"]

FORMAT = "acphost-batch"
VERSION = 1

_FIX = "the batch output directory was changed by hand; run the batch again"


class BatchError(Exception):
    """The batch cannot go on (output directory busy or unusable); the message says why."""


def write_atomic(path: str, text: str) -> None:
    """Write a file so that readers see the old content or the new, never a part."""
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
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
        """The directory of one run's files."""
        return os.path.join(self.path, "runs", run_id)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the directory for this batch.

        Raises:
            BatchError: another batch holds it, or it cannot be created.

        """
        try:
            os.makedirs(os.path.join(self.path, "runs"), exist_ok=True)
            fd = os.open(
                os.path.join(self.path, ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600
            )
        except OSError as exc:
            raise BatchError(f"cannot use the output directory {self.path}: {exc}") from None
        try:
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
        """Write ``OUT/<rel>`` atomically as indented JSON."""
        path = os.path.join(self.path, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

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
            data = loads_strict(read_input(path, what="run result"), where=path, fix=_FIX)
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
