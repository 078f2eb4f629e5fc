"""The one redactor: secrets out of everything acphost shows or keeps.

A leaf of the package (it needs only :mod:`acphost.safetext`), so that every
layer that shows or stores text can use the same one: traces, the history
store, the audit log, crash reports, ``doctor``/``agents``, the TUI's protocol
log and batch reports.

- :class:`Redactor`: built from the host's configuration (the exact values it
  was given, in their spellings) plus well-known token formats; call it on a
  frame, a line of text or a command line.
- :data:`REDACTED`: what a secret is replaced with.
- :data:`REACH`: how far past its start a rule's match is known to be one
  (what a text redacted in pieces keeps after each cut).
- :func:`encode_json`, :class:`Literals`, :class:`Overlaps`: the pieces a
  stream of chunks needs to redact a secret split across chunks (the trace's
  carry uses them).
"""

from __future__ import annotations

from ._literals import Literals
from ._overlap import Overlaps
from ._patterns import REACH
from ._redact import REDACTED, Redactor, encode_json

__all__ = ["REACH", "REDACTED", "Literals", "Overlaps", "Redactor", "encode_json"]
