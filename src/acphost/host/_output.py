"""A terminal's output buffer: the tail of the output, within a byte limit.

Schema, ``CreateTerminalRequest.outputByteLimit``: "When the limit is
exceeded, the Client truncates from the beginning of the output to stay within
the limit. The Client MUST ensure truncation happens at a character boundary
to maintain valid string output, even if this means the retained output is
slightly less than the specified limit."
"""

from __future__ import annotations

__all__ = ["DEFAULT_OUTPUT_BYTE_LIMIT", "OutputBuffer"]

#: The most output bytes kept of one terminal when nobody asks for less: the
#: host's own terminals, and the terminals an agent runs itself and reports.
DEFAULT_OUTPUT_BYTE_LIMIT = 1_000_000


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _sequence_length(lead: int) -> int:
    if lead >= 0xF0:
        return 4
    if lead >= 0xE0:
        return 3
    if lead >= 0xC0:
        return 2
    return 1


class OutputBuffer:
    """Keeps at most ``limit`` bytes: the tail, cut at a UTF-8 character boundary.

    Memory stays within ``limit`` plus one appended chunk, however much is
    written.

    Args:
        limit: the most bytes retained; 0 keeps nothing.

    """

    __slots__ = ("_data", "_limit", "truncated")

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError("limit must be >= 0")
        self._limit = limit
        self._data = bytearray()
        self.truncated = False

    def append(self, chunk: bytes) -> None:
        """Add output, dropping the oldest bytes beyond the limit.

        Args:
            chunk: raw bytes from the process.

        """
        if not chunk:
            return
        self._data += chunk
        excess = len(self._data) - self._limit
        if excess <= 0:
            return
        self.truncated = True
        # Move the cut forward past continuation bytes so that the kept tail
        # starts on a character (the kept part may be up to 3 bytes shorter).
        cut = excess
        while cut < len(self._data) and cut - excess < 3 and _is_continuation(self._data[cut]):
            cut += 1
        del self._data[:cut]

    def __len__(self) -> int:
        return len(self._data)

    def tail(self, size: int) -> bytes:
        """The last ``size`` retained bytes (all of them when fewer are kept)."""
        return bytes(self._data[-size:]) if size > 0 else b""

    def text(self, *, final: bool) -> str:
        """Decode the retained output.

        Args:
            final: the process has ended; otherwise an incomplete character at
                the very end (still being written) is left out for now.

        Returns:
            The text; invalid bytes (the program printed non-UTF-8) become
            U+FFFD, a valid multi-byte character is never split.

        """
        data = self._data
        end = len(data)
        if not final:
            # Look back at most 3 bytes for the lead of an unfinished character.
            for back in range(1, min(4, end + 1)):
                byte = data[end - back]
                if not _is_continuation(byte):
                    if byte >= 0xC0 and _sequence_length(byte) > back:
                        end -= back
                    break
        return data[:end].decode("utf-8", errors="replace")
