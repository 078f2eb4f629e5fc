"""Links in the agent's messages: http(s) only, and only after the user saw the whole URL.

The clicks are real (Pilot clicks on the link in the rendered message); the
browser is the one thing replaced: ``webbrowser.open``, where Textual's
driver hands the URL to the system.
"""

from __future__ import annotations

import webbrowser

import pytest
from textual import events
from textual.widgets._markdown import MarkdownParagraph

from acphost.tui._elicit import UrlScreen
from acphost.tui._links import LinkScreen, link_problem
from acphost.tui._transcript import StreamingMarkdown

from .conftest import SIZE, answer, ready, screen_text, send, wait_for

SPOOF = "https://docs.example.com@evil.example/a/very/long/path?with=query&and=more#frag"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://example.com/x", ""),
        ("HTTP://example.com", ""),
        ("file:///etc/passwd", "this one has file"),
        ("javascript:alert(1)", "this one has javascript"),
        ("vscode://ext/install?x", "this one has vscode"),
        ("/relative/path", "no scheme"),
        ("https:///etc/passwd", "names no host"),
        ("https://example.com/\x1b]52;c;x\x07", "control or space"),
        ("https://example.com/a b", "control or space"),
        ("http://[::1", "not a valid URL"),
    ],
)
def test_only_http_and_https_links_with_a_host_may_be_offered(url, why):
    problem = link_problem(url)
    assert (why in problem) if why else problem == ""


def link_message(href: str) -> dict:
    update = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": f"[read the docs]({href})"},
    }
    return {"update": update}


SCRIPT = {
    "prompts": {
        "spoof": [link_message(SPOOF)],
        "file": [link_message("file:///etc/passwd")],
        "js": [link_message("javascript:alert(1)")],
        "custom": [link_message("vscode://ext/install?id=evil.ext")],
        "ssh": [link_message("ssh://evil.example/")],
    }
}


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    urls: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: urls.append(url) or True)
    return urls


async def click_the_link(pilot) -> None:
    message = pilot.app.active_view.transcript.query(StreamingMarkdown).last()
    paragraph = message.query_one(MarkdownParagraph)
    await pilot.click(paragraph, offset=(2, 0))


async def test_an_https_link_opens_after_the_user_saw_all_of_it(scripted, opened):
    app = scripted(SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "spoof")
        await click_the_link(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, LinkScreen))
        screen = app.screen
        text = screen_text(app).replace("\n", "")
        shown = "".join(str(w.render()) for w in screen.query(".link-url"))
        assert shown == SPOOF  # the whole URL, however long
        assert "goes to evil.example" in text and "not the host" in text
        assert opened == []
        await answer(pilot, "o")
        await wait_for(pilot, lambda: opened == [SPOOF])
        assert not isinstance(app.screen, LinkScreen)


async def test_a_link_the_user_declines_is_not_opened(scripted, opened):
    app = scripted(SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "spoof")
        await click_the_link(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, LinkScreen))
        screen = app.screen
        early = events.Key("o", "o")  # read within the guard time: not an answer
        early.time = screen.shown_at + screen.guard / 2
        app.post_message(early)
        await pilot.pause()
        assert app.screen is screen and not screen.answered
        await answer(pilot, "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, LinkScreen))
        assert opened == []


@pytest.mark.parametrize(("prompt", "scheme"), [("custom", "vscode"), ("ssh", "ssh")])
async def test_other_schemes_are_refused_with_a_notice(scripted, opened, prompt, scheme):
    app = scripted(SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, prompt)
        await click_the_link(pilot)
        await wait_for(
            pilot, lambda: any("link not opened" in n.message for n in app._notifications)
        )
        (notice,) = [n.message for n in app._notifications if "link not opened" in n.message]
        assert f"this one has {scheme}" in notice
        assert not isinstance(app.screen, LinkScreen)
        assert opened == []


@pytest.mark.parametrize("prompt", ["file", "js"])
async def test_file_and_javascript_targets_are_not_even_links(scripted, opened, prompt):
    """The Markdown parser (markdown-it's link validation) leaves them as text."""
    app = scripted(SCRIPT)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, prompt)
        await click_the_link(pilot)
        await pilot.pause()
        assert not isinstance(app.screen, LinkScreen)
        assert opened == []
        assert "[read the docs](" in screen_text(app)


async def test_a_url_elicitation_opens_through_the_same_confirmation(scripted, opened):
    script = {
        "prompts": {
            "url": [
                {
                    "request": "elicitation/create",
                    "params": {
                        "sessionId": "{sid}",
                        "mode": "url",
                        "elicitationId": "e-1",
                        "url": "javascript:alert(1)",
                        "message": "Log in",
                    },
                },
                {
                    "request": "elicitation/create",
                    "params": {
                        "sessionId": "{sid}",
                        "mode": "url",
                        "elicitationId": "e-2",
                        "url": SPOOF,
                        "message": "Log in",
                    },
                },
            ]
        }
    }
    app = scripted(script)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "url", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, UrlScreen))
        await answer(pilot, "o")  # refused: not http(s)
        await wait_for(
            pilot, lambda: any("link not opened" in n.message for n in app._notifications)
        )
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, UrlScreen) and app.screen.request.url == SPOOF,
        )
        await answer(pilot, "o")
        await wait_for(pilot, lambda: isinstance(app.screen, LinkScreen))
        assert opened == []
        await answer(pilot, "o")
        await wait_for(pilot, lambda: opened == [SPOOF])
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        assert app.is_running
