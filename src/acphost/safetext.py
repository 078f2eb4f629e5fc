r"""Make untrusted text safe to show on a terminal.

Everything an agent sends (messages, titles, paths, command lines, error
messages, its stderr) is untrusted. Written raw to a terminal, a string can
execute: ``ESC ] 52`` writes the clipboard, ``ESC ] 0`` retitles the window,
``ESC [ 2 J`` clears the screen, a carriage return overwrites the line it is
on, and a right-to-left override makes ``rm -rf /`` read as something else.

:func:`sanitize` is the one function every face calls before agent text
reaches a terminal, in the manner of ``less -R``'s and OpenSSH's ``strnvis``
visible escapes: nothing is dropped, every dangerous character becomes a
visible, inert escape the user can read:

* C0 controls other than newline and tab, DEL and C1 controls: ``\x1b``,
  ``\x07``, ``\x9b``; a carriage return shows as ``\r`` (a ``\r\n`` pair is
  an ordinary line end and stays a newline);
* bidirectional embeddings, overrides, isolates and marks (U+202A to
  U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C): ``<U+202E>``;
* invisible characters that only hide or split what is shown (zero-width
  space U+200B, word joiners U+2060 to U+2064, the byte order mark U+FEFF);
  the zero-width joiner and non-joiner stay (scripts and emoji need them);
* lone surrogates, which no terminal encoding can carry: ``<U+D800>``.

Once ESC is visible, the rest of any escape sequence is plain printable text,
so no sequence (CSI, OSC, DCS, hyperlinks) can take effect.

This is about terminals only: output that is data (a pipe, a file, the JSONL
frame mirror) stays exact, and markup safety (Rich/Textual) is a separate
rule: pass agent text as ``Text`` objects, never as markup strings.
"""

from __future__ import annotations

import re

__all__ = ["escape_json_for_terminal", "sanitize", "sanitize_line"]

# Everything that can act on a terminal or hide what follows it.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff"
)
_MULTILINE = re.compile(f"\r\n|[{_UNSAFE}]")
# On one line (a title, a table cell, a tab name), newline and tab would let
# the text forge rows and columns of its own: they are shown too.
_ONE_LINE = re.compile(f"[\n\t{_UNSAFE}]")

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r\n":
        return "\n"
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def sanitize(text: str) -> str:
    """Return ``text`` with every terminal control made visible and inert.

    Newlines and tabs are kept; everything else that could move the cursor,
    change the terminal's state or reorder what is shown becomes a visible
    escape (see the module docstring). Text with nothing to escape is
    returned as is, without a copy.

    Args:
        text: untrusted text, e.g. an agent's message or stderr.

    Returns:
        Text that is safe to write to a terminal.

    """
    if _MULTILINE.search(text) is None:
        return text
    return _MULTILINE.sub(_visible, text)


def sanitize_line(text: str) -> str:
    r"""Like :func:`sanitize`, for text that must stay on one line.

    Newlines and tabs are shown as ``\n`` and ``\t`` too, so a title, a
    session id or a table cell cannot forge lines or columns of its own.

    Args:
        text: untrusted text shown within one line.

    Returns:
        One line of text that is safe to write to a terminal.

    """
    if _ONE_LINE.search(text) is None:
        return text
    return _ONE_LINE.sub(_visible, text)


# In valid JSON these can only stand inside strings (raw C0 controls cannot
# at all), where a ``\uXXXX`` escape means the same character: escaping them
# keeps every value of the frame equal and the bytes inert on a terminal.
_JSON_UNSAFE = re.compile(
    rb"(?:\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8b\x8e\x8f\xa8-\xae]"
    rb"|\xe2\x81[\xa0-\xa4\xa6-\xa9]|\xef\xbb\xbf)"
)


def escape_json_for_terminal(line: bytes) -> bytes:
    r"""Return a JSON frame (UTF-8) with terminal-active characters as ``\uXXXX`` escapes.

    For a frame mirrored to a terminal (``-o jsonl``): JSON may carry C1
    controls, bidirectional overrides and line separators raw inside
    strings, and a terminal would act on them. The escaped frame decodes to
    the same value.

    Args:
        line: one JSON frame, UTF-8 encoded.

    Returns:
        The same frame with those characters escaped (the same object when
        there is nothing to escape).

    """
    if _JSON_UNSAFE.search(line) is None:
        return line
    return _JSON_UNSAFE.sub(
        lambda m: f"\\u{ord(m.group().decode('utf-8')):04x}".encode("ascii"), line
    )
