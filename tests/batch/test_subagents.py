"""A batch run's subagents: listed in its outcome and reports; a spec may turn them off.

Real ``acphost batch`` processes, the demo agent's ``subagent`` keyword as a
real subprocess: ``background`` answers the prompt first and lets the child
go on after it (``wait`` holds the child's tool call that long), so the run
must wait for it before its outcome is made.
"""

from __future__ import annotations

import json
import sys

import pytest

from acphost.batch import RunOutcome, load_report
from acphost.batch._html import render_html
from acphost.batch._model import OutcomeError
from acphost.batch._report import Report, render_markdown

from .conftest import acphost, collect, plan_of

FAST = {"ACPHOST_DEMO_STEP": "0"}


def _runs(out):
    return json.loads((out / "report.json").read_text())["runs"]


def test_a_background_subagent_is_in_the_runs_outcome_and_reports(plain_ws, tmp_path):
    out = tmp_path / "out"
    r = acphost(
        ["batch", "-a", "demo", "--prompt", "subagent background wait 2 look it up",
         "--out", str(out), "--no-history"],
        cwd=plain_ws, env=FAST,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    (run,) = _runs(out)
    assert run["status"] == "ok" and run["final_text"].startswith("Started the subagent")
    (child,) = run["subagents"]
    assert child["id"].endswith(":sub-1")
    # The run waited for the child, which went on after the prompt's answer.
    assert {k: child[k] for k in ("label", "activity", "stop_reason", "text")} == {
        "label": "helper 1",
        "activity": "idle",
        "stop_reason": "end_turn",
        "text": "Working on: look it up",
    }
    md = (out / "report.md").read_text()
    assert "Subagents:\n\n- helper 1 · idle (end\\_turn): Working on: look it up\n" in md
    html = (out / "report.html").read_text()
    assert "<li>helper 1 · idle (end_turn): Working on: look it up</li>" in html
    # Read back (``batch report``), the outcome keeps them.
    (outcome,) = load_report(str(out)).outcomes
    assert outcome.subagents == (child,)


async def test_without_subagents_the_agent_gets_no_capability(plain_ws, tmp_path):
    plan = plan_of(["subagent look it up"], plain_ws, subagents=False)
    _, outcomes = await collect(plan, tmp_path / "out")
    (outcome,) = outcomes.values()
    assert outcome.status == "ok" and outcome.subagents == ()
    # The demo agent falls back to one tool call, as claude-agent-acp does.
    assert outcome.final_text == "The subagent answered: Done: look it up"
    trace = tmp_path / "out" / (outcome.trace or "")
    init = json.loads(trace.read_text().splitlines()[0])
    assert "subagents" not in init["params"]["clientCapabilities"]
    # It is another run than one with subagents: a resume does not take its result.
    with_them = plan_of(["subagent look it up"], plain_ws)
    assert with_them.runs[0].fingerprint != plan.runs[0].fingerprint


def test_a_spec_sets_subagents_false(plain_ws, tmp_path):
    spec = tmp_path / "suite.toml"
    demo = json.dumps(sys.executable)
    spec.write_text(
        f"""
prompts = ["subagent look it up"]
workspace = {json.dumps(str(plain_ws))}
out = "out"
no_history = true
subagents = false

[[agent]]
name = "demo"
command = {demo}
args = ["-m", "acphost.agents.demo"]
""",
        encoding="utf-8",
    )
    r = acphost(["batch", "--spec", str(spec)], cwd=plain_ws, env=FAST)
    assert r.returncode == 0, r.stderr
    (run,) = _runs(tmp_path / "out")
    assert run["subagents"] == []
    assert run["final_text"] == "The subagent answered: Done: look it up"
    spec.write_text(spec.read_text().replace("subagents = false", 'subagents = "no"'))
    r = acphost(["batch", "--spec", str(spec)], cwd=plain_ws, env=FAST)
    assert r.returncode == 2 and "subagents: expected true or false, got str" in r.stderr


def _outcome(**kw):
    return RunOutcome(id="r", agent="a", prompt_id="p", prompt="x", repeat=0, status="ok", **kw)


def test_an_outcomes_subagents_are_checked_when_read_back():
    child = {"id": "c", "label": "l", "activity": "idle", "stop_reason": None, "text": "t"}
    assert RunOutcome.from_json(_outcome(subagents=(child,)).to_json()).subagents == (child,)
    assert RunOutcome.from_json({**_outcome().to_json(), "subagents": None}).subagents == ()
    with pytest.raises(OutcomeError, match=r"run\.subagents\[0\]\.id: missing"):
        RunOutcome.from_json({**_outcome().to_json(), "subagents": [{"label": "l"}]})
    with pytest.raises(OutcomeError, match=r"run\.subagents\[0\]\.text: expected str, got int"):
        RunOutcome.from_json({**_outcome().to_json(), "subagents": [{"id": "c", "text": 1}]})


def test_a_subagents_line_is_inert_in_both_reports(tmp_path):
    child = {"id": "c", "label": "<b>x</b> [l](http://e.x)", "activity": "idle",
             "stop_reason": None, "text": "a\n# heading\n<script>alert(1)</script>"}  # fmt: skip
    report = Report(str(tmp_path), {"runs": [{"id": "r"}]}, (_outcome(subagents=(child,)),))
    md = render_markdown(report)
    (line,) = [x for x in md.splitlines() if "heading" in x]
    assert line == (
        "- \\<b\\>x\\</b\\> \\[l\\](http\\:\\//e\\.x) · idle: "
        "a # heading \\<script\\>alert(1)\\</script\\>"
    )
    html = render_html(report)
    assert "<script>" not in html and "<b>x</b>" not in html
