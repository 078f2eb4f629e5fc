"""The permission audit log: one JSON line per decision, flushed at once."""

from __future__ import annotations

import json
import logging
import os
from datetime import datetime, timezone
from typing import IO

from .._outfile import open_output
from ..redact import Redactor
from ._request import PermissionRequest

__all__ = ["AuditLog"]

_log = logging.getLogger("acphost.host.permissions")


class AuditLog:
    """Appends one JSON object per permission decision to a file (JSONL).

    Each line holds ``time`` (ISO 8601, UTC), ``session``, ``toolCallId``,
    ``operation``, ``toolKind``, ``toolName``, ``title``, ``paths`` (canonical:
    resolved the way the jail resolves them), ``command``, ``cwd``,
    ``decision``, ``optionKind`` and ``reason``; ``requestedPaths`` (the paths
    as the agent wrote them) when they differ from ``paths``, and
    ``protected`` when the request touched protected areas. Never file
    contents or raw tool input; every line passes the one redactor, so
    configured secrets and credential-like values in commands, titles and
    paths (``OPENAI_API_KEY=…``) are masked.

    Args:
        target: a path, opened with :func:`~acphost.host.open_output` (append
            only, never through a symbolic link, regular files only,
            owner-only permissions when created; the file stays open, so
            replacing its name does not redirect the log), or an open text
            stream (left open on :meth:`close`).
        redactor: the host's redactor (default: known token formats and
            credential-like names only; pass the configured one).

    Raises:
        OutputFileError: the path is unsafe or cannot be opened.

    """

    __slots__ = ("_owned", "_redactor", "_stream")

    def __init__(
        self, target: str | os.PathLike[str] | IO[str], *, redactor: Redactor | None = None
    ) -> None:
        self._redactor = redactor if redactor is not None else Redactor()
        if isinstance(target, (str, os.PathLike)):
            self._stream: IO[str] = open_output(target, append=True)
            self._owned = True
        else:
            self._stream = target
            self._owned = False

    def record(
        self,
        request: PermissionRequest,
        decision: str,
        *,
        option_kind: str | None = None,
        reason: str = "",
    ) -> None:
        """Write one line and flush it.

        Args:
            request: the request decided.
            decision: ``allow``, ``reject`` or ``cancelled``.
            option_kind: the kind of the option chosen, if any.
            reason: why (rule, policy, sticky decision, cancellation).

        """
        line = {
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "session": request.session_id,
            "toolCallId": request.tool_call_id,
            "operation": request.operation,
            "toolKind": request.kind,
            "toolName": request.tool_name,
            "title": request.title,
            "paths": list(request.paths),
            "command": request.command,
            "cwd": request.cwd,
            "decision": decision,
            "optionKind": option_kind,
            "reason": reason,
        }
        if request.requested_paths:
            line["requestedPaths"] = list(request.requested_paths)
        if request.protected:
            line["protected"] = list(request.protected)
        try:
            self._stream.write(json.dumps(self._redactor.redact_frame(line)) + "\n")
            self._stream.flush()
        except (OSError, ValueError):
            # An audit failure must not turn into an allow or a crash of the
            # request; it is loud in the local log instead.
            _log.exception("could not write the permission audit log")

    def close(self) -> None:
        """Close the file if this log opened it."""
        if self._owned:
            self._stream.close()
