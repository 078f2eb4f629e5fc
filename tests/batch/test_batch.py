"""Batches on the local executor, with real agent processes (the demo agent, the wait agent)."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path

import pytest

from acphost.batch import BatchError, Limits, run_batch
from acphost.client import Budget
from acphost.history import HistoryStore
from acphost.launch import HostChoices, build_host_config
from tests.support.waiting import eventually

from .conftest import DEMO, FILES, WAIT, collect, git, pids_in, plan_of, tree, wait_gone

WRITE = functools.partial(build_host_config, HostChoices(write=True))
WIPE = "terminal sh -c 'rm -rf ./* ./.[!.]*'"


async def test_a_run_that_deletes_every_file_leaves_the_others_and_the_source_intact(
    any_ws, tmp_path
):
    plan = plan_of([WIPE, "echo hi"], any_ws, repeat=2, host=WRITE)
    _, outcomes = await collect(plan, tmp_path / "out", jobs=4)
    assert {o.status for o in outcomes.values()} == {"ok"}
    for n in range(2):
        wiped = outcomes[f"demo--p1--{n}"]
        assert sorted(c.path for c in wiped.changed_files) == sorted(FILES)
        assert {c.change for c in wiped.changed_files} == {"deleted"}
        assert outcomes[f"demo--p2--{n}"].changed_files == ()
        assert outcomes[f"demo--p2--{n}"].diff is None
    assert tree(any_ws) == FILES
    if (any_ws / ".git").exists():
        assert len(git(any_ws, "worktree", "list").splitlines()) == 1
        assert git(any_ws, "status", "--porcelain") == ""


async def test_runs_write_their_own_copies_and_the_diff_says_what_changed(any_ws, tmp_path):
    plan = plan_of(
        ["terminal sh -c 'echo new > made.txt; echo changed > hello.py'"],
        any_ws,
        host=WRITE,
        repeat=3,
    )
    _, outcomes = await collect(plan, tmp_path / "out", jobs=3)
    for outcome in outcomes.values():
        assert [(c.path, c.change) for c in outcome.changed_files] == [
            ("hello.py", "modified"),
            ("made.txt", "added"),
        ]
        patch = (tmp_path / "out" / outcome.diff).read_text()
        assert "+changed" in patch and "+new" in patch and '-print("hello")' in patch
    assert tree(any_ws) == FILES


async def test_the_report_contract(git_ws, tmp_path):
    out = tmp_path / "out"
    plan = plan_of(["echo hi", "usage", "crash"], git_ws)
    batch, _ = await collect(plan, out, jobs=2)
    report = json.loads((out / "report.json").read_text())
    assert len(report["runs"]) == 3
    keys = {
        "id",
        "agent",
        "prompt_id",
        "prompt",
        "repeat",
        "status",
        "stop_reason",
        "duration_s",
        "final_text",
        "usage",
        "changed_files",
        "diff",
        "trace",
        "error",
    }
    for run in report["runs"]:
        assert keys <= set(run)
        assert run["status"] in ("ok", "error", "timeout", "cancelled", "budget")
        assert isinstance(run["duration_s"], float) and run["duration_s"] > 0
        trace = out / run["trace"]
        assert (
            trace.is_file()
            and json.loads(trace.read_text().splitlines()[0])["method"] == "initialize"
        )
    by_prompt = {r["prompt"]: r for r in report["runs"]}
    assert by_prompt["echo hi"]["final_text"].startswith("hi")
    assert (
        by_prompt["echo hi"]["stop_reason"] == "end_turn" and by_prompt["echo hi"]["error"] is None
    )
    assert by_prompt["usage"]["usage"]["cost"]["currency"] == "USD"
    assert by_prompt["usage"]["usage"]["context_size"] == 200000
    assert report["summary"]["ok"] == 2 and report["summary"]["error"] == 1
    cell = next(c for c in report["cells"] if c["prompt_id"] == "p1")
    assert cell["success_rate"] == 1.0 and cell["runs"] == 1
    assert (out / "report.md").read_text().startswith("# acphost batch report")
    assert "<table>" in (out / "report.html").read_text()
    assert batch.report_paths == [str(out / f"report.{x}") for x in ("json", "md", "html")]


async def test_a_crashing_agent_among_healthy_ones(plain_ws, tmp_path):
    plan = plan_of(["crash", "echo fine"], plain_ws, repeat=2)
    _, outcomes = await collect(plan, tmp_path / "out", jobs=4)
    for n in range(2):
        crashed, healthy = outcomes[f"demo--p1--{n}"], outcomes[f"demo--p2--{n}"]
        assert crashed.status == "error" and "exited with code 3" in crashed.error.message
        assert "crashing on purpose" in crashed.error.stderr_tail
        assert healthy.status == "ok" and healthy.final_text.startswith("fine")


async def test_an_agent_that_cannot_start_is_an_error_of_its_runs(plain_ws, tmp_path):
    from acphost.config import AgentSpec

    missing = AgentSpec(name="missing", command="/nonexistent/agent")
    plan = plan_of(["echo hi"], plain_ws, agents=(missing, DEMO))
    _, outcomes = await collect(plan, tmp_path / "out")
    assert outcomes["missing--p1--0"].status == "error"
    assert "cannot start the agent 'missing'" in outcomes["missing--p1--0"].error.message
    assert outcomes["demo--p1--0"].status == "ok"


async def test_timeout_cancels_the_turn_and_ends_the_agent(plain_ws, tmp_path, monkeypatch):
    monkeypatch.setenv("WAIT_AGENT_PIDFILE_DIR", str(tmp_path))
    plan = plan_of(
        ["wait 60", "ignore-cancel 60"],
        plain_ws,
        agents=(WAIT,),
        limits=Limits(timeout=0.5, cancel_grace=0.5),
    )
    _, outcomes = await collect(plan, tmp_path / "out", jobs=2)
    polite, stubborn = outcomes["wait--p1--0"], outcomes["wait--p2--0"]
    assert polite.status == "timeout" and polite.stop_reason == "cancelled"
    assert "longer than 0.5 s" in polite.error.message
    assert stubborn.status == "timeout" and stubborn.stop_reason is None
    assert wait_gone(pids_in(tmp_path)) == []
    trace = (tmp_path / "out" / polite.trace).read_text()
    assert '"session/cancel"' in trace


@pytest.mark.parametrize(
    ("budget", "needle"),
    [
        (Budget(max_tokens=0), "token budget exceeded"),
        (Budget(max_cost=0.0, currency="USD"), "cost budget exceeded"),
    ],
)
async def test_a_budget_stops_the_run(plain_ws, tmp_path, budget, needle):
    plan = plan_of(["spend 3", "echo within"], plain_ws, limits=Limits(budget=budget))
    _, outcomes = await collect(plan, tmp_path / "out")
    assert outcomes["demo--p1--0"].status == "budget"
    assert needle in outcomes["demo--p1--0"].error.message
    assert outcomes["demo--p2--0"].status == "ok"  # never reported usage: nothing to enforce


async def test_cancel_mid_batch_cancels_the_turns_and_leaves_no_process(
    git_ws, tmp_path, monkeypatch
):
    monkeypatch.setenv("WAIT_AGENT_PIDFILE_DIR", str(tmp_path))
    plan = plan_of(["wait 60"], git_ws, agents=(WAIT,), repeat=5)
    batch = run_batch(plan, str(tmp_path / "out"), jobs=2)
    seen = []

    def prompted():  # the traces show both turns started
        traces = (tmp_path / "out").glob("runs/*/trace.jsonl")
        return sum('"session/prompt"' in p.read_text() for p in traces) == 2

    async def cancel_when_running():
        await eventually(prompted, what="two turns running")
        batch.cancel()

    canceller = asyncio.create_task(cancel_when_running())
    async for outcome in batch:
        seen.append(outcome)
    await canceller
    assert [o.status for o in seen] == ["cancelled", "cancelled"]
    assert all(o.stop_reason == "cancelled" for o in seen)
    assert wait_gone(pids_in(tmp_path)) == []
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["summary"]["cancelled"] == 2 and report["summary"]["not_run"] == 3


async def test_rerunning_skips_finished_runs_and_redoes_changed_or_cancelled_ones(
    plain_ws, tmp_path
):
    out = tmp_path / "out"
    await collect(plan_of(["echo one", "echo two"], plain_ws), out)
    first = (out / "runs" / "demo--p1--0" / "result.json").read_text()
    batch, again = await collect(plan_of(["echo one", "echo two"], plain_ws), out)
    assert again == {} and batch.skipped == 2 and len(batch.outcomes) == 2
    assert (out / "runs" / "demo--p1--0" / "result.json").read_text() == first
    _, changed = await collect(plan_of(["echo one", "echo three"], plain_ws), out)
    assert list(changed) == ["demo--p2--0"]  # the prompt changed: its fingerprint too
    _, retried = await collect(plan_of(["echo one", "crash"], plain_ws), out, retry_failed=True)
    assert list(retried) == ["demo--p2--0"]
    _, retried = await collect(plan_of(["echo one", "crash"], plain_ws), out, retry_failed=True)
    assert list(retried) == ["demo--p2--0"]  # still failing: retried again


async def test_one_batch_at_a_time_per_output_directory(plain_ws, tmp_path):
    out = tmp_path / "out"
    first = run_batch(plan_of(["echo one"], plain_ws), str(out))
    iterator = aiter(first)
    await anext(iterator)
    with pytest.raises(BatchError, match="another acphost batch"):
        await collect(plan_of(["echo one"], plain_ws), out)
    await iterator.aclose()


async def test_runs_are_recorded_in_the_history(plain_ws, tmp_path):
    store = HistoryStore.open(str(tmp_path / "history.sqlite3"))
    try:
        _, outcomes = await collect(
            plan_of(["echo hi"], plain_ws, repeat=3), tmp_path / "out", history=store
        )
        ids = {o.history_id for o in outcomes.values()}
        assert None not in ids and len(ids) == 3
        for history_id in ids:
            record = store.get(history_id)
            assert record.agent == "demo" and record.turns[0].prompt == "echo hi"
    finally:
        store.close()


async def test_kept_workspaces_hold_the_runs_changes(git_ws, tmp_path):
    plan = plan_of(["terminal sh -c 'echo kept > kept.txt'"], git_ws, host=WRITE)
    _, outcomes = await collect(plan, tmp_path / "out", keep_workspaces=True)
    kept = Path(outcomes["demo--p1--0"].workspace)
    assert kept == tmp_path / "out" / "workspaces" / "demo--p1--0"
    assert (kept / "kept.txt").read_text() == "kept\n"
    assert not (git_ws / "kept.txt").exists()


async def test_an_agent_writing_by_itself_stays_in_its_workspace(git_ws, tmp_path):
    plan = plan_of(["touch mine.txt"], git_ws, agents=(WAIT,), repeat=3)
    _, outcomes = await collect(plan, tmp_path / "out", jobs=3)
    assert all([c.path for c in o.changed_files] == ["mine.txt"] for o in outcomes.values())
    assert not (git_ws / "mine.txt").exists()


async def test_cancel_while_the_agents_start(git_ws, tmp_path, monkeypatch):
    monkeypatch.setenv("WAIT_AGENT_PIDFILE_DIR", str(tmp_path))
    plan = plan_of(["wait 60"], git_ws, agents=(WAIT,), repeat=6)
    batch = run_batch(plan, str(tmp_path / "out"), jobs=4)

    async def cancel_at_once():
        await eventually(lambda: batch.progress().running == 4, what="four runs submitted")
        batch.cancel()

    canceller = asyncio.create_task(cancel_at_once())
    seen = [o async for o in batch]
    await canceller
    assert [o.status for o in seen] == ["cancelled"] * 4
    assert wait_gone(pids_in(tmp_path)) == []
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1
    assert not list((tmp_path / "out").glob("runs/*/workspace.json"))


async def test_secrets_given_to_the_agent_are_redacted_from_results(plain_ws, tmp_path):
    from dataclasses import replace

    secret = "sk-live-0123456789abcdef"
    agent = replace(DEMO, env={**DEMO.env, "MY_SERVICE_TOKEN": secret})
    _, outcomes = await collect(
        plan_of([f"echo the key is {secret}"], plain_ws, agents=(agent,)), tmp_path / "out"
    )
    outcome = outcomes["demo--p1--0"]
    assert outcome.status == "ok" and secret not in outcome.final_text
    assert "the key is" in outcome.final_text
    assert secret not in (tmp_path / "out" / outcome.trace).read_text()
    assert secret not in (tmp_path / "out" / "report.html").read_text()


async def test_an_output_directory_inside_a_plain_workspace_is_not_copied(plain_ws):
    out = plain_ws / "results"
    plan = plan_of(["terminal sh -c 'ls -a > listing.txt'"], plain_ws, host=WRITE)
    _, outcomes = await collect(plan, out)
    patch = (out / outcomes["demo--p1--0"].diff).read_text()
    assert "+hello.py" in patch and "results" not in patch
