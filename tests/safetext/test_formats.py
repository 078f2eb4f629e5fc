"""Agent text in documents for people: HTML, inline Markdown, fenced Markdown.

The Markdown is rendered by markdown-it-py (CommonMark, rich's own parser)
with GFM's tables, strikethrough and linkify switched on, the way a viewer
would show a report; nothing the agent wrote may come out as a tag of its own.
"""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from acphost.safetext import (
    HTML_CSP,
    html_text,
    markdown_fence,
    markdown_inline,
    sanitize,
    sanitize_line,
)

HOSTILE = [
    "</pre><script>alert(1)</script>",
    "```\n# Injected heading\n```",
    "[click](javascript:alert(1))",
    "![x](https://evil.example/p.png)",
    "<img src=x onerror=alert(1)>",
    "<https://evil.example> https://evil.example www.evil.example a@evil.example",
    "tracker.example.com fetch file.py //127.0.0.1/x",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "&lt;script&gt; &#106;avascript",
    "1. item\n- item\n> quote\n| a | b |\n|---|---|",
    "````` ``x`` ` ```` tricky",
    "`code` *em* _em_ ~~del~~ \\[x\\]",
]


def _render(markdown: str) -> str:
    md = MarkdownIt("commonmark", {"linkify": True}).enable(["table", "strikethrough", "linkify"])
    return md.render(markdown)


def _tags(rendered: str) -> set[str]:
    return {m.lower() for m in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", rendered)}


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_inline_renders_as_the_literal_text(text):
    rendered = _render(f"- {markdown_inline(text)}")
    assert _tags(rendered) <= {"ul", "li"}, rendered
    # The reader sees the very characters (one line: newlines shown as \n).
    shown = re.sub(r"<[^>]+>", "", rendered).strip()

    assert html.unescape(shown) == sanitize_line(text)


@pytest.mark.parametrize("text", [*HOSTILE, "# h", "> q", "- i", "+ i", "12) x", "===", "---"])
def test_markdown_inline_at_the_start_of_a_line_opens_no_block(text):
    rendered = _render(f"{markdown_inline(text)}\n\n" + markdown_inline(text))
    assert _tags(rendered) == {"p"}, rendered


@pytest.mark.parametrize("text", HOSTILE)
def test_markdown_fence_holds_the_text_whatever_its_backticks(text):
    rendered = _render("before\n\n" + markdown_fence(text, "text") + "\n\nafter")
    assert _tags(rendered) == {"p", "pre", "code"}, rendered
    assert rendered.count("<pre>") == 1 and rendered.endswith("<p>after</p>\n")

    code = re.search(r"<code[^>]*>(.*)</code>", rendered, re.S)
    assert code is not None and html.unescape(code.group(1)) == text + "\n"


def test_markdown_fence_is_longer_than_any_backtick_run():
    assert markdown_fence("a").splitlines()[0] == "```"
    assert markdown_fence("x ```` y", "diff").splitlines()[0] == "`````diff"
    assert markdown_fence("\x1b[2J").splitlines()[1] == "\\x1b[2J"


@pytest.mark.parametrize("text", HOSTILE)
def test_html_text_leaves_no_tag_and_no_attribute(text):
    out = html_text(text)
    assert "<" not in out and ">" not in out and '"' not in out and "'" not in out

    assert html.unescape(out) == sanitize(text)


def test_html_text_shows_bidi_and_line_separators():
    assert html_text("a\u202eb\u2028c") == "a&lt;U+202E&gt;b&lt;U+2028&gt;c"


def test_the_csp_runs_no_script_and_fetches_nothing():
    directives = dict(d.strip().split(" ", 1) for d in HTML_CSP.split(";"))
    assert directives == {
        "default-src": "'none'",
        "style-src": "'unsafe-inline'",
        "img-src": "data:",
    }


@pytest.mark.parametrize(
    ("raw", "shown"),
    [("a\u2028b", "a<U+2028>b"), ("a\u2029b", "a<U+2029>b"), ("a\x85b", "a\\x85b")],
)
def test_line_and_paragraph_separators_are_visible(raw, shown):
    assert sanitize(raw) == shown
    assert sanitize_line(raw) == shown
