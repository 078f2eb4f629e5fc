"""Budgets: a turn is cancelled cleanly once the agent reports crossing a limit."""

from __future__ import annotations

import asyncio
import sys

import pytest

import acphost
from acphost import AcpClient, HostConfig
from acphost import schema as s
from acphost.client import Budget, BudgetExceeded, CostStart
from acphost.client._budget import Meter, spent_since
from acphost.host import Interactive
from tests.support.fake_agent import pair_with


def _spending_agent(step_cost: float, *, used_step: int = 100, ask_at: int | None = None):
    """A prompt handler that reports usage each step until the host cancels."""

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        cancelled = asyncio.Event()
        agent.cancelled = cancelled
        for i in range(1, 1000):
            agent.update(
                sid,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": f"step {i} "},
                },
            )
            agent.update(
                sid,
                {
                    "sessionUpdate": "usage_update",
                    "used": used_step * i,
                    "size": 100_000,
                    "cost": {"amount": round(step_cost * i, 6), "currency": "USD"},
                },
            )
            if ask_at == i:
                agent.permission = asyncio.ensure_future(
                    agent.request(
                        "session/request_permission",
                        {
                            "sessionId": sid,
                            "toolCall": {"toolCallId": "t1", "title": "rm", "kind": "execute"},
                            "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
                        },
                    )
                )
            await asyncio.sleep(0)  # let the host read: it cancels when it sees the crossing
            if any(m.get("method") == "session/cancel" for m in agent.received):
                return {"stopReason": "cancelled"}
        return {"stopReason": "end_turn"}

    return prompt


async def test_a_cost_budget_cancels_the_turn_when_crossed(workspace):
    t, agent = pair_with({"session/prompt": _spending_agent(0.01)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go", budget=Budget(max_cost=0.05))
    assert result.stop_reason == "cancelled"
    assert result.budget_exceeded == BudgetExceeded("cost", 0.05, pytest.approx(0.06), "USD")
    assert result.usage_reported
    assert "session/cancel" in agent.methods()
    # cancelled at the first report over the limit, not long after
    assert "step 6 " in result.text and "step 12 " not in result.text


async def test_a_token_budget_cancels_and_answers_pending_permissions_cancelled(workspace):
    never_answered = asyncio.Event()

    async def ask(request):
        await never_answered.wait()

    host = HostConfig(permissions=Interactive(ask))
    t, agent = pair_with({"session/prompt": _spending_agent(0.0, used_step=1000, ask_at=2)})
    async with AcpClient.connect(t, host=host) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go", budget=Budget(max_tokens=3500))
        answer = await asyncio.wait_for(agent.permission, 5)
    assert result.budget_exceeded is not None and result.budget_exceeded.limit == "tokens"
    assert result.budget_exceeded.value == 4000
    assert answer["result"] == {"outcome": {"outcome": "cancelled"}}


async def test_a_session_budget_counts_across_turns(workspace):
    t, _ = pair_with({"session/prompt": _spending_agent(0.01)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        session.budget = Budget(max_cost=0.5)
        first = await session.prompt("go", budget=Budget(max_cost=0.03))
        assert first.budget_exceeded is not None and first.budget_exceeded.maximum == 0.03
        # The agent's cost is cumulative: the session meter started at 0 and has seen 0.04.
        assert session._session_meter is not None and session._session_meter.exceeded is None


async def test_no_usage_reported_means_no_budget_can_be_enforced(workspace):
    async def prompt(agent, rid, params):
        agent.update(
            params["sessionId"],
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}},
        )
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("go", budget=Budget(max_cost=0.01))
    assert result.stop_reason == "end_turn"
    assert result.budget_exceeded is None and not result.usage_reported


def test_meter_start_currency_and_a_count_begun_anew():
    def usage(amount, currency="USD", used=0):
        return s.UsageUpdate(used=used, size=10, cost=s.Cost(amount=amount, currency=currency))

    meter = Meter(Budget(max_cost=1.0, currency="USD"), None)
    assert meter.observe(usage(10.0)) is None  # no start yet: nothing can be counted
    meter.begin(CostStart(10.0, "USD", "recorded"))
    assert meter.observe(usage(99.0, "EUR")) is None  # another currency is not counted...
    assert meter.foreign_currency == "EUR"  # ...and said so
    assert meter.warning == (
        "the agent reports its cost in EUR, not in USD: the cost budget cannot be enforced"
    )
    crossed = meter.observe(usage(11.5))
    assert crossed == BudgetExceeded("cost", 1.0, 1.5, "USD")
    assert meter.observe(usage(20.0)) is None  # reported once
    assert str(crossed) == "cost budget exceeded: 1.5 USD spent > 1 USD"
    # A new session's zero fits any currency; a report below the start is a count begun anew.
    assert spent_since(CostStart(0.0, None, "new"), s.Cost(amount=0.5, currency="EUR")) == 0.5
    assert spent_since(CostStart(3.0, "USD", "recorded"), s.Cost(amount=0.5, currency="USD")) == 0.5
    assert spent_since(CostStart(3.0, "USD", "recorded"), s.Cost(amount=9, currency="EUR")) is None
    late = Meter(Budget(max_cost=1.0), CostStart(4.0, "USD", "unknown"))
    assert late.observe(usage(4.5)) is None and "first step was not counted" in late.warning
    with pytest.raises(ValueError):
        Budget(max_tokens=-1)


async def test_a_spent_session_budget_refuses_the_next_prompt_until_it_is_raised(workspace):
    t, agent = pair_with({"session/prompt": _spending_agent(0.01)})
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        session.budget = Budget(max_cost=0.03)
        first = await session.prompt("go")
        assert first.budget_exceeded is not None
        with pytest.raises(acphost.UsageError, match="budget is spent"):
            session.prompt("again")
        session.budget = Budget(max_cost=10.0)  # a new budget counts from now
        await session.prompt("go on")  # accepted again
        assert [m for m in agent.methods() if m == "session/prompt"] == ["session/prompt"] * 2


# -- the start of the count, against real demo agent processes ---------------------------

DEMO = [sys.executable, "-m", "acphost.agents.demo"]


async def _demo_session_that_spent(cwd, prompt):
    """A demo session that ran ``prompt`` in its own agent process: its id and cost."""
    async with AcpClient.start(DEMO) as client:
        session = await client.new_session(cwd)
        await session.prompt(prompt)
        assert session.cost_start == CostStart(0.0, None, "new")
        return session.id, session.state.usage.cost


async def test_a_resumed_sessions_turn_counts_from_the_recorded_cost(workspace, monkeypatch):
    """The first cost a resumed session reports includes the turn's first step: not a start."""
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    sid, cost = await _demo_session_that_spent(workspace, "spend 3")
    async with AcpClient.start(DEMO) as client:
        session = await client.resume_session(sid, workspace)
        session.set_recorded_cost(cost)
        result = await session.prompt("spend 50 0.02", budget=Budget(max_cost=0.025))
    assert result.stop_reason == "cancelled"
    crossed = result.budget_exceeded
    assert crossed is not None and crossed.limit == "cost" and 0.025 < crossed.value < 0.031
    assert session.cost_start == CostStart(cost.amount, "USD", "recorded")
    assert result.budget_warning is None
    assert session.turn_cost.amount == pytest.approx(crossed.value)


async def test_without_a_record_a_late_first_report_is_a_warned_partial_count(
    workspace, monkeypatch
):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    sid, _ = await _demo_session_that_spent(workspace, "spend 3")
    async with AcpClient.start(DEMO) as client:
        session = await client.resume_session(sid, workspace)
        result = await session.prompt("spend 3", budget=Budget(max_cost=0.025))
    # The demo reports after each step's chunk: the cost before the turn is unknown.
    assert result.stop_reason == "end_turn" and result.budget_exceeded is None
    assert session.cost_start is not None and session.cost_start.source == "unknown"
    assert result.budget_warning is not None
    assert "first step was not counted" in result.budget_warning
    assert session.turn_cost.amount == pytest.approx(0.02)  # a lower bound: 0.03 was spent


async def test_a_cost_reported_before_any_work_is_the_start(workspace, monkeypatch):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    sid, _ = await _demo_session_that_spent(workspace, "spend 3")
    async with AcpClient.start(DEMO) as client:
        session = await client.resume_session(sid, workspace)
        first = await session.prompt("usage", budget=Budget(max_cost=0.025))  # a report, no work
        assert session.cost_start.source == "first report" and first.budget_warning is None
        # The next turn starts from the agent's own last report.
        result = await session.prompt("spend 50 0.02", budget=Budget(max_cost=0.025))
    assert session.cost_start.source == "reported"
    assert result.budget_exceeded is not None and result.budget_exceeded.value > 0.025
    assert result.budget_exceeded.value < 0.031


async def test_a_budget_in_another_currency_says_it_cannot_be_enforced(workspace, monkeypatch):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    async with AcpClient.start(DEMO) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("spend 3", budget=Budget(max_cost=0.01, currency="EUR"))
    assert result.stop_reason == "end_turn" and result.budget_exceeded is None
    assert result.usage_reported
    assert result.budget_warning == (
        "the agent reports its cost in USD, not in EUR: the cost budget cannot be enforced"
    )
