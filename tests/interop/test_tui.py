"""The TUI against real third-party agents, offline."""

from __future__ import annotations

import pytest
from textual.widgets import Collapsible, Static

from acphost.config import AgentSpec
from acphost.tui import AcpApp
from acphost.tui._permission import PermissionScreen
from acphost.tui._toolcard import ReportedTerminalView, TerminalView, ToolCard
from tests.interop.conftest import known_defect, na
from tests.interop.fake_model import Text
from tests.tui.conftest import SIZE, answer, ready, transcript_source, wait_for

pytestmark = [pytest.mark.interop, pytest.mark.timeout(150)]


def app_for(agent, root, home, ws, model) -> AcpApp:
    m = None if agent.scripted else model
    argv = agent.argv(root, m)
    spec = AgentSpec(
        name=agent.name,
        command=argv[0],
        args=tuple(argv[1:]),
        env=agent.env(home, m),
        source="interop",
        missing_file_returns_empty=agent.missing_file_returns_empty,
        sandbox_write=("$VIBE_HOME",) if agent.name == "vibe" else (),  # not a preset's name
    )
    return AcpApp(spec, str(ws))


async def finish_turn(pilot, prompt: str) -> None:
    """Send a prompt and allow once whatever the agent asks, until the turn ends."""
    from acphost.tui._composer import PromptArea

    app = pilot.app
    view = app.active_view
    area = app.query_one(PromptArea)
    area.focus()
    area.load_text(prompt)
    area.move_cursor(area.document.end)
    area.close_completions()
    view.stop_reason = ""
    await pilot.press("enter")

    def done_or_asking() -> bool:
        return bool(view.stop_reason and not view.busy) or isinstance(app.screen, PermissionScreen)

    for _ in range(10):
        await wait_for(pilot, done_or_asking, timeout=90)
        if isinstance(app.screen, PermissionScreen):
            dialog = app.screen
            await answer(pilot, "a")  # once the dialog takes keys (guard and pause)
            await wait_for(pilot, lambda d=dialog: app.screen is not d)
            continue
        break
    await view.transcript.settled()


async def test_text_turn_in_the_tui(agent, agents_root, home, ws, model):
    model.script = [Text("Hello from the fake model, in the TUI.")]
    app = app_for(agent, agents_root, home, ws, model)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await finish_turn(pilot, "say hello")
        assert app.active_view.stop_reason == "end_turn"
        source = transcript_source(app)
        assert "say hello" in source
        if not agent.scripted:
            assert "Hello from the fake model, in the TUI." in source


async def test_tool_call_card_for_a_read(agent, agents_root, home, ws, model):
    na(agent, "read")
    model.script = [agent.read(str(ws / "notes.txt")), Text("I read it.")]
    app = app_for(agent, agents_root, home, ws, model)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await finish_turn(pilot, "read notes")
        view = app.active_view
        await wait_for(pilot, lambda: list(view.transcript.query(ToolCard)))
        cards = list(view.transcript.query(ToolCard))
        assert cards and any(c.call.status == "completed" for c in cards)
        assert "I read it." in transcript_source(app)


def shown(card: ToolCard) -> str:
    """What a tool card shows of the call's result: its content and terminals.

    Left out: the header (it carries the title, often the command itself) and the
    collapsed raw input.
    """
    out: list[str] = []
    for widget in card.walk_children():
        inside = widget.ancestors[: widget.ancestors.index(card)]
        if any(isinstance(a, Collapsible) for a in inside):
            continue  # the raw input, collapsed
        if isinstance(widget, (TerminalView, ReportedTerminalView)):
            out.extend(widget.lines)
        elif isinstance(widget, Static):
            out.append(str(widget.visual))
    return "\n".join(out[1:])  # out[0] is the header line


async def test_command_output_in_the_tool_card(request, agent, agents_root, home, ws, model):
    na(agent, "terminal")
    na(agent, "command output")
    if agent.shell is None:
        pytest.skip(f"not applicable: {agent.name} runs no commands")
    known_defect(request, agent, "terminal output")
    # The output differs from the command's text, which the card's title shows.
    model.script = [agent.shell("printf 'shown-%s\\n' 42"), Text("Ran it.")]
    app = app_for(agent, agents_root, home, ws, model)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await finish_turn(pilot, "run it")
        assert "shown-42" in model.tool_results()  # it ran, and the model saw its output
        view = app.active_view
        cards = [c for c in view.transcript.query(ToolCard) if c.call.kind == "execute"]
        assert cards, "the command has a card"
        assert any("shown-42" in shown(c) for c in cards), [shown(c) for c in cards]


async def test_subagent_card(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    if not agent.subagent_tree:
        pytest.skip(f"not applicable: {agent.name} runs its subagents as tool calls")
    from acphost.tui._subagents import SubagentCard
    from acphost.tui._transcript import StreamingMarkdown

    model.script = [agent.subagent("CHILD-TASK-7: reply."), Text("Parent done.")]
    model.children = {"CHILD-TASK-7": [Text("pong from the child", chunks=4, delay=0.75)]}
    app = app_for(agent, agents_root, home, ws, model)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await finish_turn(pilot, "delegate it")
        view = app.active_view
        # The child's card in the parent's transcript; codex's child goes on after
        # the turn and keeps streaming into it until it is idle.
        await wait_for(pilot, lambda: list(view.transcript.query_children(SubagentCard)))
        [card] = view.transcript.query_children(SubagentCard)
        await wait_for(pilot, lambda: "idle (end_turn)" in card.title, timeout=60)
        await view.transcript.settled()
        said = " ".join(md.source for md in card.query(StreamingMarkdown))
        assert "pong from the child" in said
        # Titled with the child's label (claude: its title; codex: its task).
        assert view.session.subagents[0].label in card.title
        assert "Parent done." in transcript_source(app)
