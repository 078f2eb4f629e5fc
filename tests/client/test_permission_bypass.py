"""Regression tests: the agent cannot stretch one permission into another.

Each test is a reviewer's reproduction, played by a raw-JSON fake agent on the
in-memory pair against the client's default host (or a given policy):

* a ``read`` permission naming a command or a path must not let the agent run
  that command or write that path (typed grants);
* "always allow" for one command must not cover another one under the same,
  agent-chosen title (sticky key);
* the ``env`` of ``terminal/create`` is part of what the policy judges;
* the client releases the broker: closed sessions are forgotten, and the
  broker (and its audit log) is closed with the client.
"""

from __future__ import annotations

import asyncio
import json
import subprocess

from acphost import AcpClient, HostConfig
from acphost.host import Interactive, PermissionBroker, PermissionRequest, RulesPolicy, Verdict
from tests.support.fake_agent import pair_with

DENIED = {"reason": "permission_denied"}


def permission(
    sid, call_id, kind, *, title="Read README", raw_input=None, locations=None, options=None
):
    tool_call = {"toolCallId": call_id, "title": title, "kind": kind}
    if raw_input is not None:
        tool_call["rawInput"] = raw_input
    if locations is not None:
        tool_call["locations"] = [{"path": p} for p in locations]
    return {
        "sessionId": sid,
        "toolCall": tool_call,
        "options": options or [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
    }


async def run_turn(workspace, prompt, **host):
    """Open a session with the given host and play one turn of ``prompt``."""
    t, agent = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t, host=HostConfig(**host)) as client:
        session = await client.new_session(workspace)
        await session.prompt("go")
    return agent


async def test_read_permission_does_not_let_the_agent_run_its_command(workspace):
    marker = workspace / "pwned"
    seen = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        seen["direct"] = await agent.request(
            "terminal/create", {"sessionId": sid, "command": f"touch {marker}"}
        )
        seen["perm"] = await agent.request(
            "session/request_permission",
            permission(sid, "t1", "read", raw_input={"command": f"touch {marker}"}),
        )
        seen["after"] = await agent.request(
            "terminal/create", {"sessionId": sid, "command": f"touch {marker}"}
        )
        return {"stopReason": "end_turn"}

    await run_turn(workspace, prompt)  # the default policy: AllowReads, terminals on
    assert seen["direct"]["error"]["data"] == DENIED
    assert seen["perm"]["result"] == {"outcome": {"outcome": "selected", "optionId": "ok"}}
    assert seen["after"]["error"]["code"] == -32603
    assert seen["after"]["error"]["data"] == DENIED
    await asyncio.sleep(0.2)
    assert not marker.exists()


async def test_read_permission_does_not_let_the_agent_write_its_path(workspace):
    target = workspace / "setup.py"
    seen = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        write = {"sessionId": sid, "path": str(target), "content": "evil"}
        seen["direct"] = await agent.request("fs/write_text_file", write)
        seen["perm"] = await agent.request(
            "session/request_permission",
            permission(sid, "t1", "read", title="Read setup.py", locations=[str(target)]),
        )
        seen["after"] = await agent.request("fs/write_text_file", write)
        return {"stopReason": "end_turn"}

    await run_turn(workspace, prompt, allow_write=True)
    assert seen["direct"]["error"]["data"] == DENIED
    assert seen["perm"]["result"]["outcome"]["outcome"] == "selected"
    assert seen["after"]["error"]["data"] == DENIED
    assert not target.exists()


async def test_execute_permission_does_not_let_the_agent_write_its_locations(workspace):
    target = workspace / "setup.py"
    seen = {}
    policy = RulesPolicy.from_dict(
        {"rules": [{"kind": "execute", "command": "make", "decision": "allow"}]}
    )

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        await agent.request(
            "session/request_permission",
            permission(
                sid,
                "t1",
                "execute",
                title="make",
                raw_input={"command": "make"},
                locations=[str(target)],
            ),
        )
        seen["write"] = await agent.request(
            "fs/write_text_file", {"sessionId": sid, "path": str(target), "content": "evil"}
        )
        return {"stopReason": "end_turn"}

    await run_turn(workspace, prompt, allow_write=True, permissions=policy)
    assert seen["write"]["error"]["data"] == DENIED
    assert not target.exists()


async def test_always_allow_for_one_command_does_not_cover_another_with_its_title(workspace):
    marker = workspace / "pwned"
    asked = []
    seen = {}

    async def user(request):
        asked.append((request.operation, request.command))
        if request.command == "git status":
            return Verdict.allow("user", always=True)
        return Verdict.reject("user")

    always = [
        {"optionId": "a", "name": "Always", "kind": "allow_always"},
        {"optionId": "r", "name": "No", "kind": "reject_once"},
    ]

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        for cmd in ("git status", "git status", f"touch {marker}"):
            seen.setdefault(cmd, []).append(
                await agent.request(
                    "session/request_permission",
                    permission(
                        sid,
                        cmd,
                        "execute",
                        title="Run git status",
                        raw_input={"command": cmd},
                        options=always,
                    ),
                )
            )
            seen[cmd].append(
                await agent.request("terminal/create", {"sessionId": sid, "command": cmd})
            )
        return {"stopReason": "end_turn"}

    await run_turn(workspace, prompt, permissions=Interactive(user))
    perm, created, perm_again, created_again = seen["git status"]
    assert perm["result"]["outcome"] == {"outcome": "selected", "optionId": "a"}
    assert perm_again["result"]["outcome"] == {"outcome": "selected", "optionId": "a"}
    assert "terminalId" in created["result"] and "terminalId" in created_again["result"]
    perm, created = seen[f"touch {marker}"]
    assert perm["result"]["outcome"] == {"outcome": "selected", "optionId": "r"}
    assert created["error"]["data"] == DENIED
    # "git status" asked once and remembered; the other command asked for itself
    assert asked == [
        ("tool_call", "git status"),
        ("tool_call", f"touch {marker}"),
        ("terminal_create", f"touch {marker}"),
    ]
    await asyncio.sleep(0.2)
    assert not marker.exists()


async def test_terminal_environment_is_judged_by_the_policy(workspace):
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    marker = workspace / "pwned"
    seen = {}
    env = [
        {"name": "GIT_CONFIG_COUNT", "value": "1"},
        {"name": "GIT_CONFIG_KEY_0", "value": "core.fsmonitor"},
        {"name": "GIT_CONFIG_VALUE_0", "value": f"touch {marker}; false"},
    ]

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        create = {"sessionId": sid, "command": "git", "args": ["status"]}
        seen["env"] = await agent.request("terminal/create", {**create, "env": env})
        seen["path"] = await agent.request(
            "terminal/create", {**create, "env": [{"name": "PATH", "value": str(workspace)}]}
        )
        seen["plain"] = await agent.request("terminal/create", create)
        if "result" in seen["plain"]:
            tid = seen["plain"]["result"]["terminalId"]
            await agent.request("terminal/wait_for_exit", {"sessionId": sid, "terminalId": tid})
        return {"stopReason": "end_turn"}

    for glob in ("git status", "git *"):
        policy = RulesPolicy.from_dict(
            {
                "rules": [{"kind": "execute", "command": glob, "decision": "allow"}],
                "default": "reject",
            }
        )
        await run_turn(workspace, prompt, permissions=policy)
        assert seen["env"]["error"]["data"] == DENIED, glob
        assert "GIT_CONFIG_VALUE_0=" in seen["env"]["error"]["message"]
        assert seen["path"]["error"]["data"] == DENIED, glob
        assert "terminalId" in seen["plain"]["result"], glob  # the rule still works without env
    assert not marker.exists()


async def test_the_ask_prompt_sees_the_environment(workspace):
    shown = []

    async def user(request):
        shown.append(request.command)
        return Verdict.reject("user")

    async def prompt(agent, rid, params):
        await agent.request(
            "terminal/create",
            {
                "sessionId": params["sessionId"],
                "command": "ls",
                "env": [{"name": "LD_PRELOAD", "value": "/tmp/evil lib.so"}],
            },
        )
        return {"stopReason": "end_turn"}

    ask = RulesPolicy.from_dict({"rules": [], "default": "ask"})
    await run_turn(workspace, prompt, permissions=PermissionBroker(ask, ask=Interactive(user)))
    assert shown == ["LD_PRELOAD='/tmp/evil lib.so' ls"]


async def test_allowed_terminal_still_gets_its_environment(workspace):
    out = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        created = await agent.request(
            "terminal/create",
            {
                "sessionId": sid,
                "command": "printenv",
                "args": ["GREETING"],
                "env": [{"name": "GREETING", "value": "hello there"}],
            },
        )
        tid = created["result"]["terminalId"]
        await agent.request("terminal/wait_for_exit", {"sessionId": sid, "terminalId": tid})
        out.update(await agent.request("terminal/output", {"sessionId": sid, "terminalId": tid}))
        return {"stopReason": "end_turn"}

    policy = RulesPolicy.from_dict(
        {
            "rules": [
                {
                    "kind": "execute",
                    "command": "GREETING='hello there' printenv *",
                    "decision": "allow",
                }
            ]
        }
    )
    await run_turn(workspace, prompt, permissions=policy)
    assert out["result"]["output"] == "hello there\n"


async def test_closed_session_is_forgotten_by_the_broker(workspace):
    asked = []

    async def user(request):
        asked.append(request.command)
        return Verdict.allow("user", always=True)

    async def prompt(agent, rid, params):
        await agent.request(
            "session/request_permission",
            permission(
                params["sessionId"],
                "t1",
                "execute",
                title="Run make",
                raw_input={"command": "make"},
            ),
        )
        return {"stopReason": "end_turn"}

    t, _agent = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t, host=HostConfig(permissions=Interactive(user))) as client:
        first = await client.new_session(workspace)
        await first.prompt("go")
        await first.prompt("go")
        assert asked == ["make"]  # remembered for the session
        await first.close()
        second = await client.new_session(workspace)  # the fake agent reuses the id "s1"
        await second.prompt("go")
    assert asked == ["make", "make"]


async def test_broker_passed_in_is_closed_with_the_client(workspace, tmp_path):
    log = tmp_path / "audit.jsonl"
    broker = PermissionBroker(
        RulesPolicy.from_dict({"rules": [], "default": "allow"}), audit_log=log
    )

    async def prompt(agent, rid, params):
        await agent.request(
            "session/request_permission", permission(params["sessionId"], "t1", "read")
        )
        return {"stopReason": "end_turn"}

    await run_turn(workspace, prompt, permissions=broker)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["decision"] for line in lines] == ["allow"]
    # closed: no more answers but "cancelled", and nothing more written
    assert (await broker.request(PermissionRequest("s1", tool_kind="read"))).cancelled
    assert len(log.read_text().splitlines()) == 1
