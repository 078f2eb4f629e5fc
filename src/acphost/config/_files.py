"""Reading the files a user names or an agent could have written, and decoding their JSON.

Settings, the trust store, permission rules, batch prompt files, history
imports, traces: each names a path the user typed (``--settings``,
``--prompts``, ``--spec``, ``history import FILE``) or a file in a folder
the agent can write to. Two functions make every such read safe the same way:

* :func:`read_input` (and :func:`open_input` for readers that stream) opens
  the path without blocking and checks with ``fstat`` that it is a regular
  file: a FIFO would block the open or the read forever, ``/dev/zero`` or
  ``/dev/urandom`` would never end, and a directory has no bytes. The size is
  capped (:data:`MAX_INPUT_BYTES`, more for history imports) and the read
  never takes more than the cap plus one byte, so a file that grows under us
  is refused too.
* :func:`loads_strict` decodes JSON as RFC 8259 says it is, no more: no
  ``NaN``/``Infinity`` (and no number that overflows to infinity, ``1e999``),
  no duplicate keys (RFC 8259 §4: names "SHOULD be unique"; two readers may
  keep different ones, so a reviewed file could mean something else to us),
  and no nesting deeper than :data:`MAX_DEPTH`.

Both raise :class:`InputFileError`: one line naming the file (and the line
and column for JSON) and saying what to do. Callers re-raise it as their own
error class so each face keeps its exit code.
"""

from __future__ import annotations

import errno
import json
import json.scanner
import math
import os
import re
import stat
from contextlib import suppress
from typing import IO, Any

from .._errors import AcpError

__all__ = [
    "MAX_DEPTH",
    "MAX_IMPORT_BYTES",
    "MAX_INPUT_BYTES",
    "InputFileError",
    "loads_strict",
    "open_input",
    "read_input",
]

#: The largest input file read whole: far above any settings, rules or prompts file.
MAX_INPUT_BYTES = 64 << 20

#: History imports hold whole transcripts, so they may be larger.
MAX_IMPORT_BYTES = 1 << 30

#: The deepest nesting of arrays and objects accepted. Far beyond any real file
#: (an agent's tool input is kept as sent, so leave room), and well below the
#: recursion limit of the decoder, which would otherwise fail with a bare
#: ``RecursionError``.
MAX_DEPTH = 256

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class InputFileError(AcpError, ValueError):
    """An input file cannot be used: unreadable, not a regular file, too large, or bad JSON.

    The message is one line naming the file and saying what to do.

    Attributes:
        missing: the file does not exist (some callers treat that as "empty").

    """

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


def _open_checked(path: str | os.PathLike[str], what: str, limit: int) -> tuple[int, int]:
    """Open ``path`` for reading; return ``(fd, size)`` once it is known to be a regular file."""
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait for one.
        fd = os.open(name, _OPEN_FLAGS)
    except FileNotFoundError:
        raise InputFileError(f"{what} {name} does not exist", missing=True) from None
    except OSError as exc:
        reason = "permission denied" if exc.errno in (errno.EACCES, errno.EPERM) else exc.strerror
        raise InputFileError(f"cannot read {what} {name}: {reason}") from None
    try:
        st = os.fstat(fd)
        for test, kind in _KINDS:
            if test(st.st_mode):
                raise InputFileError(f"{what} {name} is {kind}, not a regular file; name a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"{what} {name} is not a regular file; name a file")
        if st.st_size > limit:
            raise InputFileError(
                f"{what} {name} is larger than the {_mib(limit)} limit ({st.st_size} bytes)"
            )
        # A regular file never blocks; clear the flag so reads behave as usual.
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def read_input(
    path: str | os.PathLike[str], *, what: str, limit: int = MAX_INPUT_BYTES
) -> bytes:
    """Read a whole input file, refusing what is not a regular file of bounded size.

    Args:
        path: the file (``~`` is not expanded here).
        what: how the message names it, e.g. ``"the --settings file"``.
        limit: the most bytes accepted.

    Returns:
        The file's bytes.

    Raises:
        InputFileError: missing (``missing`` is set), unreadable, a directory,
            FIFO, device or socket, or larger than ``limit``.

    """
    fd, size = _open_checked(path, what, limit)
    try:
        chunks: list[bytes] = []
        total = 0
        while True:
            # Read to EOF, never past limit + 1: a file that grows while read is caught.
            chunk = os.read(fd, min(max(size, 1 << 16), limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputFileError(
                    f"{what} {os.fspath(path)} is larger than the {_mib(limit)} limit"
                )
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {os.fspath(path)}: {exc.strerror}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_text_input(
    path: str | os.PathLike[str], *, what: str, limit: int = MAX_INPUT_BYTES
) -> str:
    """:func:`read_input` for a text file: its contents decoded as UTF-8.

    Raises:
        InputFileError: as :func:`read_input`, or the bytes are not UTF-8
            (the message names the first invalid byte).

    """
    data = read_input(path, what=what, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"{what} {os.fspath(path)} is not UTF-8 (byte {exc.start} is invalid)"
        ) from None


def open_input(
    path: str | os.PathLike[str], *, what: str, limit: int | None = None
) -> IO[bytes]:
    """Open an input file for a streaming reader (a trace), with the checks of :func:`read_input`.

    Args:
        path: the file.
        what: how messages name it.
        limit: the most bytes accepted, or None for no cap (the reader
            bounds its own memory, e.g. a line at a time).

    Returns:
        The file, opened in binary mode; the caller closes it (``with``).

    Raises:
        InputFileError: as :func:`read_input`.

    """
    fd, _ = _open_checked(path, what, limit if limit is not None else 1 << 62)
    return os.fdopen(fd, "rb")


# -- strict JSON ------------------------------------------------------------


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (write a number or null)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _decoder() -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=_pairs, parse_constant=_no_constant, parse_float=_finite
    )


_DECODER = _decoder()


def _locate(text: str) -> int:
    """Where the innermost array or object holding a value error starts (0: the top level).

    ``parse_constant``, ``parse_float`` and the pairs hook are not told where
    they are, so on the error path only the document is decoded again by the
    pure-Python scanner with its container parsers wrapped to note their start.
    """
    dec = _decoder()
    where: list[int] = []

    def wrap(base: Any) -> Any:
        def parse(s_and_end: tuple[str, int], *args: Any) -> Any:
            try:
                return base(s_and_end, *args)
            except ValueError:
                if not where:  # the innermost container notes it first
                    where.append(s_and_end[1] - 1)
                raise

        return parse

    dec.parse_object = wrap(dec.parse_object)  # type: ignore[attr-defined]
    dec.parse_array = wrap(dec.parse_array)  # type: ignore[attr-defined]
    dec.scan_once = json.scanner.py_make_scanner(dec)  # type: ignore[attr-defined]
    with suppress(ValueError, RecursionError):  # the first pass already said what is wrong
        dec.decode(text)
    return where[0] if where else 0


def _line_col(text: str, pos: int, first_line: int) -> str:
    line = text.count("\n", 0, pos) + first_line
    col = pos - text.rfind("\n", 0, pos)
    return f"line {line} column {col}"


def _too_deep(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def loads_strict(
    data: bytes | str,
    *,
    where: str,
    fix: str = "fix the file",
    max_depth: int = MAX_DEPTH,
    first_line: int = 1,
) -> Any:
    """Decode a JSON document strictly (see the module docstring).

    Args:
        data: the document; bytes must be UTF-8.
        where: the file, named first in every message.
        fix: what the user should do, ending the message.
        max_depth: the deepest nesting accepted.
        first_line: the number of the document's first line in the file (a
            line of a JSONL file), so positions are the file's.

    Returns:
        The decoded value (dicts, lists, str, int, float, bool, None).

    Raises:
        InputFileError: one line: where, the line and column, the problem, the fix.

    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputFileError(
                f"{where}: not UTF-8 (byte {exc.start} is invalid); {fix}"
            ) from None
    else:
        text = data
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(
            f"{where}: invalid JSON at {_line_col(text, exc.pos, first_line)}: {exc.msg}; {fix}"
        ) from None
    except _Duplicate as exc:
        raise InputFileError(
            f"{where}: duplicate key {json.dumps(exc.key)[:80]} in the object at "
            f"{_line_col(text, _locate(text), first_line)}"
            f" (a key may appear once per object); {fix}"
        ) from None
    except RecursionError:
        raise InputFileError(
            f"{where}: invalid JSON: nested deeper than {max_depth} levels; {fix}"
        ) from None
    except ValueError as exc:
        # NaN/Infinity, 1e999, an integer of more digits than Python converts.
        problem = str(exc)
        if "integer string conversion" in problem:
            problem = "an integer with thousands of digits"
        raise InputFileError(
            f"{where}: invalid JSON in the value at "
            f"{_line_col(text, _locate(text), first_line)}: {problem}; {fix}"
        ) from None
    if isinstance(value, (dict, list)) and _too_deep(value, max_depth):
        raise InputFileError(f"{where}: invalid JSON: nested deeper than {max_depth} levels; {fix}")
    # A \uD800 escape alone decodes to a lone surrogate, which no UTF-8 output
    # (a terminal, SQLite, a re-export) can hold; the search keeps the common case free.
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        raise InputFileError(
            f"{where}: invalid JSON: a \\u escape names half of a surrogate pair; {fix}"
        )
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
