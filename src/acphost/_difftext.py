r"""Unified diffs of text an agent sent, bounded in time.

A ``diff`` tool-call content item carries the old and the new text of a file
(ACP "Tool Calls", diff content; ``oldText`` absent means a new file). Every
face shows it as a unified diff, and the agent chooses both texts, so:

- lines are split on ``\n`` only (:func:`split_lines`; a ``\r\n`` ending is
  one line end): ``str.splitlines`` also breaks at ``\x0b``, ``\x0c``,
  ``\x1c``-``\x1e``, ``\x85``, U+2028 and U+2029, so a file holding one of
  those would be shown with lines it does not have;
- ``difflib`` takes time quadratic in the worst case (20,000 lines of a few
  hundred distinct values take seconds, on the one thread that also reads
  the agent): texts over :data:`MAX_INPUT_LINES` lines (old and new
  together) or :data:`MAX_INPUT_CHARS` characters are not compared, and one
  summary line says so.

What comes out is the agent's text: the faces make it safe for their output.
"""

from __future__ import annotations

__all__ = ["MAX_INPUT_CHARS", "MAX_INPUT_LINES", "hunk_lines", "split_lines"]

#: Old and new lines together beyond which no diff is computed.
MAX_INPUT_LINES = 20_000
#: Old and new characters together beyond which no diff is computed.
MAX_INPUT_CHARS = 4_000_000


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
    import difflib  # noqa: PLC0415 - only a turn with a diff needs it

    return list(difflib.unified_diff(old, new, lineterm="", n=3))[2:]
