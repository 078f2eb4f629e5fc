"""Reading a ``json`` or ``jsonl`` export a record at a time: memory bounded by the largest turn.

An export may be far larger than the memory it would take as Python objects
(a JSON ``{}`` is three bytes, the dict it decodes to a hundred), so it is
never decoded whole. A :class:`Reader` walks the file through a buffer and
hands out one *item* at a time, its raw bytes: a JSONL line, or in a ``json``
export one session field or one element of a session's ``turns``. Each item
is bounded (:data:`ITEM_BYTES`, :data:`ITEM_VALUES`) before it is decoded, so
the most an import holds is one item and what it decodes to, whatever the
size of the file.

:func:`walk` drives a *sink* (``session(header, where)``, ``turn(raw, data,
where)``, ``end()``): it is given each session's header before its turns,
whatever the order of the keys in the file (a ``turns`` array met before
the header's last field is skipped, then read again from its offset).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import IO, Any, Protocol

from ..config import InputFileError, loads_strict
from ._errors import HistoryError

__all__ = ["HEADER_KEYS", "ITEM_BYTES", "ITEM_VALUES", "Reader", "Sink", "walk"]

#: The largest item (one turn, one session field, one JSONL line) read, in bytes:
#: room for a turn at the recorder's text limit (8 Mi characters, kept twice).
ITEM_BYTES = 64 << 20

#: The most JSON values (objects, arrays and the items in them) one item may hold:
#: far above a recorded turn's; what bounds the memory a tiny value costs decoded.
ITEM_VALUES = 500_000

#: The fields of a session that are kept; any other key is skipped unread.
HEADER_KEYS = frozenset(
    {
        "id", "agent", "command", "cwd", "started_at", "agent_session_id", "title",
        "ended_at", "origin", "usage", "format", "version", "type", "system_prompt", "sandbox",
        "protocol",
    }
)  # fmt: skip

_CHUNK = 1 << 20
_KEEP = 8 << 20
#: The most values a JSONL session line is looked at for (see ``_first_line_is_typed``).
_HEAD_VALUES = 10_000
_HEAD_BYTES = 4 << 20
_FIX = "expected a json or jsonl export written by acphost history export"
_WS = re.compile(rb"[ \t\r\n]*")
# One structural token: a bracket, a comma, or a string (its closing quote in
# group 1; without it the string runs past the end of the buffer).
_TOKEN = re.compile(rb'[\[\]{},]|"[^"\\]*(?:\\.[^"\\]*)*(")?', re.DOTALL)
_SCALAR = re.compile(rb"[^ \t\r\n,\]}:]*")


class Sink(Protocol):
    """What :func:`walk` hands the records of a file to."""

    def session(self, header: dict[str, Any], where: str) -> None:
        """A session's fields (its turns follow)."""

    def turn(self, raw: bytes, data: Any, where: str) -> object:
        """One turn of the last session: its bytes and their decoded value."""

    def end(self) -> None:
        """The last session has no more turns."""


def _mib(n: int) -> str:
    return f"{n >> 20} MiB"


class Reader:
    """A seekable binary file read through a buffer, an item at a time.

    Args:
        file: the file (a regular file, or stdin spooled to one).
        source: its name, for messages.

    """

    def __init__(self, file: IO[bytes], source: str) -> None:
        self.file = file
        self.source = source
        self.buf = bytearray()
        self.base = file.tell()  # the file offset of buf[0]
        self.pos = 0
        self.eof = False
        self.mark: int | None = None  # a file offset the buffer keeps (see keep)

    def more(self) -> bool:
        """Append the next chunk of the file to the buffer; False at its end."""
        if self.eof:
            return False
        try:
            chunk = self.file.read(_CHUNK)
        except OSError as exc:
            raise HistoryError(f"{self.source}: cannot read: {exc.strerror}") from None
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def tell(self) -> int:
        """The file offset of the next unread byte."""
        return self.base + self.pos

    def seek(self, offset: int) -> None:
        """Go on reading at a file offset (one :meth:`tell` returned), in the buffer if there."""
        self.mark = None
        if self.base <= offset <= self.base + len(self.buf):
            self.pos = offset - self.base
            return
        self.file.seek(offset)
        self.buf = bytearray()
        self.base, self.pos, self.eof = offset, 0, False

    def keep(self) -> None:
        """Keep what is read from here in the buffer, for a :meth:`seek` back (up to 8 MiB)."""
        self.mark = self.tell()

    def _compact(self) -> None:
        # Only between items: nothing holds a position in the buffer then.
        # A mark keeps a small region for a seek back; a large one is read again.
        cut = self.pos
        if self.mark is not None:
            if self.tell() - self.mark > _KEEP:
                self.mark = None
            else:
                cut = min(cut, self.mark - self.base)
        if cut > _CHUNK:
            del self.buf[:cut]
            self.base += cut
            self.pos -= cut

    def peek(self) -> int | None:
        """The next byte that is not white space (not consumed), or None at the end."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            self._compact()
            if not self.more():
                return None

    def expect(self, char: bytes, where: str) -> None:
        """Consume ``char`` (after white space), or say what was found instead."""
        got = self.peek()
        if got != char[0]:
            found = "the end of the file" if got is None else repr(chr(got))
            raise HistoryError(f"{where}: expected {char.decode()!r}, found {found}; {_FIX}")
        self.pos += 1

    def value(self, where: str) -> bytes:
        """The bytes of the next JSON value, consumed; bounded before anything is decoded.

        Raises:
            HistoryError: the file ends inside it, or it is larger than
                :data:`ITEM_BYTES` or holds more than :data:`ITEM_VALUES` values.

        """
        first = self.peek()
        if first is None:
            raise HistoryError(f"{where}: the file ends early; {_FIX}")
        self._compact()
        start = self.pos
        container = first in b"[{"
        end = self._container(start, where) if container else self._scalar(start, first, where)
        self.pos = end
        return bytes(self.buf[start:end])

    def _grow(self, start: int, where: str) -> None:
        if len(self.buf) - start > ITEM_BYTES:
            raise HistoryError(
                f"{where}: larger than {_mib(ITEM_BYTES)}, the most acphost imports at once"
            )
        if not self.more():
            raise HistoryError(f"{where}: the file ends early; {_FIX}")

    def _scalar(self, start: int, first: int, where: str) -> int:
        pattern = _TOKEN if first == ord('"') else _SCALAR
        while True:
            match = pattern.match(self.buf, start)
            assert match is not None  # both match the empty string or a quote
            end = match.end()
            done = match.group(1) is not None if first == ord('"') else end < len(self.buf)
            if done or (self.eof and first != ord('"')):
                return end
            self._grow(start, where)

    def _container(self, start: int, where: str) -> int:
        depth = count = 0
        at = start
        buf = self.buf
        while True:
            match = _TOKEN.search(buf, at)
            if match is None or (buf[match.start()] == 34 and match.group(1) is None):
                at = len(buf) if match is None else match.start()
                self._grow(start, where)
                buf = self.buf
                continue
            token = buf[match.start()]
            if token in b"]}":
                depth -= 1
                if depth == 0:
                    return match.end()
            else:
                depth += token in b"[{"
                count += 1
                if count > ITEM_VALUES:
                    raise HistoryError(
                        f"{where}: holds more than {ITEM_VALUES:,} JSON values, the most "
                        "acphost imports at once"
                    )
            at = match.end()

    def line(self, where: str, values: int = ITEM_VALUES, size: int = ITEM_BYTES) -> bytes | None:
        """The next line (without its newline), bounded; None at the end of the file.

        Raises:
            HistoryError: the line is longer than ``size`` bytes or holds more
                than ``values`` JSON values (counted before it is copied).

        """
        self._compact()
        start = self.pos
        at = start
        while True:
            newline = self.buf.find(b"\n", at)
            end = newline if newline >= 0 else len(self.buf)
            if end - start > size:
                raise HistoryError(
                    f"{where}: a line larger than {_mib(size)}, the most acphost imports at once"
                )
            if newline >= 0 or not self.more():
                if end == start and newline < 0:
                    return None
                count_values(self.buf, where, values, start, end)
                self.pos = end + 1 if newline >= 0 else end
                return bytes(self.buf[start:end])
            at = end

    def members(self, where: str) -> Iterator[str]:
        """The keys of the object that starts here; the caller reads each value."""
        self.expect(b"{", where)
        if self.peek() == ord("}"):
            self.pos += 1
            return
        while True:
            key = decode(self.value(where), where)
            if not isinstance(key, str):
                raise HistoryError(f"{where}: expected a key; {_FIX}")
            self.expect(b":", where)
            yield key
            if self._next(b"}", where):
                return

    def elements(self, where: str) -> Iterator[int]:
        """The indexes of the array that starts here; the caller reads each element."""
        self.expect(b"[", where)
        if self.peek() == ord("]"):
            self.pos += 1
            return
        index = 0
        while True:
            yield index
            index += 1
            if self._next(b"]", where):
                return

    def _next(self, close: bytes, where: str) -> bool:
        got = self.peek()
        if got == ord(","):
            self.pos += 1
            return False
        if got == close[0]:
            self.pos += 1
            return True
        raise HistoryError(f"{where}: expected ',' or {close.decode()!r}; {_FIX}")


def _duplicate(where: str, key: str) -> HistoryError:
    # As loads_strict words it (RFC 8259 section 4: names "SHOULD be unique").
    return HistoryError(
        f"{where}: duplicate key {json.dumps(key)[:80]} (a key may appear once per object); {_FIX}"
    )


def decode(raw: bytes, where: str, line: int = 1) -> Any:
    """One item's value: strict JSON (see :func:`acphost.config.loads_strict`)."""
    try:
        return loads_strict(raw, where=where, fix=_FIX, first_line=line)
    except InputFileError as exc:
        raise HistoryError(str(exc)) from None


def count_values(
    raw: bytes | bytearray, where: str, limit: int = ITEM_VALUES, start: int = 0, end: int = -1
) -> None:
    """Refuse a line that holds more than ``limit`` JSON values, before it is decoded."""
    count = 0
    for match in _TOKEN.finditer(raw, start, len(raw) if end < 0 else end):
        if raw[match.start()] not in b"]}":
            count += 1
            if count > limit:
                raise HistoryError(
                    f"{where}: holds more than {limit:,} JSON values, the most "
                    "acphost imports at once"
                )


def walk(reader: Reader, sink: Sink) -> None:
    """Hand every session and turn of an export to ``sink``, in file order.

    Raises:
        HistoryError: not an export, or a part of it too large (the message
            says where); the sink's own errors pass through.

    """
    source = reader.source
    first = reader.peek()
    if first is None:
        raise HistoryError(f"{source}: empty file")
    if first == ord("{") and not _first_line_is_typed(reader):
        _document(reader, sink)
    else:
        _jsonl(reader, sink)


def _first_line_is_typed(reader: Reader) -> bool:
    """Whether the first line is a whole object with a ``type``: a JSONL export.

    Deciding on the first line keeps a strict error in either kind (a repeated
    key, NaN) reported as itself, not as "not JSONL".
    """
    start = reader.tell()
    where = f"{reader.source}:1"
    try:
        # A session line is small; a first line that is not (a whole export
        # on one line) is read as the document it is, never decoded whole.
        head = decode(reader.line(where, _HEAD_VALUES, _HEAD_BYTES) or b"", where)
    except HistoryError:
        head = None
    reader.seek(start)
    return isinstance(head, dict) and "type" in head


def _jsonl(reader: Reader, sink: Sink) -> None:
    source = reader.source
    number = 0
    open_session = False
    while (raw := reader.line(f"{source}:{number + 1}")) is not None:
        number += 1
        if not raw.strip():
            continue
        where = f"{source}:{number}"
        data = decode(raw, source, number)
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "session":
            if open_session:
                sink.end()
            sink.session(data, where)
            open_session = True
        elif kind == "turn":
            if not open_session:
                raise HistoryError(f"{where}: a turn before any session line")
            sink.turn(raw, data, where)
        else:
            raise HistoryError(f"{where}: expected a line of type 'session' or 'turn'")
    if not open_session:
        raise HistoryError(f"{source}: no session in the file")
    sink.end()


def _document(reader: Reader, sink: Sink) -> None:
    """One JSON document: ``session`` or ``sessions`` (beside ``format``, ``version``), or bare."""
    source = reader.source
    start = reader.tell()
    wrapper: dict[str, Any] = {}
    mode = None
    for key in reader.members(source):
        if key in ("format", "version"):
            if key in wrapper:
                raise _duplicate(source, key)
            wrapper[key] = decode(reader.value(f"{source}: {key}"), f"{source}: {key}")
        elif key in ("session", "sessions") and mode is None:
            check_version(wrapper, source)  # as written: before the sessions (checked again after)
            mode = key
            if key == "session":
                _session(reader, f"{source}: session", sink)
            else:
                if reader.peek() != ord("["):
                    raise HistoryError(f"{source}: sessions: expected a list")
                for i in reader.elements(f"{source}: sessions"):
                    _session(reader, f"{source}: sessions[{i}]", sink)
        elif key in ("session", "sessions"):
            raise HistoryError(f"{source}: both 'session' and 'sessions', or one twice")
        elif mode is None:
            # A bare session object: read it again from its start, as one.
            reader.seek(start)
            _session(reader, f"{source}: session", sink)
            mode = "bare"
            break
        else:
            reader.value(f"{source}: {key}")  # another tool's field: skipped
    if reader.peek() is not None:
        raise HistoryError(f"{source}: more data after the export's one JSON document; {_FIX}")
    if mode is None:
        raise HistoryError(f"{source}: no session in the file")
    check_version(wrapper, source)


def _session(reader: Reader, where: str, sink: Sink) -> None:
    """One session object: its header to the sink, then its turns, then its end."""
    if reader.peek() != ord("{"):
        data = decode(reader.value(where), where)
        raise HistoryError(f"{where}: expected an object, got {type(data).__name__}")
    header: dict[str, Any] = {}
    turns_at: int | None = None
    for key in reader.members(where):
        field = f"{where}.{key}"
        if key == "turns":
            if turns_at is not None:
                raise _duplicate(where, key)
            turns_at = reader.tell()
            reader.keep()
            _turns(reader, field, None)  # looked through now, read after the header
        elif key in HEADER_KEYS:
            if key in header:
                raise _duplicate(where, key)
            header[key] = decode(reader.value(field), field)
        else:
            reader.value(field)  # not a field acphost keeps: skipped
    end = reader.tell()
    sink.session(header, where)
    if turns_at is not None:
        reader.seek(turns_at)
        _turns(reader, f"{where}.turns", sink)
        reader.seek(end)
    sink.end()


def _turns(reader: Reader, where: str, sink: Sink | None) -> None:
    if reader.peek() != ord("["):
        value = decode(reader.value(where), where)
        if value is not None:
            raise HistoryError(f"{where}: expected list, got {type(value).__name__}")
        return
    for i in reader.elements(where):
        raw = reader.value(f"{where}[{i}]")
        if sink is not None:
            sink.turn(raw, decode(raw, f"{where}[{i}]"), f"{where}[{i}]")


def check_version(data: dict[str, Any], where: str) -> None:
    """Refuse another tool's export, or one from a newer acphost."""
    from ._model import FORMAT, FORMAT_VERSION  # noqa: PLC0415 - beside its one use

    if data.get("format") not in (None, FORMAT):
        raise HistoryError(f"{where}: not an acphost history export (format {data['format']!r})")
    version = data.get("version", FORMAT_VERSION)
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise HistoryError(
            f"{where}: export version {version!r} is newer than this acphost reads "
            f"({FORMAT_VERSION}): upgrade acphost"
        )
