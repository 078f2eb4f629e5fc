"""Traces: record frames (redacted), validate them, replay them.

- :class:`TraceWriter` records every frame of a connection as JSONL, into a
  file opened safely (:func:`open_output`, :class:`OutputFileError`);
- :class:`Redactor` removes secrets from frames, text and command lines: the
  one redactor of every output that shows or keeps frames or diagnostics;
- :class:`TraceValidator` checks frames against the schema and the
  protocol's ordering rules, from a file (:func:`validate_file`) or live;
- the replay agent (``python -m acphost.agents.replay TRACE``) plays the
  agent's side of a trace back to a client.
"""

from ._output import OutputFileError, open_output
from ._recorder import TraceWriter
from ._redact import REDACTED, Redactor
from ._validate import TraceValidator, Violation, read_trace

__all__ = [
    "REDACTED",
    "OutputFileError",
    "Redactor",
    "TraceValidator",
    "TraceWriter",
    "Violation",
    "open_output",
    "read_trace",
    "validate_file",
]


def validate_file(path: str, *, schema: bool = True) -> list[Violation]:
    """Validate a whole trace file and return its violations (empty: conformant).

    Raises:
        OSError: the file cannot be read.
    """
    validator = TraceValidator(schema=schema)
    for line, direction, frame in read_trace(path):
        if direction is None:
            validator.violations.append(Violation(line, "trace", "unreadable", str(frame)))
        else:
            validator.feed(direction, frame, line)
    return validator.finish()
