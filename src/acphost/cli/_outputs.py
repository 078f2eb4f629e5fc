"""What a prompt run keeps: its one redactor and the files it writes.

Every output of a run that persists or shows frames or diagnostics (the
trace, the audit log, the history, crash reports, live-check warnings, the
log lines on stderr) passes the same :class:`~acphost.trace.Redactor`, built
once from the run's configuration: the agent's ``env`` and secret arguments,
the settings' MCP servers, the host's credential-named variables.

The trace and the audit log are opened before the agent starts, safely
(:func:`acphost.host.open_output`: no symbolic link, FIFO or hard link), so
a bad path is a usage error naming the flag and no agent is started for
nothing. Every file the run writes (the history store too) is registered as
protected: the agent cannot write there.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from typing import IO, TYPE_CHECKING, Any

from ..errors import OutputFileError
from ..launch import UsageProblem
from ._edge import warn

if TYPE_CHECKING:
    from ..config import AgentSpec, Settings
    from ..history import HistoryRecorder, SessionRecording
    from ..redact import Redactor
    from ..trace import TraceWriter

__all__ = ["OUTPUT_FLAGS", "RunOutputs", "flag_of", "write_json_atomic"]

#: The flags naming a file acphost writes, and their attribute on the parsed args.
OUTPUT_FLAGS = (
    ("--trace", "trace"),
    ("--save-session", "save_session"),
    ("--audit-log", "audit_log"),
)


def _path(value: str) -> str:
    return os.path.abspath(os.path.expanduser(value))


def flag_of(args: argparse.Namespace, path: str) -> str | None:
    """The flag whose file is ``path`` (as :class:`OutputFileError` names it), if any."""
    wanted = _path(path)
    for flag, attr in OUTPUT_FLAGS:
        value = getattr(args, attr, None)
        if value and _path(value) == wanted:
            return flag
    return None


class RunOutputs:
    """The redactor and the output files of one prompt run.

    Args:
        args: the parsed command line.
        spec: the agent.
        settings: the settings in use.
        history_path: the history store to record into, or None (``--no-history``).

    """

    def __init__(
        self,
        args: argparse.Namespace,
        spec: AgentSpec,
        settings: Settings,
        *,
        history_path: str | None,
    ) -> None:
        self.args = args
        self.spec = spec
        self.settings = settings
        self.history_path = history_path
        self.trace: TraceWriter | None = None
        self.audit: IO[str] | None = None
        self.recorder: HistoryRecorder | None = None
        self._redactor: Redactor | None = None

    @property
    def redactor(self) -> Redactor:
        """The run's one redactor (built on first use)."""
        if self._redactor is None:
            from ..redact import Redactor  # noqa: PLC0415 - after the spawn unless tracing

            # ``--auth`` names a method only: the run has no other secret input.
            self._redactor = Redactor.from_config(agent=self.spec, settings=self.settings)
        return self._redactor

    def open_early(self) -> None:
        """Open ``--trace`` and ``--audit-log`` now, before the agent starts.

        Raises:
            UsageProblem: a file cannot be opened safely; the message names the flag.

        """
        a = self.args
        try:
            if a.audit_log:
                from .._outfile import open_output  # noqa: PLC0415

                self.audit = open_output(_path(a.audit_log), append=True)
            if a.trace:
                from ..trace import TraceWriter  # noqa: PLC0415 - only when tracing

                self.trace = TraceWriter(_path(a.trace), redactor=self.redactor)
        except OutputFileError as exc:
            self.close()
            raise self.usage_problem(exc) from None

    def usage_problem(self, exc: OutputFileError) -> UsageProblem:
        """The usage error for an output file that cannot be written, naming its flag."""
        flag = flag_of(self.args, exc.path)
        where = f"{flag} {exc.path}" if flag else exc.path
        return UsageProblem(f"{where}: {exc.reason}")

    @property
    def protected(self) -> tuple[str, ...]:
        """The files the agent must not write: ``--trace``, ``--save-session``, the history.

        The history is its database and SQLite's files beside it (``-wal``,
        ``-shm``, ``-journal``), not its whole directory: ``ACPHOST_HISTORY``
        may name a file in the workspace, whose other files stay writable.
        (``--audit-log`` is added by :func:`acphost.launch.build_host_config`.)
        """
        files = [_path(v) for v in (self.args.trace, self.args.save_session) if v]
        if self.history_path is not None:
            files += [self.history_path + end for end in ("", "-wal", "-shm", "-journal")]
        return tuple(files)

    def reopen_trace(self) -> None:
        """Open ``--trace`` again (emptied) for a second connection: the client closed it."""
        if self.trace is not None and self.trace.closed:
            from ..trace import TraceWriter  # noqa: PLC0415

            try:
                self.trace = TraceWriter(_path(self.args.trace), redactor=self.redactor)
            except OutputFileError as exc:
                raise self.usage_problem(exc) from None

    def save_session(
        self,
        session_id: str,
        cwd: str,
        recording: SessionRecording | None,
        protocol: int | None = None,
    ) -> None:
        """``--save-session``: the agent, the session id, the cwd, the protocol (and history id).

        ``protocol`` is the version the connection agreed on: ``--resume FILE``
        reopens the session in it.
        """
        if not self.args.save_session:
            return
        from datetime import datetime, timezone  # noqa: PLC0415

        saved: dict[str, Any] = {
            "agent": self.spec.name,
            "sessionId": session_id,
            "cwd": cwd,
            "savedAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        if protocol is not None:
            saved["protocol"] = protocol
        if recording is not None and self.recorder is not None and self.recorder.enabled:
            saved["historyId"] = recording.id
        write_json_atomic(self.args.save_session, saved)

    def open_history(self) -> HistoryRecorder | None:
        """The history recorder of this run, or None when recording is off.

        A store that cannot be used costs one warning; the run goes on.
        """
        if self.history_path is None:
            return None
        if self.recorder is None:
            from ..history import HistoryRecorder  # noqa: PLC0415

            self.recorder = HistoryRecorder.open(
                self.history_path, self.redactor, warn=lambda m: warn(f"warning: {m}")
            )
        return self.recorder

    def close(self) -> None:
        """Close what the run opened (the client closes the trace it was given first)."""
        if self.trace is not None:
            self.trace.close()
        if self.audit is not None:
            try:  # noqa: SIM105 - the broker may have closed it
                self.audit.close()
            except OSError:
                pass
            self.audit = None
        if self.recorder is not None:
            self.recorder.close()


def write_json_atomic(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` whole or not at all (a temporary file, renamed)."""
    target = os.path.abspath(os.path.expanduser(path))
    import tempfile  # noqa: PLC0415 - only --save-session writes one

    fd, tmp = tempfile.mkstemp(prefix=".acphost-", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
