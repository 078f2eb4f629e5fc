"""Decoding the JSON of the files a user names or an agent could have written.

The files are read by :mod:`acphost._infile` (no blocking, bounded; its names
are exported here too). :func:`loads_strict` decodes JSON as RFC 8259 says it
is, no more: no ``NaN``/``Infinity`` (and no number that overflows to
infinity, ``1e999``), no duplicate keys (RFC 8259 §4: names "SHOULD be
unique"; two readers may keep different ones, so a reviewed file could mean
something else to us), and no nesting deeper than :data:`MAX_DEPTH`. It
raises :class:`InputFileError`: one line naming the file, the line and the
column, and saying what to do.
"""

from __future__ import annotations

import json
import json.scanner
import math
import re
from contextlib import suppress
from typing import Any

from .._infile import (
    MAX_IMPORT_BYTES,
    MAX_INPUT_BYTES,
    InputFileError,
    decode_text,
    open_input,
    read_input,
    read_input_fd,
    read_stream,
    read_text_input,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_IMPORT_BYTES",
    "MAX_INPUT_BYTES",
    "InputFileError",
    "decode_text",
    "loads_strict",
    "open_input",
    "read_input",
    "read_input_fd",
    "read_stream",
    "read_text_input",
]

#: The deepest nesting of arrays and objects accepted. Far beyond any real file
#: (an agent's tool input is kept as sent, so leave room), and well below the
#: recursion limit of the decoder, which would otherwise fail with a bare
#: ``RecursionError``.
MAX_DEPTH = 256

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
