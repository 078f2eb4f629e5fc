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

import difflib

from rich.text import Text

from .. import schema as s
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

#: Old and new lines together beyond which no diff is computed.
MAX_INPUT_LINES = 20_000
#: Old and new characters together beyond which no diff is computed.
MAX_INPUT_CHARS = 4_000_000
#: Diff lines drawn before ``… N more lines``.
MAX_SHOWN_LINES = 400
#: Characters drawn of one diff line.
MAX_LINE_CHARS = 1_000

_STYLES = {"@": "dim blue", "-": "red", "+": "green"}


def split_lines(text: str) -> list[str]:
    r"""``text``'s lines, split on ``\n`` only; a final newline ends the last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def diff_lines(item: s.DiffToolCallContent) -> list[str]:
    """The hunks of a ``diff`` content item, without the file header lines.

    Returns:
        The unified diff's lines (``@@`` headers, then `` ``, ``-`` and
        ``+`` lines); ``["(no changes)"]``; or one summary line when the
        input is too large to compare.

    """
    old_text = item.old_text
    new_text = item.new_text
    new = split_lines(new_text)
    if old_text is None:  # a new file: every line is added, nothing to compare
        return (
            [f"@@ -0,0 +1,{len(new)} @@", *(f"+{line}" for line in new)]
            if new
            else ["(empty new file)"]
        )
    old = split_lines(old_text)
    if len(old) + len(new) > MAX_INPUT_LINES or len(old_text) + len(new_text) > MAX_INPUT_CHARS:
        return [
            f"(too large to compare: {len(old):,} lines before, {len(new):,} after;"
            f" the limit is {MAX_INPUT_LINES:,} lines)"
        ]
    lines = list(difflib.unified_diff(old, new, lineterm="", n=3))[2:]
    return lines or ["(no changes)"]


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
