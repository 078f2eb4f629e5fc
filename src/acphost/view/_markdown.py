"""The agent's Markdown for documents made for people: kept as Markdown, made inert.

An export or a report shows what the agent wrote as the agent meant it
(headings, emphasis, lists, code blocks, tables), but what it wrote is
untrusted: a document is opened in viewers that fetch images (an image URL
is a tracking pixel), follow links (whose words the agent chose as well as
their target), pass raw HTML through, and turn bare URLs into links.

- :func:`inert_markdown`: Markdown in, Markdown out, with every construct
  that could fetch, link or inject made literal text by backslash escapes
  (which render as the character itself): ``[`` and ``]`` (links, images,
  reference definitions), ``<`` (raw HTML, autolinks), ``&`` (entities, which
  could spell any character, a control among them), ``@`` (e-mail
  autolinks), the ``:`` of ``://``, the first ``/`` of ``//`` and every
  ``.`` between a word and a letter (bare URLs, protocol-relative ones and
  domains, which linkifying viewers link: GFM
  "Autolinks (extension)", linkify-it's fuzzy links). Code (fenced code
  blocks, code spans) is kept as written: nothing in it is Markdown. A fence
  the agent left open is closed, so it cannot swallow what follows it.
- :func:`markdown_html`: the same Markdown rendered to HTML with raw HTML
  off, links shown as their words and target in plain text, images as a
  placeholder (never an ``img``): for a page that carries
  :data:`acphost.safetext.HTML_CSP`.

Both make controls visible first (:func:`acphost.safetext.sanitize`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..safetext import sanitize

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["inert_markdown", "markdown_html"]

# A code fence's opening line (CommonMark 0.31 §4.5): up to three spaces, then
# three or more backticks or tildes; a backtick fence's info string holds no
# backtick (else the line is a paragraph with a code span).
_OPEN = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)")
# Inside a line outside code: an escape pair (kept), a run of backticks (a
# code span when a run as long follows on the line), or a character to escape.
_INLINE = re.compile(
    r"\\[!-/:-@\[-`{-~]"  # a backslash escape of ASCII punctuation: already literal
    r"|`+"
    r"|<(?!U\+[0-9A-F]{4,6}>)"  # not the sanitiser's own <U+XXXX>, which no parser reads as HTML
    r"|[\[\]&@]"
    r"|(?<=[A-Za-z]):(?=//)|/(?=/)"
    r"|(?<=\w)\.(?=[^\W\d_])"
)


def _closes(line: str, marker: str) -> bool:
    m = _OPEN.fullmatch(line.rstrip())
    return (
        m is not None
        and m.group(2)[0] == marker[0]
        and len(m.group(2)) >= len(marker)
        and not m.group(3).strip()
    )


def _inline(line: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(line):
        start, token = m.start(), m.group()
        if start < pos:  # inside a code span already copied
            continue
        out.append(line[pos:start])
        pos = m.end()
        if token[0] == "\\":
            out.append(token)
        elif token[0] == "`":
            # A code span ends at the next run of exactly as many backticks
            # (CommonMark §6.1); found on this line it is kept as written.
            close = re.compile(f"(?<!`){token}(?!`)").search(line, pos)
            if close is not None:
                out.append(line[start : close.end()])
                pos = close.end()
            else:
                out.append("\\`" * len(token))
        else:
            out.append("\\" + token)
    out.append(line[pos:])
    return "".join(out)


def inert_markdown(text: str) -> str:
    """Return the agent's Markdown with its structure kept and nothing in it live.

    See the module docstring for what is escaped. Code spans are matched
    within a line; a backtick run without its match on the line is escaped,
    so the span a viewer sees is the one kept. A fence opened with an indent
    (in a list item) is taken as closed by the first line indented less,
    where a list item would end it: text after it is escaped, never left raw.

    Args:
        text: the agent's message, raw (Markdown).

    Returns:
        Markdown, without a final newline, whose every fence is closed.

    """
    out: list[str] = []
    marker = ""  # the open fence's backticks or tildes
    indent = 0  # the open fence's indent
    for line in sanitize(text).split("\n"):
        if marker:
            if _closes(line, marker):
                marker = ""
                out.append(line)
                continue
            if not (indent and line.strip() and len(line) - len(line.lstrip(" ")) < indent):
                out.append(line)
                continue
            marker = ""
        m = _OPEN.match(line)
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            marker, indent = m.group(2), len(m.group(1))
            out.append(line)
            continue
        out.append(_inline(line))
    if marker:
        out.append(" " * indent + marker)
    return "\n".join(out).rstrip("\n")


_PARSER: MarkdownIt | None = None


def _link_open(self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
    env.setdefault("links", []).append(str(tokens[idx].attrs.get("href", "")))
    return '<span class="link">'


def _link_close(self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
    href = env["links"].pop() if env.get("links") else ""
    return f'</span> <span class="href">({_escape(href)})</span>'


def _image(self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or ())
    src = str(token.attrs.get("src", ""))
    return f'<span class="image">[image: {_escape(alt)}] ({_escape(src)})</span>'


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#x27;")
    )


def _parser() -> MarkdownIt:
    global _PARSER  # noqa: PLW0603 - built on the first page that needs it
    if _PARSER is None:
        from markdown_it import MarkdownIt  # noqa: PLC0415 - only for an HTML page

        # Entities off as well: "&#x202E;" would spell the override that
        # sanitising the source removed (the Markdown side escapes "&").
        parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
        parser.disable("entity")
        parser.add_render_rule("link_open", _link_open)
        parser.add_render_rule("link_close", _link_close)
        parser.add_render_rule("image", _image)
        _PARSER = parser
    return _PARSER


def markdown_html(text: str) -> str:
    """Return the agent's Markdown as HTML: rendered, with nothing in it live.

    Raw HTML and entities are text (the parser's ``html`` option and its
    entity rule off); a link is its words
    followed by its target in parentheses, as text; an image is
    ``[image: ALT] (URL)`` as text: no ``a``, no ``img``, nothing fetched.
    Controls are made visible first (a browser acts on bidirectional
    overrides as a terminal does); the parser escapes the rest.

    Args:
        text: the agent's message, raw (Markdown).

    Returns:
        An HTML fragment (block elements).

    """
    html: str = _parser().render(sanitize(text), {})
    return html
