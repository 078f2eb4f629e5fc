r"""Unified diffs of text an agent sent, bounded in time.

A ``diff`` tool-call content item carries the old and the new text of a file
(ACP "Tool Calls", diff content; ``oldText`` absent means a new file). Every
face shows it as a unified diff, and the agent chooses both texts, so:

- lines are split on ``\n`` only (:func:`split_lines`; a ``\r\n`` ending is
  one line end): ``str.splitlines`` also breaks at ``\x0b``, ``\x0c``,
  ``\x1c``-``\x1e``, ``\x85``, U+2028 and U+2029, so a file holding one of
  those would be shown with lines it does not have;
- ``difflib`` takes time quadratic in the worst case (20,000 lines of a
  hundred distinct values take 17 s, on the one thread that also reads the
  agent and answers Ctrl-C): the lines both texts share at the start and at
  the end are set aside first (linear), and only a changed region of at
  most :data:`MAX_COMPARE_LINES` lines (old and new together) is compared;
  a larger one is shown as what it is, its old lines removed and its new
  lines added, in one hunk. Texts over :data:`MAX_INPUT_LINES` lines or
  :data:`MAX_INPUT_CHARS` characters are not shown at all: one summary line
  says so.

What comes out is the agent's text: the faces make it safe for their output.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "MAX_COMPARE_LINES",
    "MAX_INPUT_CHARS",
    "MAX_INPUT_LINES",
    "diff_lines",
    "hunk_lines",
    "split_lines",
]

#: Old and new lines together beyond which no diff is computed.
MAX_INPUT_LINES = 20_000
#: Old and new characters together beyond which no diff is computed.
MAX_INPUT_CHARS = 4_000_000
#: Lines of a changed region (old and new together) difflib may compare
#: (its worst case here: about 20 ms).
MAX_COMPARE_LINES = 2_000
#: Unchanged lines shown around a change.
CONTEXT = 3

_HUNK = re.compile(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def split_lines(text: str) -> list[str]:
    r"""``text``'s lines, split on ``\n`` only; a final newline ends the last line.

    A ``\r`` before the ``\n`` belongs to the line end (a CRLF file); any other
    character stays in its line.
    """
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def hunk_lines(old_text: str | None, new_text: str) -> list[str]:
    """The unified diff of two texts, without the file header lines.

    Args:
        old_text: the file before (``None``: a new file, every line added).
        new_text: the file after.

    Returns:
        The ``@@`` headers with their `` ``, ``-`` and ``+`` lines; ``[]``
        when nothing changed; or one line beginning ``(too large to
        compare`` when the texts are over the limits.

    """
    new = split_lines(new_text)
    if old_text is None:
        return [f"@@ -0,0 +1,{len(new)} @@", *(f"+{line}" for line in new)] if new else []
    old = split_lines(old_text)
    if len(old) + len(new) > MAX_INPUT_LINES or len(old_text) + len(new_text) > MAX_INPUT_CHARS:
        return [
            f"(too large to compare: {len(old):,} lines before, {len(new):,} after;"
            f" the limit is {MAX_INPUT_LINES:,} lines)"
        ]
    return diff_lines(old, new)


def diff_lines(old: Sequence[str], new: Sequence[str]) -> list[str]:
    r"""The hunks of a unified diff of two lists of lines, in bounded time.

    The lines both lists share at the start and at the end are set aside
    (linear); ``difflib`` compares the region between when it has at most
    :data:`MAX_COMPARE_LINES` lines, else the region is shown replaced whole.
    Lines are compared as they are: a caller keeping line ends in them gets
    a diff that tells ``a\n`` from ``a`` (a patch file needs that).

    Args:
        old: the lines before.
        new: the lines after.

    Returns:
        The ``@@`` headers with their `` ``, ``-`` and ``+`` lines (each the
        prefix and the line as given); ``[]`` when the lists are equal.

    """
    # The lines both share at the start and at the end (linear), then the region between.
    shortest = min(len(old), len(new))
    head = 0
    while head < shortest and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if head == len(old) == len(new):
        return []
    start = max(0, head - CONTEXT)
    a = old[start : len(old) - max(0, tail - CONTEXT)]
    b = new[start : len(new) - max(0, tail - CONTEXT)]
    if len(a) + len(b) <= MAX_COMPARE_LINES:
        import difflib  # noqa: PLC0415 - only a turn with a diff needs it

        lines = list(difflib.unified_diff(a, b, lineterm="", n=CONTEXT))[2:]
        return [_shifted(line, start) if line.startswith("@@") else line for line in lines]
    # Too much changed to compare in bounded time: the region, replaced whole.
    before = old[start:head]
    after = old[len(old) - tail : len(old) - tail + CONTEXT]
    gone = old[head : len(old) - tail]
    added = new[head : len(new) - tail]
    shown_old = len(before) + len(gone) + len(after)
    shown_new = len(before) + len(added) + len(after)
    return [
        f"@@ -{_range(start, shown_old)} +{_range(start, shown_new)} @@",
        *(f" {line}" for line in before),
        *(f"-{line}" for line in gone),
        *(f"+{line}" for line in added),
        *(f" {line}" for line in after),
    ]


def _range(start: int, length: int) -> str:
    """A unified diff range, as difflib writes it (``start`` counts from 0)."""
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


def _shifted(header: str, offset: int) -> str:
    """A hunk header of a diff of a slice, renumbered for the whole text."""
    match = _HUNK.match(header)
    if match is None or not offset:
        return header
    old_at, old_len, new_at, new_len = match.groups()
    return (
        f"@@ -{int(old_at) + offset}{old_len or ''} +{int(new_at) + offset}{new_len or ''} @@"
        + header[match.end() :]
    )
