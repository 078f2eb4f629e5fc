"""``acphost batch --protocol 2``: runs on ACP v2, the reports say it, the traces validate.

The real command (a whole process) runs the demo agent on v2 in isolated
copies of a plain workspace and the scripted claude-agent-acp imitation; the
report records the version agreed and what was asked for each run.
"""

from __future__ import annotations

import json
import shlex

from acphost.batch import load_report
from tests.support import v2_agent

from .conftest import acphost

FAST = {"ACPHOST_DEMO_STEP": "0"}


def _runs(out) -> dict[str, dict]:
    report = json.loads((out / "report.json").read_text())
    return {run["prompt"]: run for run in report["runs"]}


def test_a_v2_batch_records_protocol_2_and_its_runs_pass(plain_ws, tmp_path):
    out = tmp_path / "out"
    prompts = ["write new.txt hello", "tool", "subagent hi"]
    args = ["batch", "-a", "demo", "--protocol", "2", "--write", "--out", str(out)]
    for prompt in prompts:
        args += ["--prompt", prompt]
    r = acphost([*args, "--no-history"], cwd=plain_ws, env=FAST)
    assert r.returncode == 0, r.stderr
    runs = _runs(out)
    assert sorted(runs) == sorted(prompts)
    for run in runs.values():
        assert (run["status"], run["stop_reason"]) == ("ok", "end_turn"), run
        assert (run["protocol"], run["protocol_asked"]) == (2, 2)
        # Each run's trace is a v2 trace the validator accepts.
        trace = out / run["trace"]
        assert '"protocolVersion":2' in trace.read_text()
        v = acphost(["validate", str(trace)], cwd=plain_ws)
        assert v.returncode == 0, v.stdout + v.stderr
    # The write went through the acphost MCP server into the run's own copy.
    assert runs["write new.txt hello"]["changed_files"] == [{"path": "new.txt", "change": "added"}]
    assert not (plain_ws / "new.txt").exists()
    (child,) = runs["subagent hi"]["subagents"]
    assert (child["label"], child["stop_reason"]) == ("helper 1", "end_turn")
    assert "\nProtocol: 2 (asked: 2)\n" in (out / "report.md").read_text()
    assert {(o.protocol, o.protocol_asked) for o in load_report(str(out)).outcomes} == {(2, 2)}


def test_a_failed_v2_run_is_an_error_with_the_agents_message(plain_ws, tmp_path):
    out = tmp_path / "out"
    args = ["batch", "-a", "demo", "--protocol", "2", "--prompt", "error", "--out", str(out)]
    r = acphost([*args, "--no-history"], cwd=plain_ws, env=FAST)
    assert r.returncode == 1, r.stderr
    (run,) = _runs(out).values()
    assert run["status"] == "error" and run["protocol"] == 2
    assert run["error"]["message"] == (
        "the agent answered an error: Internal error (JSON-RPC error -32603)"
    )


def test_auto_against_the_scripted_v2_agent_lands_on_2(plain_ws, tmp_path):
    out = tmp_path / "out"
    command = shlex.join(v2_agent.command("claude"))
    args = ["batch", "--agent-command", command, "--protocol", "auto", "--yolo"]
    r = acphost([*args, "--prompt", "hi", "--out", str(out), "--no-history"], cwd=plain_ws)
    assert r.returncode == 0, r.stderr
    (run,) = _runs(out).values()
    assert (run["status"], run["protocol"], run["protocol_asked"]) == ("ok", 2, "auto")
    assert run["final_text"].endswith("DONE: pong")


def test_auto_against_a_v1_only_agent_falls_back_and_the_report_says_so(plain_ws, tmp_path):
    out = tmp_path / "out"
    args = ["batch", "-a", "demo", "--protocol", "auto", "--prompt", "echo hi", "--out", str(out)]
    env = {**FAST, "ACPHOST_DEMO_PROTOCOL": "1"}
    r = acphost([*args, "--no-history"], cwd=plain_ws, env=env)
    assert r.returncode == 0, r.stderr
    (run,) = _runs(out).values()
    assert (run["status"], run["protocol"], run["protocol_asked"]) == ("ok", 1, "auto")
    assert "\nProtocol: 1 (asked: auto)\n" in (out / "report.md").read_text()
