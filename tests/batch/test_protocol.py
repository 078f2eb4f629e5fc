"""A batch asks each run's agent for a protocol (flag, spec, [[agent]]) and its report says it."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import pytest

from acphost.batch import load_report, load_spec
from acphost.batch._spec import SpecError

from .conftest import DEMO, acphost, plan_of

FAST = {"ACPHOST_DEMO_STEP": "0"}


def _spec(tmp_path, ws, body: str):
    spec = tmp_path / "suite.toml"
    demo = json.dumps(sys.executable)
    spec.write_text(
        f"""
prompts = ["echo hi"]
workspace = {json.dumps(str(ws))}
out = "out"
no_history = true
{body}

[[agent]]
name = "one"
command = {demo}
args = ["-m", "acphost.agents.demo"]
protocol = 1

[[agent]]
name = "two"
command = {demo}
args = ["-m", "acphost.agents.demo"]
protocol = 2
""",
        encoding="utf-8",
    )
    return spec


def test_each_run_records_the_version_agreed_and_what_was_asked(plain_ws, tmp_path):
    out = tmp_path / "out"
    args = ["batch", "-a", "demo", "--protocol", "1", "--prompt", "echo hi", "--out", str(out)]
    r = acphost([*args, "--no-history"], cwd=plain_ws, env=FAST)
    assert r.returncode == 0, r.stderr
    (run,) = json.loads((out / "report.json").read_text())["runs"]
    assert (run["protocol"], run["protocol_asked"]) == (1, 1)
    assert "\nProtocol: 1 (asked: 1)\n" in (out / "report.md").read_text()
    assert "<p>Protocol: 1 (asked: 1)</p>" in (out / "report.html").read_text()
    (outcome,) = load_report(str(out)).outcomes
    assert (outcome.protocol, outcome.protocol_asked) == (1, 1)


def test_each_agent_table_asks_for_its_own_and_the_top_level_key_wins(plain_ws, tmp_path):
    r = acphost(["batch", "--spec", str(_spec(tmp_path, plain_ws, ""))], cwd=plain_ws, env=FAST)
    assert "Traceback" not in r.stderr
    runs = {
        run["agent"]: run
        for run in json.loads((tmp_path / "out" / "report.json").read_text())["runs"]
    }
    assert (runs["one"]["protocol"], runs["one"]["protocol_asked"]) == (1, 1)
    # Asked for 2: carried to the run (which the agent agrees to, or the library refuses).
    assert runs["two"]["protocol_asked"] == 2 and runs["two"]["protocol"] in (None, 2)
    spec = _spec(tmp_path, plain_ws, "protocol = 1")
    r = acphost(["batch", "--spec", str(spec), "--retry-failed"], cwd=plain_ws, env=FAST)
    assert r.returncode == 0, r.stderr
    runs = json.loads((tmp_path / "out" / "report.json").read_text())["runs"]
    assert [(run["protocol"], run["protocol_asked"]) for run in runs] == [(1, 1), (1, 1)]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("protocol = 3", 'protocol: expected 1, 2 or "auto", got 3'),
        ('protocol = "2"', "protocol: expected 1, 2 or \"auto\", got '2'"),
        ("protocol = true", 'protocol: expected 1, 2 or "auto", got True'),
        ('mcp_tools = "yes"', "mcp_tools: expected true or false, got str"),
        (
            '[[agent]]\nname = "x"\ncommand = "x"\nprotocol = "two"',
            "agent[0].protocol: expected 1, 2 or \"auto\", got 'two'",
        ),
        (
            '[[agent]]\nname = "x"\ncommand = "x"\nmcp_tools = 1',
            "agent[0].mcp_tools: expected true or false, got int",
        ),
    ],
)
def test_a_bad_protocol_in_the_spec_is_named(tmp_path, body, says):
    spec = tmp_path / "bad.toml"
    spec.write_text(body, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(str(spec))
    assert says in str(caught.value)


def test_a_bad_protocol_in_the_spec_is_one_line_and_exit_2(plain_ws, tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('agents = ["demo"]\nprompts = ["hi"]\nprotocol = 3\n', encoding="utf-8")
    r = acphost(["batch", "--spec", str(spec)], cwd=plain_ws, env=FAST)
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert 'protocol: expected 1, 2 or "auto", got 3' in line


def test_protocol_1_keeps_the_fingerprint_of_earlier_results_and_another_changes_it(plain_ws):
    (before,) = plan_of(["echo hi"], plain_ws).runs
    (one,) = plan_of(["echo hi"], plain_ws, agents=(replace(DEMO, protocol=1),)).runs
    (auto,) = plan_of(["echo hi"], plain_ws, agents=(replace(DEMO, protocol="auto"),)).runs
    (tools,) = plan_of(["echo hi"], plain_ws, agents=(replace(DEMO, mcp_tools=True),)).runs
    assert before.fingerprint == one.fingerprint
    assert len({before.fingerprint, auto.fingerprint, tools.fingerprint}) == 3
