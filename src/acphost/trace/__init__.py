"""Traces: record frames (redacted), validate them, replay them.

- :class:`TraceWriter` records every frame of a connection as JSONL, into a
  file opened safely (:func:`acphost.host.open_output`, :class:`OutputFileError`);
- :class:`Redactor` (from :mod:`acphost.redact`, re-exported here where
  library users first met it) removes secrets from frames, text and command
  lines: the one redactor of every output that shows or keeps frames or
  diagnostics;
- :class:`TraceValidator` checks frames against the schema and the
  protocol's ordering rules, from a file (:func:`validate_file`) or live;
- the replay agent (``python -m acphost.agents.replay TRACE``) plays the
  agent's side of a trace back to a client.
"""

from ..errors import OutputFileError
from ..redact import REDACTED, Redactor
from ._recorder import TraceWriter
from ._tracefile import read_trace
from ._validate import TraceValidator, Violation

__all__ = [
    "REDACTED",
    "OutputFileError",
    "Redactor",
    "TraceValidator",
    "TraceWriter",
    "Violation",
    "read_trace",
    "validate_file",
]


def validate_file(path: str, *, schema: bool = True) -> list[Violation]:
    """Validate a whole trace file and return its violations (empty: conformant).

    A line that cannot be read (not JSON, longer than the live reader's cap,
    nested too deeply) is a violation with its line number; the check goes on.
    The frames are checked in the protocol version the trace's ``initialize``
    exchange agreed (ACP 1 or 2; a refused ``initialize`` and its retry count
    the retry).

    Args:
        path: the JSONL trace.
        schema: also check shapes against the schema (needs jsonschema).

    Returns:
        The violations, in the order found.

    Raises:
        OSError: the file cannot be read.
        RuntimeError: ``schema`` is set and jsonschema is missing.

    """
    validator = TraceValidator(schema=schema)
    for line, direction, frame in read_trace(path):
        if direction is None:
            validator.violations.append(Violation(line, "trace", "unreadable", str(frame)))
            continue
        try:
            validator.feed(direction, frame, line)
        except RecursionError:  # past the parser's own limit only in hand-made frames
            validator.violations.append(
                Violation(line, "trace", "unreadable", "a frame nested too deeply to check")
            )
    return validator.finish()
