"""Usage in the status bar, and session budgets (``--max-cost``, ``--max-tokens``) in the TUI.

The demo's ``spend N SECONDS`` streams N steps, each reporting 1,000 more
tokens and USD 0.01 more (``usage_update``), then the turn's token counts
(``PromptResponse.usage``).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from acphost.client import Budget
from acphost.history import HistoryStore
from acphost.tui import AcpApp
from acphost.tui._notes import Notice

from .conftest import SIZE, demo_spec, ready, screen_text, send, wait_for


def notices(app) -> list[str]:
    return [str(n.render()) for n in app.active_view.transcript.query(Notice)]


def prompts_sent(app) -> int:
    return sum(
        1 for r in app.protocol.records if r.method == "session/prompt" and r.kind == "request"
    )


async def test_the_status_bar_shows_context_tokens_and_cost(make_app):
    app = make_app()
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "spend 2")
        assert "ctx 2k/200k 1% · 2k tok 0.02 USD" in screen_text(app)


async def test_a_turn_over_the_cost_budget_is_stopped_and_the_session_takes_no_more(
    tmp_path, workspace, history_store
):
    app = AcpApp(demo_spec(tmp_path), str(workspace), budget=Budget(max_cost=0.025))
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        assert "cost max 0.025" in screen_text(app)
        await send(pilot, "spend 20 0.05")
        view = app.active_view
        assert view.stop_reason == "budget"
        assert any(
            "turn stopped by the budget: cost budget exceeded: 0.03 USD spent > 0.025 USD" in n
            for n in notices(app)
        )
        assert any(r.method == "session/cancel" for r in app.protocol.records)
        assert "Step 20/20" not in view.session.state.last_agent_text()
        # The status bar shows the turn's end at its next refresh: the last cost
        # the agent reported (a step may finish before the agent reads the cancel).
        spent = view.session.state.usage.cost.amount
        assert spent >= 0.03
        await wait_for(pilot, lambda: f"{spent:.2f} USD (max 0.025)" in screen_text(app))
        assert "stop: budget" in screen_text(app)
        sent = prompts_sent(app)
        await send(pilot, "echo one more", wait=False)
        await wait_for(pilot, lambda: any("budget is spent" in n for n in notices(app)))
        assert prompts_sent(app) == sent  # nothing went to the agent
    with HistoryStore.open(str(history_store)) as store:
        [summary] = store.list_sessions()
        [turn] = store.get(summary.id).turns
    assert turn.stop_reason == "cancelled"
    assert turn.host_stop.startswith("budget: cost budget exceeded")


async def test_a_turn_over_the_token_budget_is_stopped(tmp_path, workspace):
    app = AcpApp(demo_spec(tmp_path), str(workspace), budget=Budget(max_tokens=2500))
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "spend 20 0.05")
        assert app.active_view.stop_reason == "budget"
        assert any("token budget exceeded" in n for n in notices(app))
        assert "(max 2.5k)" in screen_text(app)


async def test_an_agent_that_reports_no_usage_is_said_to_make_the_budget_unenforceable(
    scripted,
):
    app = scripted({"prompts": {}}, budget=Budget(max_cost=1))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await send(pilot, "hello again")
        warned = [n for n in notices(app) if "reported no usage" in n]
        assert len(warned) == 1  # once per session


async def test_a_budget_in_another_currency_is_said_to_be_unenforceable(tmp_path, workspace):
    """The demo reports its cost in USD: a budget in EUR cannot be held, and the
    transcript says so (once), rather than pretending."""
    app = AcpApp(demo_spec(tmp_path), str(workspace), budget=Budget(max_cost=0.01, currency="EUR"))
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "spend 3")
        await send(pilot, "spend 3")
        assert app.active_view.stop_reason == "end_turn"
        warned = [n for n in notices(app) if "not in EUR" in n]
        assert len(warned) == 1, notices(app)


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--max-cost", "-1", "--max-cost -1.0 must be a number >= 0"),
        ("--max-cost", "nan", "--max-cost nan must be a number >= 0"),
        ("--max-tokens", "-5", "--max-tokens -5 must be >= 0"),
        ("--max-tokens", "lots", "invalid int value: 'lots'"),
    ],
)
def test_a_bad_budget_flag_is_a_usage_error(workspace, flag, value, says):
    done = subprocess.run(
        [sys.executable, "-m", "acphost", "tui", str(workspace), f"{flag}={value}"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert says in done.stderr
    assert "Traceback" not in done.stderr
