r"""Unified diffs of ``diff`` tool-call content, coloured line by line, bounded.

``oldText`` absent means a new file (ACP "Tool Calls", diff content). The
hunk header (``@@ -1 +1 @@``) is a location, not a change: it is drawn dim
and blue, never in the deletion colour; only ``-`` lines are red and only
``+`` lines green. Paths and contents are the agent's: made inert first.

The agent also chooses the sizes, so everything here is bounded:

- lines are split on ``\n`` only (:func:`split_lines`): ``str.splitlines``
  also breaks at ``\x0b``, ``\x0c``, ``\x1c``-``\x1e``, ``\x85``, U+2028
  and U+2029, so a file with one of those would be shown with lines it does
  not have (and line numbers that do not match it);
- ``difflib`` takes time quadratic in the worst case (20,000 lines of a few
  hundred distinct values take seconds, on the UI's thread): inputs over
  :data:`MAX_INPUT_LINES` lines (old and new together) or
  :data:`MAX_INPUT_CHARS` characters are not compared; a summary says so;
- at most :data:`MAX_SHOWN_LINES` lines are drawn, then ``… N more lines``,
  each cut at :data:`MAX_LINE_CHARS` characters.
"""

from __future__ import annotations

from rich.text import Text

from .. import schema as s
from .._difftext import MAX_INPUT_CHARS, MAX_INPUT_LINES, hunk_lines, split_lines
from ._safe import clip, sanitize

__all__ = [
    "MAX_INPUT_CHARS",
    "MAX_INPUT_LINES",
    "MAX_LINE_CHARS",
    "MAX_SHOWN_LINES",
    "diff_lines",
    "diff_text",
    "render_diff",
    "split_lines",
    "unified_diff",
]

#: Diff lines drawn before ``… N more lines``.
MAX_SHOWN_LINES = 400
#: Characters drawn of one diff line.
MAX_LINE_CHARS = 1_000

_STYLES = {"@": "dim blue", "-": "red", "+": "green"}


def diff_lines(item: s.DiffToolCallContent) -> list[str]:
    """The hunks of a ``diff`` content item, without the file header lines.

    Returns:
        The unified diff's lines (``@@`` headers, then `` ``, ``-`` and
        ``+`` lines); ``["(no changes)"]``; ``["(empty new file)"]``; or one
        summary line when the input is too large to compare.

    """
    lines = hunk_lines(item.old_text, item.new_text)
    if lines:
        return lines
    return ["(empty new file)"] if item.old_text is None else ["(no changes)"]


def unified_diff(item: s.DiffToolCallContent) -> str:
    """:func:`diff_lines` as one string (raw: sanitise before a terminal)."""
    return "\n".join(diff_lines(item))


def diff_text(item: s.DiffToolCallContent) -> Text:
    """The hunks as styled, inert text (one style per line), at most :data:`MAX_SHOWN_LINES`."""
    return render_diff(diff_lines(item))


def render_diff(lines: list[str]) -> Text:
    """:func:`diff_lines` as styled, inert text, at most :data:`MAX_SHOWN_LINES` lines."""
    out = Text(no_wrap=False)
    for i, line in enumerate(lines[:MAX_SHOWN_LINES]):
        if i:
            out.append("\n")
        out.append(sanitize(clip(line, MAX_LINE_CHARS)), style=_STYLES.get(line[:1], ""))
    left = len(lines) - MAX_SHOWN_LINES
    if left > 0:
        out.append(f"\n… {left:,} more line{'s' if left != 1 else ''}", style="dim italic")
    return out
