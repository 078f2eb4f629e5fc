"""Unified diffs of ``diff`` tool-call content, coloured line by line.

``oldText`` absent means a new file (ACP "Tool Calls", diff content). The
hunk header (``@@ -1 +1 @@``) is a location, not a change: it is drawn dim
and blue, never in the deletion colour; only ``-`` lines are red and only
``+`` lines green. Paths and contents are the agent's: made inert first.
"""

from __future__ import annotations

import difflib

from rich.text import Text

from .. import schema as s
from ._safe import sanitize

__all__ = ["diff_text", "unified_diff"]

_STYLES = {"@": "dim blue", "-": "red", "+": "green"}


def unified_diff(item: s.DiffToolCallContent) -> str:
    """The hunks of a ``diff`` content item, without the file header lines."""
    old = (item.old_text or "").splitlines()
    new = item.new_text.splitlines()
    lines = list(difflib.unified_diff(old, new, lineterm="", n=3))[2:]
    if not lines:
        return "(no changes)"
    return "\n".join(lines)


def diff_text(item: s.DiffToolCallContent) -> Text:
    """The hunks as styled, inert text (one style per line, by its first character)."""
    out = Text(no_wrap=False)
    for i, line in enumerate(sanitize(unified_diff(item)).split("\n")):
        if i:
            out.append("\n")
        out.append(line, style=_STYLES.get(line[:1], ""))
    return out
