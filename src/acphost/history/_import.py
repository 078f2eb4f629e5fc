"""Importing ``json`` and ``jsonl`` exports into the store, a turn at a time.

An import reads its file twice through :mod:`._stream`: first every record
is checked (nothing is written: a bad file adds nothing), then each session
is added in one transaction, its turns inserted as they are read. Memory is
bounded by the largest turn (:data:`~._stream.ITEM_BYTES`,
:data:`~._stream.ITEM_VALUES`), never by the file.

An imported session is the file's word, not the user's: it is marked
``imported`` (``--continue`` never takes one), its times must carry an offset
and lie between 1970 and a day from now (:func:`~._model.import_time`), its
costs and counts are kept only within the store's bounds, and its secrets
are redacted again.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import io
import tempfile
from collections.abc import Callable
from typing import IO, Any

from ..config import MAX_IMPORT_BYTES, InputFileError, open_input
from ..redact import Redactor
from ._errors import HistoryError
from ._model import SessionRecord, TurnRecord, import_latest
from ._portable import session_from_json, turn_from_json
from ._scrub import scrub_session
from ._store import HistoryStore
from ._stream import Reader, check_version, walk

__all__ = ["import_file", "import_sessions", "open_export", "parse_sessions"]

Added = Callable[[str, bool], None]


class _Check:
    """The first reading: every session and turn checked, nothing kept."""

    def __init__(self, latest: str) -> None:
        self.latest = latest
        self.seq = 0

    def session(self, header: dict[str, Any], where: str) -> None:
        check_version(header, where)
        session_from_json(header, where, latest=self.latest)
        self.seq = 0

    def turn(self, raw: bytes, data: Any, where: str) -> TurnRecord:
        turn = turn_from_json(data, where, latest=self.latest)
        # Turns are numbered in order (the store keeps one per number).
        if turn.seq <= self.seq:
            raise HistoryError(
                f"{where}.seq: {turn.seq} does not follow the turn before it ({self.seq})"
            )
        self.seq = turn.seq
        return turn

    def end(self) -> None:
        return None


class _Collect(_Check):
    """Reading a whole export into records (:func:`parse_sessions`)."""

    def __init__(self, latest: str) -> None:
        super().__init__(latest)
        self.records: list[SessionRecord] = []

    def session(self, header: dict[str, Any], where: str) -> None:
        super().session(header, where)
        self.records.append(session_from_json(header, where, latest=self.latest))

    def turn(self, raw: bytes, data: Any, where: str) -> TurnRecord:
        turn = super().turn(raw, data, where)
        last = self.records[-1]
        self.records[-1] = dataclasses.replace(last, turns=(*last.turns, turn))
        return turn


class _Insert:
    """The second reading: each session added, its turns redacted and inserted one by one."""

    def __init__(self, store: HistoryStore, redactor: Redactor, latest: str, added: Added) -> None:
        self.store = store
        self.redactor = redactor
        self.latest = latest
        self.added = added
        self._open: contextlib.ExitStack | None = None
        self._add: Callable[[TurnRecord], None] | None = None
        self._id = ""
        self.seq = 0

    def session(self, header: dict[str, Any], where: str) -> None:
        record = session_from_json(header, where, latest=self.latest)
        clean = scrub_session(self.redactor, dataclasses.replace(record, origin="imported"))
        self._open = contextlib.ExitStack()
        self._add = self._open.enter_context(self.store.adding_session(clean))
        self._id = record.id
        self.seq = 0

    def turn(self, raw: bytes, data: Any, where: str) -> None:
        if self._add is None:
            return  # the session is already in the store: left as it is
        # The raw bytes let the redactor skip the walk when nothing can match.
        data, _ = self.redactor.redact_parsed(raw, data)
        turn = turn_from_json(data, where, latest=self.latest)
        if turn.seq <= self.seq:  # the file changed since it was checked
            raise HistoryError(
                f"{where}.seq: {turn.seq} does not follow the turn before it ({self.seq})"
            )
        self.seq = turn.seq
        self._add(turn)

    def end(self) -> None:
        opened, self._open = self._open, None
        if opened is not None:
            opened.close()  # commits the session
            self.added(self._id, self._add is not None)

    def abort(self) -> None:
        """Roll the session being added back (the reading failed under it)."""
        opened, self._open = self._open, None
        if opened is not None:
            opened.__exit__(HistoryError, HistoryError("import stopped"), None)


def import_file(
    store: HistoryStore,
    file: IO[bytes],
    *,
    redactor: Redactor | None = None,
    source: str = "input",
    added: Added | None = None,
) -> None:
    """Add the sessions of a ``json`` or ``jsonl`` export to the store, secrets redacted again.

    A session already in the store (same id) is left as it is. The file is
    read twice (it must be seekable; spool a pipe to a temporary file first).

    Args:
        store: the store.
        file: the export, opened in binary mode at its start.
        redactor: the host's redactor (default: a plain :class:`~acphost.trace.Redactor`).
        source: the file's name, for messages.
        added: called with ``(id, added)`` as each session is done (``added``
            is False for one already there).

    Raises:
        HistoryError: the file is not an export or too large a part of it
            (nothing is added), or the store cannot be written (the sessions
            before are added).

    """
    latest = import_latest()
    start = file.tell()
    walk(Reader(file, source), _Check(latest))
    file.seek(start)
    sink = _Insert(store, redactor or Redactor(), latest, added or (lambda _id, _added: None))
    try:
        walk(Reader(file, source), sink)
    except BaseException:
        sink.abort()
        raise


def import_sessions(
    store: HistoryStore, text: str, *, redactor: Redactor | None = None, source: str = "input"
) -> list[tuple[str, bool]]:
    """:func:`import_file` for an export in memory.

    Returns:
        ``(id, added)`` per session: ``added`` is False for one already there.

    Raises:
        HistoryError: as :func:`import_file`.

    """
    done: list[tuple[str, bool]] = []
    file = io.BytesIO(text.encode("utf-8", "surrogatepass"))
    import_file(
        store, file, redactor=redactor, source=source, added=lambda i, a: done.append((i, a))
    )
    return done


def parse_sessions(text: str, source: str = "input") -> list[SessionRecord]:
    """The sessions of a ``json`` or ``jsonl`` export, checked as an import checks them.

    Args:
        text: the file's text.
        source: its name, for messages.

    Returns:
        The sessions, in file order.

    Raises:
        HistoryError: not an export, or a field is wrong (the message says where).

    """
    sink = _Collect(import_latest())
    walk(Reader(io.BytesIO(text.encode("utf-8", "surrogatepass")), source), sink)
    return sink.records


def open_export(name: str, stdin: IO[bytes]) -> IO[bytes]:
    """Open an export for :func:`import_file`: a regular file, or ``-`` (stdin) spooled.

    An import reads its file more than once, so a pipe is first copied to a
    private temporary file (at most :data:`~acphost.config.MAX_IMPORT_BYTES`).
    The whole file is checked to be UTF-8 here, a chunk at a time.

    Args:
        name: the path, or ``-`` for ``stdin``.
        stdin: the standard input's binary stream.

    Returns:
        The file, open at its start; the caller closes it.

    Raises:
        InputFileError: missing, not a regular file, too large, or not UTF-8
            (one line naming it, and the first invalid byte).

    """
    if name == "-":
        file, what = _spool(stdin, MAX_IMPORT_BYTES), "stdin"
    else:
        what = f"history import file {name}"
        file = open_input(name, what="history import file", limit=MAX_IMPORT_BYTES)
    try:
        _check_utf8(file, what)
    except BaseException:
        file.close()
        raise
    return file


def _spool(stream: IO[bytes], limit: int) -> IO[bytes]:
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - returned open; the caller closes it
    total = 0
    while chunk := stream.read(1 << 20):
        total += len(chunk)
        if total > limit:
            spool.close()
            raise InputFileError(f"stdin is larger than the {limit >> 20} MiB limit")
        spool.write(chunk)
    spool.seek(0)
    return spool


def _check_utf8(file: IO[bytes], what: str) -> None:
    """Refuse a file that is not UTF-8, naming the first invalid byte; read in chunks."""
    offset, pending = 0, b""
    while True:
        chunk = file.read(1 << 20)
        data = pending + chunk
        try:
            _, used = codecs.utf_8_decode(data, "strict", not chunk)
        except UnicodeDecodeError as exc:
            raise InputFileError(
                f"{what} is not UTF-8 (byte {offset + exc.start} is invalid)"
            ) from None
        offset += used
        pending = data[used:]
        if not chunk:
            file.seek(0)
            return
