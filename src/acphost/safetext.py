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

* C0 controls other than newline and tab, DEL and C1 controls (NEL,
  U+0085, among them): ``\x1b``, ``\x07``, ``\x9b``; a carriage return
  shows as ``\r`` (a ``\r\n`` pair is an ordinary line end and stays a
  newline);
* the Unicode line and paragraph separators U+2028 and U+2029, which some
  terminals, editors and browsers break lines on (forging lines the
  reader takes for the host's) and others hide: ``<U+2028>``;
* bidirectional embeddings, overrides, isolates and marks (U+202A to
  U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C): ``<U+202E>``;
* invisible and format characters, which only hide or split what is
  shown: every character of Unicode's ``Default_Ignorable_Code_Point``
  property and of the format category ``Cf`` (one generated table,
  :mod:`acphost._invisible`, shared with the protected-path check): the
  zero-width space U+200B, word joiners and invisible operators, the
  deprecated format characters U+206A to U+206F, the byte order mark
  U+FEFF, the soft hyphen U+00AD, the Hangul and Khmer fillers, the
  interlinear annotation marks, the shorthand and musical format controls
  (U+1BCA0 to U+1BCA3, U+1D173 to U+1D17A), the reserved ignorable code
  points (U+FFF0 to U+FFF8, U+E0000 to U+E0FFF) and the tag characters
  U+E0020 to U+E007F, which can carry a whole hidden text. The zero-width
  joiner and non-joiner stay (scripts and emoji sequences need them);
* variation selectors (U+FE00 to U+FE0F, U+E0100 to U+E01EF, the Mongolian
  ones) beyond one: a selector chooses the glyph of the character before
  it, so one after a character stays (``❤\ufe0f``), while one after
  another selector, or with nothing before it in the text, selects nothing
  and is shown (``<U+FE01>``): a letter followed by a run of them (256
  selectors, a byte each) would carry a hidden text. (Text cleaned in
  streamed pieces: clean each piece with the previous piece's last
  character in front and drop that character's cleaned form, or a
  selector split from its character is shown);
* lone surrogates, which no terminal encoding can carry: ``<U+D800>``.

Once ESC is visible, the rest of any escape sequence is plain printable text,
so no sequence (CSI, OSC, DCS, hyperlinks) can take effect.

Output that is data (a pipe, a file, the JSONL frame mirror) stays exact,
and markup safety (Rich/Textual) is a separate rule: pass agent text as
``Text`` objects, never as markup strings. Documents made for people (a
history export, a batch report) are faces too, read in a browser or a
Markdown viewer; their helpers make agent text visible-safe as above *and*
inert in the format:

* :func:`html_text`: HTML-escaped (``<``, ``>``, ``&`` and both quotes), so
  no tag, attribute or entity of the agent's takes effect; such a page also
  carries :data:`HTML_CSP`, so even a mistake could run no script;
* :func:`markdown_inline`: every character Markdown could read as a link,
  image, emphasis, code span, raw HTML or block marker backslash-escaped
  (CommonMark 0.31 §2.4: any ASCII punctuation may be), on one line;
* :func:`markdown_fence`: a fenced code block whose fence is longer than
  any backtick run inside (CommonMark §4.5: the closing fence must be at
  least as long as the opening one), so the text cannot close it early.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Iterable

from ._invisible import INVISIBLE, VARIATION_SELECTORS, char_class

__all__ = [
    "AGENT_TEXT_LIMIT",
    "CUT",
    "HTML_CSP",
    "bounded",
    "cut_utf8",
    "escape_json_for_terminal",
    "html_text",
    "markdown_fence",
    "markdown_inline",
    "sanitize",
    "sanitize_line",
]


def _without(
    ranges: Iterable[tuple[int, int]], removed: Iterable[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The code point ranges less the ``removed`` ones (both sorted)."""
    out: list[tuple[int, int]] = []
    cut = sorted(removed)
    for first, high in ranges:
        low = first
        for cut_low, cut_high in cut:
            if cut_high < low or cut_low > high:
                continue
            if cut_low > low:
                out.append((low, cut_low - 1))
            low = cut_high + 1
        if low <= high:
            out.append((low, high))
    return out


# The zero-width non-joiner and joiner shape scripts (Persian, Indic
# conjuncts) and join emoji sequences; the variation selectors are kept one
# at a time (_EXTRA_SELECTOR).
_KEPT = ((0x200C, 0x200D), *VARIATION_SELECTORS)
# Everything that can act on a terminal or hide what follows it: C0 and C1
# controls (newline and tab apart), DEL, the line and paragraph separators,
# lone surrogates, and the invisible and format characters.
_UNSAFE_RANGES = sorted(
    [(0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x2028, 0x2029), (0xD800, 0xDFFF),
     *_without(INVISIBLE, _KEPT)]
)  # fmt: skip
_UNSAFE = char_class(_UNSAFE_RANGES)
_SELECTOR = char_class(VARIATION_SELECTORS)
# A variation selector after another one, or first in the text: the two
# characters before the match's end are not "something else, then it".
# (Starting with the selector's class keeps the engine's quick first-character
# scan for the whole expression.)
_EXTRA_SELECTOR = f"[{_SELECTOR}](?<![^{_SELECTOR}][{_SELECTOR}])"
_MULTILINE = re.compile(f"\r\n|[{_UNSAFE}]|{_EXTRA_SELECTOR}")
# On one line (a title, a table cell, a tab name), newline and tab would let
# the text forge rows and columns of its own: they are shown too.
_ONE_LINE = re.compile(f"[\n\t{_UNSAFE}]|{_EXTRA_SELECTOR}")
# The same for ASCII text (str.isascii() costs nothing: CPython knows it): a
# class of code points below 256 is a bitmap, several times faster to scan
# than the ranges above U+FFFF the full class needs.
_MULTILINE_ASCII = re.compile("\r\n|[\x00-\x08\x0b-\x1f\x7f]")
_ONE_LINE_ASCII = re.compile("[\x00-\x1f\x7f]")

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
    pattern = _MULTILINE_ASCII if text.isascii() else _MULTILINE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_visible, text)


def sanitize_line(text: str) -> str:
    r"""Like :func:`sanitize`, for text that must stay on one line.

    Newlines and tabs are shown as ``\n`` and ``\t`` too, so a title, a
    session id or a table cell cannot forge lines or columns of its own.

    Args:
        text: untrusted text shown within one line.

    Returns:
        One line of text that is safe to write to a terminal.

    """
    pattern = _ONE_LINE_ASCII if text.isascii() else _ONE_LINE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_visible, text)


# In valid JSON these can only stand inside strings (raw C0 controls cannot
# at all), where a ``\uXXXX`` escape means the same character: escaping them
# keeps every value of the frame equal and the bytes inert on a terminal.
# The same characters as :func:`sanitize` shows (no surrogates: valid UTF-8
# has none); built when first used.
@functools.cache
def _json_unsafe() -> re.Pattern[str]:
    above = _without(_UNSAFE_RANGES, ((0x00, 0x7E), (0xD800, 0xDFFF)))
    return re.compile(f"[{char_class(above)}]|{_EXTRA_SELECTOR}")


def escape_json_for_terminal(line: bytes) -> bytes:
    r"""Return a JSON frame (UTF-8) with terminal-active characters as ``\uXXXX`` escapes.

    For a frame mirrored to a terminal (``-o jsonl``): JSON may carry C1
    controls, bidirectional overrides, line separators and invisible
    characters raw inside strings, and a terminal would act on them or hide
    them. The escaped frame decodes to the same value.

    Args:
        line: one JSON frame, UTF-8 encoded.

    Returns:
        The same frame with those characters escaped (the same object when
        there is nothing to escape).

    """
    pattern = _json_unsafe()
    # Bytes that are not UTF-8 pass through unchanged (as lone surrogates).
    text = line.decode("utf-8", "surrogateescape")
    if pattern.search(text) is None:
        return line
    import json  # noqa: PLC0415 - only for a frame that needs it

    return pattern.sub(
        # json.dumps spells a character beyond U+FFFF as its surrogate pair.
        lambda m: json.dumps(m.group()).strip('"'),
        text,
    ).encode("utf-8", "surrogateescape")


#: The Content-Security-Policy of every HTML page acphost writes with agent
#: text in it (a history export, a batch report): nothing is fetched or run,
#: only the page's own inline style and ``data:`` images apply. A ``<meta>``
#: tag, as the pages are files opened locally (CSP Level 3, §"Delivering a
#: policy via the HTML meta element").
HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def html_text(text: str) -> str:
    """Return untrusted text as HTML character data (or a quoted attribute value).

    Controls are made visible as :func:`sanitize` does (a browser acts on
    bidirectional overrides as a terminal does), then ``& < > " '`` are
    escaped: nothing of the text can become a tag, an attribute or an entity.

    Args:
        text: untrusted text, e.g. an agent's message.

    Returns:
        Text to put between tags or inside a quoted attribute.

    """
    # html.escape's table, without importing html (and its entity tables)
    # into every face that only needs the terminal functions.
    return (
        sanitize(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#x27;")
    )


# Characters that open a Markdown construct anywhere in a line: emphasis and
# strikethrough, code spans, links and images ("[", "]"; "(" and "!" act only
# next to them), raw HTML and autolinks ("<"), entities ("&"), table cells,
# GFM's email autolinks ("@") and the backslash itself (CommonMark 0.31 §6,
# GFM §6.9). GFM's extended autolinks need "://" or "www.", and linkifying
# viewers (linkify-it's fuzzy links) take any "word.tld" for a domain and
# "//host" for a link: the ":" of "://", the first "/" of "//" and every "."
# between a word and a letter are escaped. Block markers count only at the
# start of a line.
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>&|~@]|(?<=[A-Za-z]):(?=//)|/(?=/)|(?<=\w)\.(?=[^\W\d_])")
_MD_LINE_START = re.compile(r"^(\s*)(?:([#>+=-])|(\d+)([.)]))")


def markdown_inline(text: str) -> str:
    r"""Return untrusted text escaped for use inside a line of Markdown.

    The text is kept on one line (newlines and tabs shown as ``\n`` and
    ``\t``, as :func:`sanitize_line` does) and every character that could
    open a Markdown construct is backslash-escaped, so agent text renders
    as the literal text it is: never a link, an image, an autolink, raw
    HTML, emphasis, a heading or a list.

    Args:
        text: untrusted text, e.g. a tool call's title or a path.

    Returns:
        Markdown that renders as exactly ``text`` (visible-safe).

    """
    escaped = _MD_SPECIAL.sub(lambda m: "\\" + m.group(), sanitize_line(text))
    # A heading, quote, list item or setext underline needs its marker first.
    return _MD_LINE_START.sub(
        lambda m: f"{m[1]}\\{m[2]}" if m[2] else f"{m[1]}{m[3]}\\{m[4]}", escaped, count=1
    )


_BACKTICKS = re.compile("`+")


def markdown_fence(text: str, info: str = "") -> str:
    """Return untrusted text as a Markdown fenced code block, fence lines included.

    The fence is one backtick longer than the longest run of backticks in
    the text (at least three), so no line of it can close the block; inside
    a code block nothing is Markdown. Controls are made visible as
    :func:`sanitize` does.

    Args:
        text: untrusted text, several lines allowed.
        info: the info string (a language, e.g. ``diff``); our own literal.

    Returns:
        The block, without a final newline.

    """
    body = sanitize(text)
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body.rstrip(chr(10))}\n{fence}"


#: The most characters of one agent-supplied text (an error's message, its
#: ``data``, its stderr tail) a diagnostic or a report keeps: enough for any
#: real error, while a 4 MB ``error.message`` would bury a terminal or a report.
AGENT_TEXT_LIMIT = 2000


#: Marks where text was cut short before the redactor read it (the rest of an
#: agent's overlong stderr line, what a turn streamed past the history's
#: limit, the lines before a stream's last ones). Text is redacted whole and
#: then cut wherever acphost can (:func:`bounded`); where the cut must come
#: first, this mark goes where the text was cut, and the redactor
#: (:class:`acphost.trace.Redactor`) masks the beginning of a configured value
#: just before it and the end of one just after it: a piece of a secret is
#: secret too.
CUT = "[…]"


def cut_utf8(data: bytes, limit: int) -> str:
    """``data`` decoded, cut to its first ``limit`` bytes and marked :data:`CUT` if longer.

    The cut falls between characters: a character the limit splits is left
    out whole, not shown as U+FFFD (the redactor must see the exact beginning
    of a value the cut ends in). Invalid bytes elsewhere become U+FFFD.

    Args:
        data: bytes from an untrusted source.
        limit: the most bytes kept.

    """
    if len(data) <= limit:
        return data.decode("utf-8", "replace")
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    return decoder.decode(data[:limit], final=False) + CUT


def bounded(text: str, limit: int = AGENT_TEXT_LIMIT) -> str:
    """``text``, or its first ``limit`` characters and ``… (N more characters)``.

    Args:
        text: the text (redact it first: a secret cut in two is no longer recognised).
        limit: the most characters kept.

    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"
