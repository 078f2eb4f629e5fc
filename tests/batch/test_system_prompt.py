"""A batch's system prompt: every run's session gets it; a run whose agent cannot take it fails.

Real ``acphost batch`` processes, the demo agent as a real subprocess; its
``system`` keyword answers with the system prompt it received.
"""

from __future__ import annotations

import json
import sys

import pytest

from acphost.batch import load_spec
from acphost.batch._spec import SpecError

from .conftest import acphost, collect, plan_of

FAST = {"ACPHOST_DEMO_STEP": "0", "ACPHOST_DEMO_MEMORY": "1"}


def _spec(tmp_path, ws, body: str):
    (tmp_path / "prompts").mkdir(exist_ok=True)
    (tmp_path / "prompts" / "sp.md").write_text("Be brief.", encoding="utf-8")
    spec = tmp_path / "suite.toml"
    demo = json.dumps(sys.executable)
    spec.write_text(
        f"""
prompts = ["system"]
workspace = {json.dumps(str(ws))}
out = "out"
no_history = true
{body}

[[agent]]
name = "takes-it"
command = {demo}
args = ["-m", "acphost.agents.demo"]

[[agent]]
name = "plain"
command = {demo}
args = ["-m", "acphost.agents.demo"]
env = {{ ACPHOST_DEMO_SYSTEM_PROMPT = "none" }}
""",
        encoding="utf-8",
    )
    return spec


def test_the_spec_prompt_reaches_each_session_and_an_agent_that_cannot_take_it_fails(
    plain_ws, tmp_path
):
    spec = _spec(tmp_path, plain_ws, 'system_prompt = "@prompts/sp.md"')
    r = acphost(["batch", "--spec", str(spec)], cwd=plain_ws, env=FAST)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    runs = {run["agent"]: run for run in report["runs"]}
    assert runs["takes-it"]["status"] == "ok"
    assert runs["takes-it"]["final_text"] == "system prompt (append): Be brief."
    assert runs["plain"]["status"] == "error"
    assert runs["plain"]["error"]["message"] == (
        "agent 'plain' cannot take a system prompt: it supports no system prompt "
        "(it does not advertise sessionCapabilities.systemPrompt)"
    )


def test_the_flags_win_over_the_spec(plain_ws, tmp_path):
    spec = tmp_path / "suite.toml"
    spec.write_text(
        f'prompts = ["system"]\nworkspace = {json.dumps(str(plain_ws))}\nout = "out"\n'
        'no_history = true\nagents = ["demo"]\nsystem_prompt = "from the spec"\n',
        encoding="utf-8",
    )
    args = ["batch", "--spec", str(spec), "--system-prompt", "from the flag"]
    r = acphost([*args, "--system-prompt-mode", "override"], cwd=plain_ws, env=FAST)
    assert r.returncode == 0, r.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    (run,) = report["runs"]
    assert run["final_text"] == "system prompt (override): from the flag"


async def test_a_run_carries_its_system_prompt_and_it_changes_the_fingerprint(plain_ws, tmp_path):
    plan = plan_of(["system"], plain_ws, system_prompt="plan-wide", system_prompt_mode="override")
    (run,) = plan.runs
    assert (run.system_prompt, run.system_prompt_mode) == ("plan-wide", "override")
    assert run.fingerprint != plan_of(["system"], plain_ws).runs[0].fingerprint
    _, outcomes = await collect(plan, tmp_path / "out")
    (outcome,) = outcomes.values()
    assert outcome.final_text == "system prompt (override): plan-wide"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('system_prompt = ""', "system_prompt: the system prompt is empty"),
        ('system_prompt_mode = "replace"', "system_prompt_mode: expected one of append, override"),
        ("system_prompt = 3", "system_prompt: expected a string"),
        (
            '[[agent]]\nname = "x"\ncommand = "x"\nsystem_prompt_mode = "other"',
            "agent[0].system_prompt_mode: expected one of append, override",
        ),
    ],
)
def test_a_bad_spec_value_is_named(tmp_path, body, says):
    spec = tmp_path / "bad.toml"
    spec.write_text(body, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(spec))
    assert says in str(caught.value)
