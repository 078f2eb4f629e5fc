"""Recording every frame of a connection as a JSONL trace.

One line per frame, in the format of seeds/000 §17 ("Trace fixture format"):
the frame's own members plus ``direction`` (``outgoing`` = client→agent,
``incoming`` = agent→client, from the host's side) and ``timestamp`` (UTC,
ISO 8601). Secrets are redacted before anything reaches the disk. A frame
that is not JSON is kept as ``{"direction": …, "unparsed": "<text>"}`` so the
trace shows exactly what went wrong.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from typing import IO, Any

from ._redact import Redactor

__all__ = ["TraceWriter"]


class TraceWriter:
    """A frame tap that appends redacted frames to a JSONL file.

    Use it as ``tap=`` of the client (or pass ``trace=path`` to
    :meth:`AcpClient.start`). Lines are flushed as written, so a crash loses
    at most the frame being written.

    Args:
        target: a path (created or truncated, mode 0600) or an open text file.
        redactor: the redaction rules (default: :class:`Redactor`).
    """

    def __init__(
        self, target: str | os.PathLike[str] | IO[str], *, redactor: Redactor | None = None
    ) -> None:
        if isinstance(target, (str, os.PathLike)):
            fd = os.open(
                os.fspath(target), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600
            )
            self._file: IO[str] = os.fdopen(fd, "w", encoding="utf-8")
            self._owned = True
        else:
            self._file = target
            self._owned = False
        self._redact = redactor or Redactor()
        self.closed = False

    def __call__(self, direction: str, line: bytes) -> None:
        """Record one frame (the client's tap signature: ``"send"``/``"receive"``)."""
        if self.closed:
            return
        record: dict[str, Any] = {
            "direction": "outgoing" if direction == "send" else "incoming",
            "timestamp": datetime.now(timezone.utc).isoformat(timespec="microseconds"),
        }
        try:
            frame = json.loads(line)
        except ValueError:
            record["unparsed"] = self._redact(line.decode("utf-8", "replace"))
        else:
            frame = self._redact(frame)
            if isinstance(frame, dict):
                record.update({k: v for k, v in frame.items() if k not in record})
            else:
                record["frame"] = frame
        self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Flush and close the file (if this writer opened it)."""
        if self.closed:
            return
        self.closed = True
        if self._owned:
            self._file.close()
        else:
            self._file.flush()
