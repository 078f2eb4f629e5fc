"""The pieces without agents: plans, prompts files, spec files, stored outcomes, reports."""

from __future__ import annotations

import importlib
import json

import pytest
from markdown_it import MarkdownIt

from acphost.batch import (
    ChangedFile,
    OutcomeError,
    PlanError,
    Prompt,
    RunError,
    RunOutcome,
    WorkspaceSource,
    load_spec,
    make_plan,
    numbered,
    read_prompts,
)
from acphost.batch._html import render_html
from acphost.batch._report import Report, md_fence, md_inline, render_markdown

from .conftest import DEMO, WAIT

SOURCE = WorkspaceSource("/tmp/ws")


def test_the_public_names_are_pinned():
    module = importlib.import_module("acphost.batch")
    assert sorted(module.__all__) == sorted(
        [
            "STATUSES",
            "Batch",
            "BatchError",
            "ChangedFile",
            "Executor",
            "ExecutorError",
            "HostFactory",
            "Limits",
            "LocalExecutor",
            "OutDir",
            "OutcomeError",
            "Plan",
            "PlanError",
            "Progress",
            "Prompt",
            "RayExecutor",
            "Report",
            "Run",
            "RunError",
            "RunHandle",
            "RunOutcome",
            "Setup",
            "WorkspaceError",
            "WorkspaceSource",
            "inspect_workspace",
            "load_report",
            "load_spec",
            "make_plan",
            "numbered",
            "read_prompts",
            "run_batch",
            "uncommitted_changes",
            "write_reports",
        ]
    )
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_plans_order_runs_and_give_stable_ids():
    plan = make_plan([DEMO, WAIT], numbered(["a", "b"]), workspace=SOURCE, repeat=2)
    assert [r.id for r in plan.runs[:4]] == [
        "demo--p1--0",
        "wait--p1--0",
        "demo--p2--0",
        "wait--p2--0",
    ]
    assert len(plan.runs) == 8 and plan.runs[-1].id == "wait--p2--1"
    again = make_plan([DEMO, WAIT], numbered(["a", "b"]), workspace=SOURCE, repeat=2)
    assert [r.fingerprint for r in plan.runs] == [r.fingerprint for r in again.runs]
    other = make_plan([DEMO], numbered(["a changed"]), workspace=SOURCE)
    assert (
        other.runs[0].id == plan.runs[0].id
        and other.runs[0].fingerprint != plan.runs[0].fingerprint
    )


@pytest.mark.parametrize(
    ("agents", "prompts", "repeat", "needle"),
    [
        ([], [Prompt("p", "x")], 1, "no agent"),
        ([DEMO], [], 1, "no prompt"),
        ([DEMO], [Prompt("p", "x")], 0, "--repeat must be at least 1"),
        ([DEMO, DEMO], [Prompt("p", "x")], 1, "agent name 'demo' is given twice"),
        ([DEMO], [Prompt("p", "x"), Prompt("p", "y")], 1, "prompt id 'p' is given twice"),
        ([DEMO], [Prompt("a/b", "x"), Prompt("a b", "y")], 1, "give the same run id"),
    ],
)
def test_bad_plans_are_refused(agents, prompts, repeat, needle):
    with pytest.raises(PlanError, match=needle):
        make_plan(agents, prompts, workspace=SOURCE, repeat=repeat)


def test_prompts_files_lines_and_jsonl(tmp_path):
    lines = tmp_path / "p.txt"
    lines.write_text("fix the bug\n\n  add a test\n")
    assert [(p.id, p.text) for p in read_prompts(str(lines), start=3)] == [
        ("p3", "fix the bug"),
        ("p4", "  add a test"),
    ]
    (tmp_path / "task").mkdir()
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text(
        '{"id": "one", "prompt": "a\\nb"}\n{"id": 2, "prompt": "c", "workspace": "task"}\n'
    )
    prompts = read_prompts(str(jsonl))
    assert [(p.id, p.text) for p in prompts] == [("one", "a\nb"), ("2", "c")]
    assert prompts[1].workspace.path == str((tmp_path / "task").resolve())


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"id": "x"}\n', "expected"),
        ('{"id": "x", "prompt": "a"}\nnot json\n', "p.jsonl: invalid JSON at line 2 column 1"),
        ('{"id": true, "prompt": "a"}\n', "id must be"),
        ('{"prompt": " "}\n', "the prompt is empty"),
        ('{"prompt": "a", "workspace": "missing"}\n', "not a directory"),
        ("\n\n", "has no prompt"),
    ],
)
def test_bad_prompts_files_name_the_line(tmp_path, text, needle):
    path = tmp_path / "p.jsonl"
    path.write_text(text)
    with pytest.raises(PlanError, match=needle):
        read_prompts(str(path))


def test_spec_files_are_checked_key_by_key(tmp_path):
    (tmp_path / "tasks").mkdir()
    spec = tmp_path / "s.toml"
    spec.write_text(
        'agents = ["demo"]\nrepeat = 2\ntimeout = 1.5\nworkspace = "."\nwrite = true\n'
        'approve = "all"\n[[agent]]\nname = "mine"\ncommand = "x"\nargs = ["--acp"]\n'
        'env = { K = "v" }\n[[prompt]]\nid = "t"\ntext = "do it"\nworkspace = "tasks"\n'
    )
    data = load_spec(str(spec))
    assert data["agents"] == ["demo"] and data["repeat"] == 2 and data["timeout"] == 1.5
    assert data["workspace"] == str(tmp_path) and data["write"] is True
    assert data["agent_specs"][0].argv == ["x", "--acp"] and dict(data["agent_specs"][0].env) == {
        "K": "v"
    }
    assert data["prompt_items"][0].workspace.path == str((tmp_path / "tasks").resolve())
    for text, needle in [
        ("repeat = '2'", "repeat: expected an integer, got str"),
        ("write = 1", "write: expected true or false"),
        ("approve = 'some'", "approve: expected one of all, reads, deny"),
        ("prompts = [1]", r"prompts\[0\]: expected a string"),
        ("[[agent]]\nname = 'x'", r"agent\[0\].command: missing"),
        ("[[prompt]]\nid = 'x'\ntext = 'y'\nextra = 1", r"prompt\[0\].extra: unknown key"),
        ("colour = 'blue'", "colour: unknown key"),
        ("repeat = ", "not valid TOML"),
    ]:
        spec.write_text(text + "\n")
        with pytest.raises(PlanError, match=needle):
            load_spec(str(spec))


def _outcome(**kw):
    base = dict(
        id="demo--p1--0",
        agent="demo",
        prompt_id="p1",
        prompt="x",
        repeat=0,
        status="ok",
        stop_reason="end_turn",
        duration_s=1.5,
        final_text="done",
        usage={"total_tokens": 1200, "cost": {"amount": 0.02, "currency": "USD"}},
        changed_files=(ChangedFile("a.py", "modified"),),
        diff="runs/demo--p1--0/diff.patch",
        trace="runs/demo--p1--0/trace.jsonl",
        error=None,
    )
    base.update(kw)
    return RunOutcome(**base)


def test_outcomes_round_trip_and_bad_ones_name_the_field():
    outcome = _outcome(error=RunError("boom", "tail"))
    assert RunOutcome.from_json(json.loads(json.dumps(outcome.to_json()))) == outcome
    data = outcome.to_json()
    data["status"] = "maybe"
    with pytest.raises(OutcomeError, match=r"run\.status: 'maybe' is not one of"):
        RunOutcome.from_json(data)
    data = outcome.to_json()
    data["repeat"] = "0"
    with pytest.raises(OutcomeError, match=r"run\.repeat: expected int, got str"):
        RunOutcome.from_json(data)


def _report(tmp_path, outcomes):
    plan = {
        "agents": ["demo", "other"],
        "prompts": [{"id": "p1", "prompt": "x"}],
        "runs": [{"id": o.id} for o in outcomes],
        "repeat": 2,
    }
    return Report(str(tmp_path), plan, tuple(outcomes))


def test_cells_aggregate_the_repetitions(tmp_path):
    report = _report(
        tmp_path,
        [
            _outcome(),
            _outcome(
                id="demo--p1--1",
                repeat=1,
                duration_s=2.5,
                status="error",
                stop_reason=None,
                usage={"input_tokens": 100, "output_tokens": 200},
            ),
        ],
    )
    cell = report.cell("demo", "p1")
    assert cell.succeeded == 1 and cell.success_rate == 0.5
    assert cell.median_duration == 2.0 and cell.mean_tokens == 750
    assert cell.mean_cost == {"USD": 0.02}
    assert cell.summary() == "1/2 ok · 2.0 s · 750 tok · 0.0200 USD"
    assert report.cell("other", "p1").summary() == "not run"
    data = report.to_json()
    assert data["summary"]["ok"] == 1 and data["summary"]["error"] == 1
    assert data["summary"]["cost"] == {"USD": 0.02}


def test_agent_text_cannot_escape_markdown_or_html(tmp_path):
    hostile = "```\n# Injected heading\n<script>alert(1)</script>\x1b]0;x\x07 [link](http://e.x)"
    outcome = _outcome(final_text=hostile, agent="demo", error=RunError("<img src=x onerror=y>"))
    report = _report(tmp_path, [outcome])
    md = render_markdown(report)
    # The final text is the agent's Markdown, in a block quote it cannot
    # leave: the fence it left open holds the rest of it and is closed where
    # it ends, inside the quote, so the report goes on after it.
    agents = (
        "> ```\n> # Injected heading\n> <script>alert(1)</script>\\x1b]0;x\\x07 "
        "[link](http://e.x)\n> ```\n"
    )
    assert agents in md
    assert "\x1b" not in md and "\\x1b]0;x\\x07" in md
    rendered = MarkdownIt("commonmark").render(md.partition(agents)[2])
    assert "<pre>" not in rendered and "<code>" not in rendered  # nothing after it is code
    html = render_html(report)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<img" not in html and "\x1b" not in html
    assert md_inline("a|b *c* <d>") == "a\\|b \\*c\\* \\<d\\>"
    assert md_fence("``` x").startswith("````\n")
