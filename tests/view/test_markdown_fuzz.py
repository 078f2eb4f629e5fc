"""Random documents of fences, containers, HTML and links: nothing goes live, nothing leaks.

Each document is made of pieces a hostile answer would combine: fences of
backticks and tildes (indents 0-4, lengths 3-6, info strings, closing lines
with trailing Unicode whitespace), list items, block quotes, raw HTML, links,
images, autolinks and bare URLs. Whatever the mix, the inert Markdown
rendered by a viewer (CommonMark, GFM tables, linkify) has no link, image or
raw HTML, and the document's own line after it is still the document's.
"""

from __future__ import annotations

import random
import re

import pytest
from markdown_it import MarkdownIt

from acphost.view import inert_markdown

FENCE_CHARS = "`~"
SPACES = [" ", "\t", "\u00a0", "\u3000", "\u2003", "\u2028", "\x85", "\x0c", "\r"]
INFOS = ["", "py", " python ", "x`y", "~", "{.x}"]
PREFIXES = ["", "- ", "* ", "1. ", "> ", "> > ", "  ", "   ", "    ", "\t", "- > ", ">\t"]
LIVE_TEXT = [
    "[l](https://evil.example)",
    "![t](https://evil.example/t.png)",
    "<https://evil.example>",
    "<img src=https://evil.example/p.png>",
    "<div>",
    "</div>",
    "<!-- x",
    "<script>",
    "www.evil.example",
    "https://evil.example/x",
    "me@evil.example",
    "[ref]",
    "[ref]: https://evil.example",
    "&#x202E;",
    "`",
    "``",
    "text",
    "",
    "\\",
]


def _fence(rng: random.Random) -> str:
    return rng.choice(FENCE_CHARS) * rng.randint(3, 6)


def _line(rng: random.Random) -> str:
    prefix = rng.choice(PREFIXES) + " " * rng.randint(0, 4) * (rng.random() < 0.3)
    roll = rng.random()
    if roll < 0.4:
        body = _fence(rng) + (rng.choice(INFOS) if rng.random() < 0.3 else "")
        if rng.random() < 0.3:
            body += rng.choice(SPACES)
    else:
        body = " ".join(rng.choice(LIVE_TEXT) for _ in range(rng.randint(1, 3)))
    return prefix + body


def documents(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["\n".join(_line(rng) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def viewers() -> list[MarkdownIt]:
    plain = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    linked = MarkdownIt("commonmark", {"linkify": True}).enable(
        ["table", "strikethrough", "linkify"]
    )
    return [plain, linked]


LIVE = re.compile(r"<(a|img|script|div|iframe|!--)[\s>]", re.IGNORECASE)
HOST = "[stop] end_turn"


def check(text: str, *, quoted: bool) -> None:
    out = inert_markdown(text, quoted=quoted)
    for viewer in viewers():
        html = viewer.render(out + "\n\nafter\n\n- \\" + HOST + "\n")
        assert not LIVE.search(html), (text, out, html)
        # The host's lines after the answer are its own, at the top.
        assert html.endswith("<p>after</p>\n<ul>\n<li>" + HOST + "</li>\n</ul>\n"), (
            text,
            out,
            html,
        )
        if quoted:
            assert all(line.startswith(">") for line in out.split("\n")), out
            # Nothing of the answer is outside its quote.
            tokens = viewer.parse(out + "\n\n- \\" + HOST + "\n")
            top = [t.type for t in tokens if t.level == 0 and t.nesting >= 0]
            assert top[:1] == ["blockquote_open"] and top.count("blockquote_open") == 1, top


@pytest.mark.parametrize("seed", range(8))
def test_random_documents_stay_inert(seed):
    for text in documents(seed, 150):
        check(text, quoted=False)
        check(text, quoted=True)


@pytest.mark.parametrize(
    "text",
    [
        " ```\ncode\n```\n[l](https://evil.example)",
        "  ```\n  a\nb\n```\n<img src=https://evil.example/p.png>",
        *(f"```\ncode\n```{ws}\n[l](https://evil.example)\n```" for ws in SPACES),
        "<div>\n```\n</div>\n[x](https://e.example)",
        "\t```\n[l](https://evil.example)",
    ],
)
def test_fences_end_where_commonmark_ends_them(text):
    check(text, quoted=False)
    check(text, quoted=True)


def test_a_fence_nothing_closes_is_the_safe_form():
    # An HTML block of the kind only its end marker closes would swallow the
    # document's own lines; escaping "<" turns it into a paragraph, and what
    # it hid becomes Markdown: the result is checked, and when in doubt the
    # answer is one fenced block.
    text = "```` x\n```\n[l](https://evil.example)"
    out = inert_markdown(text)
    assert viewers()[0].render(out + "\n\nafter").endswith("<p>after</p>\n")


def test_an_answer_too_long_to_parse_is_the_safe_form():
    text = "[l](https://evil.example) ``` `` x\n" * 9000  # over 256 KiB
    for quoted in (False, True):
        out = inert_markdown(text, quoted=quoted)
        lines = out.split("\n")
        fence = "> ````" if quoted else "````"
        assert lines[0] == fence and lines[-1] == fence, lines[:2]
        html = viewers()[1].render(out + "\n\nafter")
        assert not LIVE.search(html) and html.endswith("<p>after</p>\n")
