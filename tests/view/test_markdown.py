"""The agent's Markdown for documents: kept as Markdown (or rendered), with nothing live.

Rendered the way a viewer would show an export: markdown-it-py with GFM's
tables, strikethrough and linkify (fuzzy domains included) switched on.
"""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from acphost.view import inert_markdown, markdown_html


def viewer(markdown: str) -> str:
    md = MarkdownIt("commonmark", {"linkify": True}).enable(["table", "strikethrough", "linkify"])
    return md.render(markdown)


def tags(rendered: str) -> set[str]:
    return {m.lower() for m in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", rendered)}


LIVE = {"a", "img", "script", "div", "span", "iframe", "b"}

HOSTILE = [
    "[x](https://e.example) ![p](https://t.example/p.png) <https://a.example>",
    "[ref]\n\n[ref]: https://e.example",
    "\\\\[x](https://e.example)",  # an escaped backslash, then a live bracket
    "`unclosed [x](https://e.example)",
    "`` a ` [x](https://e.example) ``",
    "see e.example.com, file.py, me@mail.example, http://h.example/x //127.0.0.1/y",
    "<b>bold</b> <script>alert(1)</script>\n<div>\nblock\n</div>",
    "&lt;b&gt; &#x202E; &#106;avascript",
    "- item\n\n  ```\n  code\n- [x](https://e.example)",  # the item's fence ends with it
]


@pytest.mark.parametrize("text", HOSTILE)
def test_nothing_the_agent_wrote_links_fetches_or_injects(text):
    rendered = viewer(inert_markdown(text) + "\n\nafter")
    assert not LIVE & tags(rendered), rendered
    assert "\u202e" not in rendered
    assert rendered.endswith("<p>after</p>\n")


@pytest.mark.parametrize("text", HOSTILE)
def test_the_rendered_page_has_no_link_image_or_raw_html(text):
    page = markdown_html(text)
    assert not {"a", "img", "script", "div", "b", "iframe"} & tags(page), page
    assert "\u202e" not in page and "href=" not in page and "src=" not in page


@pytest.mark.parametrize(
    "text",
    ["```py\nx = 1", "~~~~\n```\nstill code", "  ```\n  in a list", "````\n```\n"],
)
def test_a_fence_left_open_is_closed(text):
    rendered = viewer(inert_markdown(text) + "\n\n# after")
    assert rendered.endswith("<h1>after</h1>\n"), rendered


def test_markdown_stays_markdown():
    text = (
        "## Plan\n\n1. *one*\n2. **two** ~~three~~\n\n> quoted `a [b](c) <d>`\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n```py\nif a < b and c[0]:\n    pass\n```"
    )
    out = inert_markdown(text)
    # Code is kept as written, Markdown syntax too; only what could go live changed.
    assert "`a [b](c) <d>`" in out and "if a < b and c[0]:\n    pass\n```" in out
    assert viewer(out) == viewer(text)
    assert markdown_html(text) == MarkdownIt("commonmark").enable(
        ["table", "strikethrough"]
    ).render(text)


def test_text_reads_as_written():
    text = "a < b & c [d] e@f.example https://g.example/h <U+2028> \\*kept\\*"
    rendered = viewer(inert_markdown(text))
    assert rendered == (
        "<p>a &lt; b &amp; c [d] e@f.example https://g.example/h &lt;U+2028&gt; *kept*</p>\n"
    )


def test_a_batch_reports_final_text_is_the_agents_markdown_made_inert(tmp_path):
    from acphost.batch._html import render_html
    from acphost.batch._model import RunOutcome
    from acphost.batch._report import Report, render_markdown

    answer = (
        "## Result\n\n- **fixed** the bug\n\n```py\nx = '<b>'\n```\n\n"
        "<div>raw</div> ![p](https://t.example/p.png) [d](https://e.example) see e.example.com\n\n"
        "```\nnever closed"
    )
    outcome = RunOutcome(
        id="demo--p1--0", agent="demo", prompt_id="p1", prompt="x", repeat=0, status="ok",
        stop_reason="end_turn", final_text=answer,
    )  # fmt: skip
    plan = {"agents": ["demo"], "prompts": [{"id": "p1", "prompt": "x"}], "runs": [{"id": "r"}]}
    report = Report(str(tmp_path), plan, (outcome,))

    md = render_markdown(report)
    shown = viewer(md)
    assert "<h2>Result</h2>" in shown and "<strong>fixed</strong>" in shown
    assert "<code class=\"language-py\">x = '&lt;b&gt;'" in shown
    assert not {"a", "img", "div"} & tags(shown), shown
    # The fence it left open, closed, inside the quote that holds the answer.
    assert "> ```\n> never closed\n> ```\n" in md

    page = render_html(report)
    assert "<h2>Result</h2>" in page and "<strong>fixed</strong>" in page
    assert not {"a", "img"} & tags(page)
    assert "&lt;div&gt;raw&lt;/div&gt;" in page and "[image: p] (https://t.example/p.png)" in page
