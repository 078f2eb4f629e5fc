"""What a peer writes before its first JSON-RPC message, and when to give up on it.

ACP "Transports": "The agent MUST NOT write anything to its stdout that is
not a valid ACP message." A banner line or two is forgiven (each is still a
violation); a program that keeps writing other things (``yes``, a shell
script, an agent started without its ACP flag) is not an ACP agent, and the
connection fails at once instead of waiting for an answer that never comes.
"""

from __future__ import annotations

from ..errors import NotAnAcpAgent

__all__ = ["NOT_ACP_BYTES", "NOT_ACP_LINES", "Prelude"]

#: A peer that writes this many bad lines, or this many bytes of them, before
#: its first JSON-RPC message is not an ACP agent.
NOT_ACP_LINES = 10
NOT_ACP_BYTES = 64 * 1024
#: Characters of the first offending line quoted in reports.
_QUOTE = 120


class Prelude:
    """Counts the junk a peer writes before its first message."""

    __slots__ = ("cut", "first", "lines", "size")

    def __init__(self) -> None:
        self.lines = 0
        self.size = 0
        self.first = b""
        self.cut = False  # ``first`` is the start of a longer line

    def junk(self, excerpt: bytes, size: int) -> NotAnAcpAgent | None:
        """Count one bad line; return the failure once there is too much.

        Args:
            excerpt: the start of the line, exact bytes.
            size: the line's length in bytes.

        Returns:
            The error to fail the connection with, or None to go on.

        """
        self.lines += 1
        self.size += size
        if not self.first:
            self.first, self.cut = excerpt, size > len(excerpt)
        if self.lines >= NOT_ACP_LINES or self.size >= NOT_ACP_BYTES:
            return self.failure()
        return None

    def unfinished(self, partial: bytearray) -> NotAnAcpAgent | None:
        """Check an unfinished first line: a long one that cannot be JSON-RPC is junk.

        Args:
            partial: the bytes of the line received so far.

        Returns:
            The error to fail the connection with, or None to go on.

        """
        if self.size + len(partial) <= NOT_ACP_BYTES:
            return None
        head = bytes(partial[:200]).lstrip()
        if head.startswith(b"{"):
            return None  # may yet be a big frame
        if not self.first:
            self.first, self.cut = head, True
        self.size += len(partial)
        return self.failure()

    def failure(self) -> NotAnAcpAgent:
        """The error that ends the connection, quoting the first bad line."""
        shown = self.quote()
        lines = self.lines or 1
        return NotAnAcpAgent(
            "this does not look like an ACP agent: before any JSON-RPC message it wrote "
            f"{lines} line{'s' if lines != 1 else ''} ({self.size} bytes) that "
            f'{"are" if lines != 1 else "is"} not JSON-RPC, the first: "{shown}". An ACP '
            "agent writes only JSON-RPC messages, one per line, to its stdout: check the "
            "agent command (many agents need a flag or a separate adapter to speak ACP).",
            first_line=shown,
        )

    def hint(self) -> str:
        """After end of stream: a sentence when the peer only ever wrote junk, else ``""``."""
        if not self.first:
            return ""
        return (
            "this does not look like an ACP agent: it wrote no JSON-RPC message, "
            f'only output like "{self.quote()}"'
        )

    def quote(self) -> str:
        """The first bad line, sanitised for a terminal and truncated.

        The quote is cut before anything redacts it (it is part of the
        error's message), so a cut is marked :data:`~acphost.safetext.CUT`:
        the redactor then masks the beginning of a configured value the
        line was cut in.
        """
        from ..safetext import CUT, sanitize_line  # noqa: PLC0415 - only for these reports

        shown = sanitize_line(self.first.decode("utf-8", "backslashreplace"))
        if len(shown) > _QUOTE or self.cut:
            return shown[:_QUOTE] + CUT
        return shown
