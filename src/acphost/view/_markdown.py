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
  blocks, indented code, code spans) is kept as written: nothing in it is
  Markdown. A fence the agent left open is closed, so it cannot swallow what
  follows it.
- ``inert_markdown(text, quoted=True)``: the same, inside a block quote (every line
  ``>``-prefixed): a container the agent's text cannot leave, so nothing it
  writes can pass for the document's own lines and nothing it opens reaches
  past it.
- :func:`markdown_html`: the same Markdown rendered to HTML with raw HTML
  off, links shown as their words and target in plain text, images as a
  placeholder (never an ``img``): for a page that carries
  :data:`acphost.safetext.HTML_CSP`.

Which lines are code is decided by a CommonMark parser (markdown-it-py), not
by a line scanner of our own: a fence's indent, its closing line's trailing
whitespace (only spaces and tabs count, CommonMark §4.5) and the containers
around it decide where it ends, and a scanner that differs from the viewers
on any of these leaves text raw that they render. The result is parsed again
(with and without linkify): if anything could still link, fetch or inject, or
if a construct reaches past the end, the whole answer is given as one fenced
block instead. All of them make controls visible first
(:func:`acphost.safetext.sanitize`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..safetext import sanitize

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = ["inert_markdown", "markdown_html"]

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
# Tokens through which a viewer links, fetches or injects: links (autolinks
# and linkify's are link_open too), images, raw HTML.
_LIVE = frozenset({"link_open", "image", "html_block", "html_inline"})
# A paragraph put after the document to see that nothing the agent wrote
# reaches past its end (an open fence would make it code).
_END = "end"
_CHECKERS: list[MarkdownIt] = []
_BLOCKS: list[MarkdownIt] = []
# Beyond this many characters an answer is given in the safe form at once: the
# parser reads some hundreds of KB a second, and an export must not take
# minutes for one answer (a turn's text may be megabytes).
_PARSE_LIMIT = 256 * 1024


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


def _checkers() -> list[MarkdownIt]:
    # The viewers a document meets: CommonMark with GFM's tables and
    # strikethrough, with and without linkify (when linkify-it-py is there).
    if not _CHECKERS:
        from markdown_it import MarkdownIt  # noqa: PLC0415 - only for a document

        plain = MarkdownIt("commonmark").enable(["table", "strikethrough"])
        # Entities stay their own tokens (text_join would merge them into text).
        plain.disable("text_join")
        _CHECKERS.append(plain)
        try:
            linked = MarkdownIt("commonmark", {"linkify": True}).enable(
                ["table", "strikethrough", "linkify"]
            )
        except ModuleNotFoundError:  # linkify-it-py is optional for markdown-it-py
            pass
        else:
            linked.disable("text_join")
            _CHECKERS.append(linked)
    return _CHECKERS


def _walk(tokens: Iterable[Token]) -> Iterable[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def _code_lines(tokens: Sequence[Token]) -> set[int]:
    lines: set[int] = set()
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(*token.map))
    return lines


def _parse(lines: list[str]) -> list[Token]:
    # Blocks only: which lines are code, where a fence ends.
    if not _BLOCKS:
        from markdown_it import MarkdownIt  # noqa: PLC0415 - only for a document

        _BLOCKS.append(MarkdownIt("commonmark").disable("inline"))
    return list(_BLOCKS[0].parse("\n".join(lines)))


def _ends_cleanly(tokens: Sequence[Token], count: int) -> bool:
    # The paragraph after the document is a paragraph of its own, at the top.
    return (
        len(tokens) >= 3
        and [t.type for t in tokens[-3:]] == ["paragraph_open", "inline", "paragraph_close"]
        and tokens[-3].level == 0
        and tokens[-3].map == [count + 1, count + 2]
    )


def _inert(lines: list[str]) -> bool:
    for checker in _checkers():
        env: dict[str, Any] = {}
        tokens = checker.parse("\n".join([*lines, "", _END]), env)
        if env.get("references") or not _ends_cleanly(tokens, len(lines)):
            return False
        for token in _walk(tokens):
            if token.type in _LIVE or (token.type == "text_special" and token.info == "entity"):
                return False
    return True


def _made_inert(lines: list[str], wrap: Callable[[str], str]) -> list[str]:
    code = _code_lines(_parse(lines))
    out = [line if i in code else _inline(line) for i, line in enumerate(lines)]
    # A fence still open at the end (the parser made a paragraph after the
    # answer, in the same container, part of it) is closed with its own
    # marker: a closing fence is the opening's character, at least as many.
    tokens = _parse([*out, wrap(""), wrap(_END)])
    swallowing = [t for t in tokens if t.type == "fence" and t.map and t.map[1] > len(out) + 1]
    if swallowing:
        out.append(wrap(swallowing[0].markup))
    return out


def _fenced(text: str) -> list[str]:
    # The safe form: one fenced block whose fence is longer than any run of
    # backticks in it, so no line of it closes the block.
    fence = "`" * max(3, max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    return [fence, *text.split("\n"), fence]


def inert_markdown(text: str, *, quoted: bool = False) -> str:
    """Return the agent's Markdown with its structure kept and nothing in it live.

    See the module docstring for what is escaped. Code spans are matched
    within a line; a backtick run without its match on the line is escaped,
    so the span a viewer sees is the one kept.

    With ``quoted``, the answer is inside a block quote (every line starts
    with ``>``): a container the agent's text cannot leave, so no line of it
    reads as the document's own, and a fence it leaves open ends with the
    quote (and is closed there). The quote is made first and the text made
    inert inside it, so what is code is what a viewer sees as code there (a
    tab's width depends on the column it starts at).

    An answer that still parses with anything live, or one over 256 KiB
    (the parser's time), is given as one fenced block: all of it as written,
    none of it Markdown.

    Args:
        text: the agent's message, raw (Markdown).
        quoted: put it in a block quote.

    Returns:
        Markdown, without a final newline, whose every fence is closed.

    """
    text = sanitize(text).rstrip("\n")
    lines = text.split("\n")
    wrap = _quote if quoted else str
    out = _made_inert([wrap(line) for line in lines], wrap) if len(text) <= _PARSE_LIMIT else []
    if not out or not _inert(out):
        out = [wrap(line) for line in _fenced(text)]
    return "\n".join(out)


def _quote(line: str) -> str:
    return "> " + line if line else ">"


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
