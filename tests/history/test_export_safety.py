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
