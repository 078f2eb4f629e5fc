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
* invisible characters that only hide or split what is shown (zero-width
  space U+200B, word joiners and invisible operators U+2060 to U+2065, the
  byte order mark U+FEFF, the soft hyphen U+00AD, the combining grapheme
  joiner U+034F, the Mongolian vowel separator U+180E, the Hangul and Khmer
  fillers, the interlinear annotation marks U+FFF9 to U+FFFB, and the tag
  characters U+E0000 to U+E007F, which can carry a whole hidden text); the
  zero-width joiner and non-joiner and the variation selectors stay
  (scripts and emoji need them);
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

import functools
import re

__all__ = [
    "AGENT_TEXT_LIMIT",
    "HTML_CSP",
    "bounded",
    "escape_json_for_terminal",
    "html_text",
    "markdown_fence",
    "markdown_inline",
    "sanitize",
    "sanitize_line",
]

# Everything that can act on a terminal or hide what follows it.
_UNSAFE_RANGES = (
    (0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x34F, 0x34F), (0x61C, 0x61C),
    (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180E, 0x180E), (0x200B, 0x200B), (0x200E, 0x200F),
    (0x2028, 0x202E), (0x2060, 0x2069), (0x3164, 0x3164), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB), (0xD800, 0xDFFF), (0xE0000, 0xE007F),
)  # fmt: skip
_UNSAFE = "".join(
    re.escape(chr(low)) + (f"-{re.escape(chr(high))}" if high > low else "")
    for low, high in _UNSAFE_RANGES
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
# The same characters as :func:`sanitize` shows, as UTF-8 (no surrogates:
# valid UTF-8 has none); built when first used.
@functools.cache
def _json_unsafe() -> re.Pattern[bytes]:
    encoded = sorted(
        (
            chr(code).encode("utf-8")
            for low, high in _UNSAFE_RANGES
            if low >= 0x7F
            for code in range(low, high + 1)
            if not 0xD800 <= code <= 0xDFFF
        ),
        key=len,
        reverse=True,
    )
    return re.compile(b"|".join(re.escape(e) for e in encoded))


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
    pattern = _json_unsafe()
    if pattern.search(line) is None:
        return line
    import json  # noqa: PLC0415 - only for a frame that needs it

    return pattern.sub(
        # json.dumps spells a character beyond U+FFFF as its surrogate pair.
        lambda m: json.dumps(m.group().decode("utf-8")).strip('"').encode("ascii"),
        line,
    )


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
# GFM §6.9). GFM's extended autolinks need "://" or "www.": that ":" or "."
# is escaped. Block markers count only at the start of a line.
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>&|~@]|(?<=[A-Za-z]):(?=//)|(?<=[wW]{3})\.")
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


def bounded(text: str, limit: int = AGENT_TEXT_LIMIT) -> str:
    """``text``, or its first ``limit`` characters and ``… (N more characters)``.

    Args:
        text: the text (redact it first: a secret cut in two is no longer recognised).
        limit: the most characters kept.

    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"
