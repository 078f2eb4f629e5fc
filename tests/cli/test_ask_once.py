"""Commands that run what the agent can write: said in the question, in doctor, asked once per turn.

``make`` follows the ``Makefile``, ``npm test`` the scripts of
``package.json``: while the agent may write those, allowing the command
allows any command. The ``--ask`` question says so; ``acphost doctor
--permission-policy`` names the allow rules that do it; a rule with
``"decision": "ask", "once": "turn"`` asks once per turn. The real
``acphost`` on a pty, with the hostile agent over real pipes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from acphost.host import (
    Decision,
    Interactive,
    PermissionBroker,
    PermissionRequest,
    PolicyFileError,
    RulesPolicy,
    Verdict,
)
from tests.cli.terminal import PtyRun
from tests.support.in_process import run_main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

HOSTILE = str(Path(__file__).parents[1] / "host" / "hostile_agent.py")


def _run_tool(call_id, command):
    """The agent's own Bash tool asks to run ``command`` (session/request_permission)."""
    return ["session/request_permission", {
        "sessionId": "$SID",
        "toolCall": {"toolCallId": call_id, "title": "Run", "kind": "execute",
                     "rawInput": {"command": command}},
        "options": [{"optionId": "y", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "n", "name": "Reject", "kind": "reject_once"}],
    }]  # fmt: skip


STEPS = [_run_tool("t1", "make --version"), _run_tool("t2", "make --version"),
         _run_tool("t3", "true")]  # fmt: skip


def _env(tmp_path, steps):
    return {**os.environ, "HOSTILE_STEPS": json.dumps(steps), "ACPHOST_SETTINGS": "",
            "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "ACPHOST_NO_HISTORY": "1"}  # fmt: skip


def _policy(tmp_path, rule):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": [rule], "default": "reject"}))
    return path


def _audit(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("once", [True, False])
def test_an_ask_once_per_turn_rule_asks_once_and_says_what_make_runs(tmp_path, once):
    rule = {"kind": "execute", "command": "make --version", "decision": "ask"}
    if once:
        rule["once"] = "turn"
    policy = _policy(tmp_path, rule)
    audit = tmp_path / "audit.jsonl"
    run = PtyRun(
        ["--ask", "--permission-policy", str(policy), "--audit-log", str(audit),
         "--agent-command", f"{sys.executable} {HOSTILE}", "go"],
        cwd=tmp_path, env=_env(tmp_path, STEPS), cols=300,
    )  # fmt: skip
    end = run.read_until(b"allow? [y/N/a=always] ")
    question = run.text()
    assert "note: make runs the Makefile, which the agent can write" in question
    assert "allowing this allows any command" in question
    run.write(b"y\n")
    if not once:
        end = run.read_until(b"allow? [y/N/a=always] ", start=end)
        run.write(b"y\n")
    assert run.wait() == 0, run.text()
    assert run.text().count("allow? [y/N/a=always]") == (1 if once else 2)
    lines = _audit(audit)
    assert [line["decision"] for line in lines] == ["allow", "allow", "reject"]
    if once:
        assert lines[1]["reason"].startswith("answered earlier in this turn")


def test_the_answer_holds_for_one_turn_only():
    """The next prompt asks again; a different command is asked on its own."""
    asked = []

    async def answer(request):
        asked.append(request.command)
        return Verdict.allow("yes")

    async def main():
        policy = RulesPolicy.from_dict(
            {"rules": [{"command": "npm *", "decision": "ask", "once": "turn"}]}
        )
        broker = PermissionBroker(policy, ask=Interactive(answer))

        def npm(word):
            return PermissionRequest.for_terminal("s", "npm", [word], cwd="/ws")

        broker.begin_turn("s")
        await broker.check(npm("test"))
        await broker.check(npm("test"))
        await broker.check(npm("run"))
        broker.begin_turn("s")
        await broker.check(npm("test"))

    asyncio.run(main())
    assert asked == ["npm test", "npm run", "npm test"]


def test_once_is_only_for_ask_rules():
    for rule in ({"decision": "allow", "once": "turn"}, {"decision": "ask", "once": "session"}):
        with pytest.raises(PolicyFileError, match="'once' may only be"):
            RulesPolicy.from_dict({"rules": [rule]})
    assert RulesPolicy.from_dict({"rules": [{"decision": "ask"}]}).rules[0].once is None
    assert Decision.ASK.value == "ask"


def test_doctor_names_the_rules_that_allow_any_command(tmp_path):
    policy = tmp_path / "rules.json"
    policy.write_text(json.dumps({"rules": [
        {"kind": "execute", "command": "npm test", "decision": "allow"},
        {"kind": "execute", "command": "git status", "decision": "allow"},
        {"kind": "execute", "command": "python -m pytest **", "decision": "allow"},
        {"kind": "execute", "command": "make", "decision": "ask", "once": "turn"},
    ]}))  # fmt: skip
    r = run_main(
        ["doctor", "--permission-policy", str(policy)], cwd=tmp_path,
        env={**os.environ, "ACPHOST_SETTINGS": "", "XDG_CONFIG_HOME": str(tmp_path / "xdg")},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    cautions = [line for line in r.stdout.splitlines() if "caution:" in line]
    assert len(cautions) == 2, r.stdout
    assert "rule 1" in cautions[0] and "package.json" in cautions[0]
    assert "rule 3" in cautions[1] and "conftest.py" in cautions[1]
    assert all('"once": "turn"' in line for line in cautions)
    assert "rules.json: 4 rules, default reject" in r.stdout
