"""``--unstable``: renaming (F6, ``session/set_title``) and archiving (F7, ``session/archive``).

The demo agent advertises both in its ``sessionCapabilities`` (the unstable
shape); without ``--unstable`` the app neither offers nor sends them.
"""

from __future__ import annotations

from acphost.history import HistoryStore
from acphost.tui import AcpApp
from acphost.tui._dialogs import TextScreen
from acphost.tui._history_screen import HistoryScreen

from .conftest import SIZE, demo_spec, ready, screen_text, send, sent_methods, wait_for


def tab_labels(app) -> list[str]:
    from textual.widgets import Tab

    return [str(tab.label) for tab in app.query(Tab)]


async def test_f6_renames_the_session_with_set_title(tmp_path, workspace, history_store):
    app = AcpApp(demo_spec(tmp_path), str(workspace), unstable=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo first")
        view = app.active_view
        await pilot.press("f6")
        await wait_for(pilot, lambda: isinstance(app.screen, TextScreen))
        await pilot.press(*"Parser", "space", *"work", "enter")  # replaces the selected title
        await wait_for(pilot, lambda: view.session.state.title == "Parser work")
        assert "session/set_title" in sent_methods(app)
        await wait_for(pilot, lambda: any("Parser work" in label for label in tab_labels(app)))
        assert "Parser work" in screen_text(app)
    with HistoryStore.open(str(history_store)) as store:
        [summary] = store.list_sessions()
    assert summary.title == "Parser work"  # the history keeps the new title


async def test_f7_archives_the_session_and_closes_its_tab(tmp_path, workspace):
    app = AcpApp(demo_spec(tmp_path), str(workspace), unstable=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo keep me")
        kept = app.active_view.session.id
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: len(app.views()) == 2)
        await send(pilot, "echo archive me")
        archived = app.active_view.session.id
        await pilot.press("f7")
        await wait_for(pilot, lambda: len(app.views()) == 1)
        assert "session/archive" in sent_methods(app)
        assert app.active_view.session.id == kept
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        theirs = [r.value for r in app.screen.shown if r.source == "agent"]
        assert kept in theirs and archived not in theirs  # session/list leaves archived out


async def test_without_unstable_nothing_unstable_is_offered_or_sent(make_app):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "echo plain")
        await pilot.press("f6")
        await pilot.press("f7")
        await pilot.pause()
        assert not isinstance(app.screen, TextScreen)
        assert len(app.views()) == 1
        said = [n.message for n in app._notifications]
        assert any("session/set_title is an unstable ACP method" in m for m in said)
        assert any("--unstable" in m for m in said)
        methods = sent_methods(app)
        assert not {"session/set_title", "session/archive", "session/status", "auth/status"} & set(
            methods
        )
        init = next(r for r in app.protocol.records if r.method == "initialize")
        assert "unstable" not in str(init.payload).lower()
