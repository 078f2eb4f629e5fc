"""An overlong stderr line is cut once, marked, and the rest of it dropped (real pipes).

The rest used to come out as lines of their own, 4 KiB each: pieces of the
middle of whatever the line held, which no redactor can recognise. And a
cut through a multi-byte character showed U+FFFD where the redactor needs
the exact beginning of a value.
"""

from __future__ import annotations

import sys
import textwrap

from acphost.redact import REDACTED, Redactor
from acphost.safetext import CUT
from acphost.transport import StdioTransport
from acphost.transport._pipes import _STDERR_LINE_MAX


async def stderr_of(code: str) -> list[str]:
    t = await StdioTransport.spawn([sys.executable, "-c", textwrap.dedent(code)])
    await t.exit_info(10)
    await t.close()
    return list(t._io.stderr_lines)


async def test_a_long_line_written_in_pieces_is_one_cut_line():
    lines = await stderr_of(
        """
        import sys, time
        err = sys.stderr.buffer
        err.write(b"before\\n"); err.flush()
        for i in range(10):  # 30 KB in flushed pieces: many reads of one line
            err.write(bytes([65 + i]) * 3000); err.flush()
        err.write(b" end\\nafter\\n"); err.flush()
        """
    )
    assert lines == ["before", "A" * 3000 + "B" * (_STDERR_LINE_MAX - 3000) + CUT, "after"]


async def test_a_line_of_exactly_the_limit_is_whole_and_the_cut_keeps_whole_characters():
    lines = await stderr_of(
        f"""
        import sys
        err = sys.stderr.buffer
        err.write(b"x" * {_STDERR_LINE_MAX} + b"\\n")
        err.write(b"y" * {_STDERR_LINE_MAX - 1} + "é".encode() + b"zz\\n")
        err.write(b"unfinished")
        """
    )
    assert lines == ["x" * _STDERR_LINE_MAX, "y" * (_STDERR_LINE_MAX - 1) + CUT, "unfinished"]


async def test_a_tail_that_starts_inside_a_value_of_several_lines_shows_none_of_it():
    """A key file of 30 lines on stderr: the last 20 lines are the end of the value,
    not the whole of it; the tail is marked as starting after lines left out."""
    key = "\n".join(f"line{i:02d}-" + "Qx7" * 20 for i in range(30))
    code = f"import sys\nsys.stderr.write('key:\\n' + {key!r} + '\\n')"
    t = await StdioTransport.spawn([sys.executable, "-c", code])
    info = await t.exit_info(10)
    await t.close()
    assert info.stderr_tail.startswith(CUT + "\nline10-")
    shown = Redactor([key]).redact_text(info.stderr_tail)
    assert shown == f"{CUT}{REDACTED}"
