"""Compact JSON in and out, without paying for ``re`` and ``enum`` at start-up.

The stdlib ``json`` package imports ``re`` (and through it ``enum``), which costs
about 10 ms on a cold start, more than the rest of the demo agent together. The
C accelerator ``_json`` that ``json`` itself uses needs neither, so this module
drives it directly and falls back to ``json`` where ``_json`` is missing (PyPy).
Output is compact (no spaces) and keeps non-ASCII text as UTF-8, one object per
line as ACP's stdio transport requires.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class DecodeError(ValueError):
    """A line is not one complete JSON value."""


def _constant(name: str) -> float:
    # JSON has no NaN or Infinity; the stdlib accepts them, so do we.
    return float(name.lower().replace("infinity", "inf"))


class _ScanContext:
    """The attributes ``_json.make_scanner`` reads from a ``JSONDecoder``."""

    strict = False
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)
    memo: dict[str, str]

    def __init__(self) -> None:
        self.memo = {}


_WHITESPACE = " \t\n\r"


def _unsupported(value: object) -> object:
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


try:
    import _json

    # typeshed types the scanner's argument as a scanner; it reads only the attributes.
    _scan: Callable[[str, int], tuple[Any, int]] = _json.make_scanner(
        _ScanContext()  # type: ignore[arg-type]
    )
    _encode: Callable[[Any, int], Any] = _json.make_encoder(
        None, _unsupported, _json.encode_basestring, None, ":", ",", False, False, True
    )

    def loads(text: str) -> Any:
        """Decode one JSON value that fills ``text`` (surrounding blanks allowed).

        Raises:
            DecodeError: ``text`` is not exactly one JSON value.

        """
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = _scan(text, start)
        except (StopIteration, ValueError, SystemError):
            # The scanner formats its errors with json.decoder.JSONDecodeError but
            # only finds it if already imported (else SystemError); let the stdlib
            # parser explain the error, paying for its import on this path only.
            return _slow_loads(text)
        if text[end:].strip(_WHITESPACE):
            raise DecodeError(f"extra data at offset {end}")
        return value

    def dumps(value: Any) -> str:
        """Encode ``value`` as compact JSON text with no newline in it."""
        return "".join(_encode(value, 0))

    def _slow_loads(text: str) -> Any:
        import json  # noqa: PLC0415 - the error path only; json imports re

        try:
            return json.loads(text)
        except ValueError as exc:
            raise DecodeError(str(exc)) from None

except ImportError:  # pragma: no cover - CPython always has _json
    import json

    def loads(text: str) -> Any:
        """Decode one JSON value that fills ``text`` (surrounding blanks allowed).

        Raises:
            DecodeError: ``text`` is not exactly one JSON value.

        """
        try:
            return json.loads(text)
        except ValueError as exc:
            raise DecodeError(str(exc)) from None

    def dumps(value: Any) -> str:
        """Encode ``value`` as compact JSON text with no newline in it."""
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
