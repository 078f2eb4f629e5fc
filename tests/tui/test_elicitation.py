"""Elicitation: forms built from the requested schema, URLs that wait for completion.

Every answer (accept with content, decline, cancel) reaches the agent; the
client advertises exactly the two modes it serves.
"""

from __future__ import annotations

import json

from textual.widgets import Checkbox, Input, RadioSet, SelectionList

from acphost import schema as s
from acphost.host import check_form as check
from acphost.host import form_fields
from acphost.tui._elicit import FormScreen, UrlScreen
from acphost.tui._urlcard import UrlCard

from .conftest import SIZE, answer, ready, send, transcript_source, wait_for

SCHEMA = {
    "type": "object",
    "title": "Deploy settings",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "default": "web"},
        "email": {"type": "string", "title": "Email", "format": "email"},
        "replicas": {
            "type": "integer",
            "title": "Replicas",
            "minimum": 1,
            "maximum": 5,
            "default": 2,
        },
        "ratio": {"type": "number", "title": "Ratio"},
        "public": {"type": "boolean", "title": "Public", "default": True},
        "region": {
            "type": "string",
            "title": "Region",
            "oneOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "America"}],
            "default": "eu",
        },
        "tags": {
            "type": "array",
            "title": "Tags",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 1,
            "default": ["b"],
        },
    },
    "required": ["name", "email", "tags"],
}

FORM = {
    "prompts": {
        "form": [
            {
                "request": "elicitation/create",
                "params": {
                    "sessionId": "{sid}",
                    "mode": "form",
                    "message": "Where should it go?",
                    "requestedSchema": SCHEMA,
                },
            },
            {"say_response": True},
        ],
        "url": [
            {
                "request": "elicitation/create",
                "params": {
                    "sessionId": "{sid}",
                    "mode": "url",
                    "elicitationId": "e-1",
                    "url": "https://login.example.com/device?code=XYZ",
                    "message": "Log in to continue",
                },
            },
            {"say_response": True},
        ],
        "done": [{"notify": "elicitation/complete", "params": {"elicitationId": "e-1"}}],
    }
}


def said(app) -> dict:
    return json.loads(app.active_view.session.state.last_agent_text())


def test_form_fields_and_checks_from_the_schema():
    fields = form_fields(s.ElicitationSchema.from_wire(SCHEMA))
    assert [(f.name, f.kind, f.required) for f in fields] == [
        ("name", "string", True),
        ("email", "string", True),
        ("replicas", "integer", False),
        ("ratio", "number", False),
        ("public", "boolean", False),
        ("region", "choice", False),
        ("tags", "multi", True),
    ]
    content, problems = check(
        fields,
        {
            "name": "x",
            "email": "nope",
            "replicas": "9",
            "ratio": "abc",
            "public": True,
            "region": "eu",
            "tags": [],
        },
    )
    assert problems == {
        "name": "at least 2 characters",
        "email": "an email address",
        "replicas": "at most 5",
        "ratio": "a number",
        "tags": "required",
    }
    content, problems = check(
        fields,
        {
            "name": "api",
            "email": "a@b.io",
            "replicas": "3",
            "ratio": "",
            "public": False,
            "region": "us",
            "tags": ["a", "c"],
        },
    )
    assert problems == {}
    assert content == {
        "name": "api",
        "email": "a@b.io",
        "replicas": 3,
        "public": False,
        "region": "us",
        "tags": ["a", "c"],
    }


async def test_the_demo_asks_a_name_and_hears_the_answer(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "elicit", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen))
        screen = app.screen
        await wait_for(pilot, lambda: isinstance(app.focused, Input))  # focus after the guard
        await pilot.press("enter")  # empty: a required field
        await wait_for(pilot, lambda: "required" in str(screen.query_one("#error-1").render()))
        assert app.screen is screen
        await pilot.press(*"Ada", "enter")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        assert "Nice to meet you, Ada." in view.session.state.last_agent_text()


async def test_a_full_form_defaults_validation_and_accept(scripted):
    app = scripted(FORM)
    async with app.run_test(size=(100, 50)) as pilot:
        await ready(pilot)
        await send(pilot, "form", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen))
        screen = app.screen
        await wait_for(pilot, lambda: app.focused is not None)
        widgets = screen.widgets
        assert widgets["name"].value == "web" and widgets["replicas"].value == "2"
        assert widgets["public"].value is True
        assert isinstance(widgets["region"], RadioSet) and widgets["region"].pressed_index == 0
        assert isinstance(widgets["tags"], SelectionList) and widgets["tags"].selected == ["b"]
        await pilot.press("ctrl+s")  # the email is missing
        assert app.screen is screen and "required" in str(screen.query_one("#error-2").render())
        assert app.focused is widgets["email"]  # the first field to fix has the focus
        await pilot.press(*"ops@example.com", "tab")
        assert app.focused is widgets["replicas"]
        await pilot.press("backspace", "4")
        assert isinstance(widgets["public"], Checkbox)
        widgets["public"].focus()
        await pilot.press("space")  # unticked
        await pilot.press("ctrl+s")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        assert said(app) == {
            "action": "accept",
            "content": {
                "email": "ops@example.com",
                "name": "web",
                "public": False,
                "region": "eu",
                "replicas": 4,
                "tags": ["b"],
            },
        }


async def test_decline_and_cancel_reach_the_agent(scripted):
    app = scripted(FORM)
    async with app.run_test(size=(100, 50)) as pilot:
        await ready(pilot)
        for how, expected in (("decline", "decline"), ("escape", "cancel")):
            await send(pilot, "form", wait=False)
            await wait_for(pilot, lambda: isinstance(app.screen, FormScreen))
            await wait_for(pilot, lambda: app.screen.armed)
            if how == "decline":
                await pilot.click("#decline")
            else:
                await pilot.press("escape")
            await wait_for(pilot, lambda: not app.active_view.busy)
            assert said(app) == {"action": expected}


async def test_cancelling_the_turn_cancels_the_form(scripted):
    app = scripted(FORM)
    async with app.run_test(size=(100, 50)) as pilot:
        await ready(pilot)
        await send(pilot, "form", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen))
        await pilot.press("ctrl+c")
        view = app.active_view
        await wait_for(pilot, lambda: not view.busy)
        await wait_for(pilot, lambda: not isinstance(app.screen, FormScreen))
        assert {"action": "cancel"} in [
            m.get("result") for m in app.agent_log() if m.get("id") == 1000
        ]


async def test_url_elicitation_waits_for_completion(scripted):
    app = scripted(FORM)
    opened: list[str] = []
    app.open_url = opened.append
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        init = next(m for m in app.agent_log() if m.get("method") == "initialize")
        assert init["params"]["clientCapabilities"]["elicitation"] == {"form": {}, "url": {}}
        await send(pilot, "url", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, UrlScreen))
        assert "https://login.example.com/device?code=XYZ" in str(
            app.screen.query_one(".el-url").render()
        )
        assert opened == []  # nothing opens by itself
        await answer(pilot, "o")
        view = app.active_view
        await wait_for(pilot, lambda: view.stop_reason == "end_turn")
        assert opened == ["https://login.example.com/device?code=XYZ"]
        assert said(app) == {"action": "accept"}
        card = view.transcript.query_one(UrlCard)
        assert not card.done and "waiting for the agent" in str(card.render())
        await send(pilot, "done")
        await wait_for(pilot, lambda: card.done)
        assert "✓ done" in str(card.render())
        assert "Log in to continue" in str(card.render())
        assert "url" in transcript_source(app)
