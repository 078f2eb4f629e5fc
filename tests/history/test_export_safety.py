"""``acphost history export``: agent text in md and html stays text (real agent, real command)."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from acphost.safetext import HTML_CSP

from .conftest import run_cli

ATTACK = (
    "</pre><script>alert(1)</script>\n"
    "```\n# Injected heading\n```\n"
    "[click](javascript:alert(1)) ![i](https://evil.example/p.png)\n"
    "<img src=x onerror=alert(1)> <https://evil.example> www.evil.example\u2028forged line"
)


def _tags(rendered: str) -> list[str]:
    return [m.lower() for m in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", rendered)]


def test_exports_keep_the_agents_text_inert(store_path, tmp_path):
    r = run_cli("-o", "simple", "echo " + ATTACK, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_cli("history", "list", "-o", "json", cwd=tmp_path)
    (sid,) = re.findall(r'"id": "([0-9a-f]{32})"', r.stdout)

    md = run_cli("history", "export", sid, "-f", "md", cwd=tmp_path).stdout
    viewer = MarkdownIt("commonmark", {"linkify": True}).enable(
        ["table", "strikethrough", "linkify"]
    )
    tags = _tags(viewer.render(md))
    assert not {"script", "img", "a"} & set(tags), tags
    assert tags.count("h1") == 1  # the title; the agent's heading stays code
    assert "\u2028" not in md and "<U+2028>forged line" in md

    page = run_cli("history", "export", sid, "-f", "html", cwd=tmp_path).stdout
    assert f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">' in page
    assert not {"script", "img", "a"} & set(_tags(page))
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "\u2028" not in page


# An answer in Markdown with every construct an export must keep, and every
# one it must make inert; its last fence is never closed.
ANSWER = (
    "# Answer heading\n"
    "Some **bold** and _em_ text, `a <b> [c](d)` span.\n\n"
    "- first\n- second\n\n"
    "| col | other |\n|---|---|\n| x | y |\n\n"
    '```py\nx = "<b>[a](b)</b>"\n```\n\n'
    "<div onclick=alert(1)>raw</div>\n\n"
    "![pixel](https://track.example/p.png)\n\n"
    "[docs](https://evil.example/x) <https://auto.example/z> me@mail.example\n\n"
    "see https://bare.example/y www.evil.example tracker.example.com\n\n"
    "```sh\necho [late](https://evil.example/late)"
)


def _viewer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"linkify": True}).enable(["table", "strikethrough", "linkify"])


def test_exports_keep_the_agents_markdown_as_markdown_with_nothing_live(store_path, tmp_path):
    r = run_cli("-o", "simple", "echo " + ANSWER, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_cli("history", "list", "-o", "json", cwd=tmp_path)
    (sid,) = re.findall(r'"id": "([0-9a-f]{32})"', r.stdout)

    md = run_cli("history", "export", sid, "-f", "md", cwd=tmp_path).stdout
    shown = _viewer().render(md)
    tags = set(_tags(shown))
    # Kept: the heading, emphasis, the list, the table, the code blocks.
    assert "<h1>Answer heading</h1>" in shown
    assert "<strong>bold</strong>" in shown and "<em>em</em>" in shown
    assert "<li>first</li>" in shown and "<td>x</td>" in shown
    assert "<code>a &lt;b&gt; [c](d)</code>" in shown
    assert '<code class="language-py">x = &quot;&lt;b&gt;[a](b)&lt;/b&gt;&quot;' in shown
    # Inert: no raw HTML, no image, no link of any kind, as the text it is.
    assert not {"a", "img", "div", "script"} & tags, tags
    assert "&lt;div onclick=alert(1)&gt;raw&lt;/div&gt;" in shown
    assert "![pixel](https://track.example/p.png)" in shown
    assert "[docs](https://evil.example/x) &lt;https://auto.example/z&gt;" in shown
    assert "see https://bare.example/y www.evil.example tracker.example.com" in shown
    # The fence left open is closed where the answer ends: what follows is
    # the export's again (the stop line is a list item, not code).
    assert '<code class="language-sh">echo [late](https://evil.example/late)\n</code>' in shown
    assert "<li>[stop] end_turn</li>" in shown

    page = run_cli("history", "export", sid, "-f", "html", cwd=tmp_path).stdout
    assert f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">' in page
    tags = set(_tags(page))
    assert "<h1>Answer heading</h1>" in page
    assert "<strong>bold</strong>" in page and "<em>em</em>" in page
    assert "<li>first</li>" in page and "<td>x</td>" in page
    assert '<code class="language-py">x = &quot;&lt;b&gt;[a](b)&lt;/b&gt;&quot;' in page
    assert not {"a", "img", "script"} & tags, tags  # the page's own div and span only
    assert "&lt;div onclick=alert(1)&gt;raw&lt;/div&gt;" in page
    assert "[image: pixel] (https://track.example/p.png)" in page
    assert (
        '<span class="link">docs</span> <span class="href">(https://evil.example/x)</span>' in page
    )
    assert "https://bare.example/y" in page and "href=" not in page
    assert '<code class="language-sh">echo [late](https://evil.example/late)' in page
