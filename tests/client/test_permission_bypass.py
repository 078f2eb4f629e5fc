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

import json
import subprocess
import sys
from pathlib import Path

from acphost import AcpClient, HostConfig
from acphost.config import AgentSpec
from acphost.host import (
    AllowAll,
    DenyAll,
    Interactive,
    PermissionBroker,
    PermissionRequest,
    RulesPolicy,
    TerminalCreated,
    TerminalManager,
    Verdict,
    describe_request,
)
from acphost.launch import HostChoices, build_host_config
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

    events: list = []
    # the default policy: AllowReads, terminals on
    await run_turn(workspace, prompt, terminals=TerminalManager(on_event=events.append))
    assert seen["direct"]["error"]["data"] == DENIED
    assert seen["perm"]["result"] == {"outcome": {"outcome": "selected", "optionId": "ok"}}
    assert seen["after"]["error"]["code"] == -32603
    assert seen["after"]["error"]["data"] == DENIED
    assert not any(isinstance(e, TerminalCreated) for e in events)  # nothing was started
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

    events: list = []
    terminals = TerminalManager(on_event=events.append)
    await run_turn(workspace, prompt, permissions=Interactive(user), terminals=terminals)
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
    started = [e.command for e in events if isinstance(e, TerminalCreated)]
    assert not any("touch" in cmd for cmd in started)  # the refused command never started
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


# -- the policy judges what will actually happen ------------------------------------


def rules(*items, default="reject"):
    return RulesPolicy.from_dict({"rules": list(items), "default": default})


async def test_policy_judges_the_path_the_jail_writes(workspace, tmp_path):
    """``//ws/x``, ``ws/./a/../x`` and a link inside the workspace resolve before matching."""
    (workspace / "private").mkdir()
    (workspace / "pub").mkdir()
    (workspace / "pub-link").symlink_to("private")
    log = tmp_path / "audit.jsonl"
    seen = {}
    spellings = {
        "double slash": f"/{workspace}/private/a",
        "dot dot": f"{workspace}/./pub/../private/b",
        "link": f"{workspace}/pub-link/c",
    }

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        for name, path in spellings.items():
            seen[name] = await agent.request(
                "fs/write_text_file", {"sessionId": sid, "path": path, "content": "x"}
            )
        seen["free"] = await agent.request(
            "fs/write_text_file",
            {"sessionId": sid, "path": f"{workspace}/pub/ok", "content": "x"},
        )
        return {"stopReason": "end_turn"}

    policy = rules({"path": f"{workspace}/private/*", "decision": "reject"}, {"decision": "allow"})
    broker = PermissionBroker(policy, audit_log=log)
    await run_turn(workspace, prompt, allow_write=True, permissions=broker)
    for name in spellings:
        assert seen[name]["error"]["data"] == DENIED, name
    assert seen["free"]["result"] == {}
    assert list((workspace / "private").iterdir()) == []
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(x["paths"], x.get("requestedPaths")) for x in lines[:3]] == [
        ([f"{workspace}/private/a"], [spellings["double slash"]]),
        ([f"{workspace}/private/b"], [spellings["dot dot"]]),
        ([f"{workspace}/private/c"], [spellings["link"]]),
    ]
    assert "requestedPaths" not in lines[3]


async def test_file_reads_pass_the_policy(workspace):
    (workspace / "notes.txt").write_text("notes\n")
    (workspace / "secret.env").write_text("TOKEN=1\n")
    (workspace / "alias").symlink_to("secret.env")
    seen = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        for name in ("notes.txt", "secret.env", "alias", "missing.env"):
            seen[name] = await agent.request(
                "fs/read_text_file", {"sessionId": sid, "path": f"{workspace}/{name}"}
            )
        return {"stopReason": "end_turn"}

    await run_turn(workspace, prompt)  # the library's default: reads allowed
    assert seen["notes.txt"]["result"] == {"content": "notes\n"}
    assert seen["alias"]["result"] == {"content": "TOKEN=1\n"}

    await run_turn(workspace, prompt, permissions=DenyAll())
    assert all(seen[name]["error"]["data"] == DENIED for name in seen)

    read_rule = rules(
        {"kind": "read", "path": f"{workspace}/*.env", "decision": "reject"},
        {"kind": "read", "decision": "allow"},
    )
    await run_turn(workspace, prompt, permissions=read_rule)
    assert seen["notes.txt"]["result"] == {"content": "notes\n"}
    for name in ("secret.env", "alias", "missing.env"):  # the link resolves to secret.env
        assert seen[name]["error"]["data"] == DENIED, name


def face_host(**choices):
    return build_host_config(HostChoices(**choices), AgentSpec("scripted", "scripted"))


async def test_commands_are_gated_like_writes_by_default(workspace):
    marker = workspace / "ran"
    seen = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        seen["perm"] = await agent.request(
            "session/request_permission",
            permission(
                sid,
                "t1",
                "execute",
                title="touch",
                raw_input={"command": f"touch {marker}"},
                options=[
                    {"optionId": "ok", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                ],
            ),
        )
        seen["term"] = await agent.request(
            "terminal/create", {"sessionId": sid, "command": "touch", "args": [str(marker)]}
        )
        if "result" in seen["term"]:
            tid = seen["term"]["result"]["terminalId"]
            await agent.request("terminal/wait_for_exit", {"sessionId": sid, "terminalId": tid})
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t, host=face_host()) as client:
        await (await client.new_session(workspace)).prompt("go")
    assert seen["perm"]["result"]["outcome"] == {"outcome": "selected", "optionId": "no"}
    assert seen["term"]["error"]["data"] == DENIED
    assert "running commands needs --write" in seen["term"]["error"]["message"]
    assert not marker.exists()

    asked = []

    async def asker(request):
        asked.append(request.operation)
        return Verdict.reject("user")

    for choices, asker_fn, runs in (
        ({"write": True}, None, True),
        ({"approve": "all"}, None, True),
        ({}, asker, False),
    ):
        t, _ = pair_with({"session/prompt": prompt})
        host = build_host_config(
            HostChoices(**choices), AgentSpec("scripted", "scripted"), asker=asker_fn
        )
        async with AcpClient.connect(t, host=host) as client:
            await (await client.new_session(workspace)).prompt("go")
        assert ("terminalId" in seen["term"].get("result", {})) is runs, choices
    assert asked == ["tool_call", "terminal_create"]  # --ask: asked, not refused outright


async def test_agent_writes_never_reach_git_hooks_config_or_host_files(workspace):
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    config_before = (workspace / ".git" / "config").read_text()
    (workspace / "hooks").symlink_to(".git/hooks")
    audit = workspace / "audit.jsonl"
    targets = [
        workspace / ".git" / "hooks" / "pre-commit",
        workspace / "hooks" / "post-checkout",
        workspace / ".git" / "config",
        workspace / ".acphost" / "settings.json",
        audit,
    ]
    seen = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        for target in targets:
            seen[target] = await agent.request(
                "fs/write_text_file",
                {"sessionId": sid, "path": str(target), "content": "#!/bin/sh\ntouch pwned\n"},
            )
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    host = face_host(yolo=True, audit_log=str(audit))
    async with AcpClient.connect(t, host=host) as client:
        await (await client.new_session(workspace)).prompt("go")
    for target in targets:
        assert seen[target]["error"]["data"] == DENIED, target
        assert "is protected" in seen[target]["error"]["message"]
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / ".git" / "hooks" / "post-checkout").exists()
    assert (workspace / ".git" / "config").read_text() == config_before
    assert not (workspace / ".acphost").exists()
    decisions = [json.loads(line)["decision"] for line in audit.read_text().splitlines()]
    assert decisions == ["reject"] * len(targets)

    # a broad rule does not open them; a rule naming the hook does
    policy = rules(
        {"path": f"{workspace}/**", "decision": "allow"},
        {"path": f"{workspace}/.git/hooks/pre-commit", "decision": "allow"},
    )
    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(
        t, host=HostConfig(allow_write=True, permissions=policy, protected_paths=(str(audit),))
    ) as client:
        await (await client.new_session(workspace)).prompt("go")
    allowed = [target for target in targets if "result" in seen[target]]
    assert allowed == [workspace / ".git" / "hooks" / "pre-commit"]


async def test_the_prompt_shows_argv_cwd_env_and_tool_name(workspace):
    (workspace / "sub").mkdir()
    shown = []

    async def user(request):
        shown.append(describe_request(request))
        return Verdict.reject("user")

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        tool_call = {
            "toolCallId": "t1",
            "title": "List files",
            "kind": "execute",
            "name": "Bash",
            "rawInput": {"command": "ls -la", "cwd": "sub"},
        }
        await agent.request(
            "session/request_permission",
            {"sessionId": sid, "toolCall": tool_call, "options": OPTIONS},
        )
        await agent.request(
            "terminal/create",
            {
                "sessionId": sid,
                "command": "ls",
                "args": ["-la", "a b"],
                "cwd": f"{workspace}/./sub",
                "env": [{"name": "LC_ALL", "value": "C"}],
            },
        )
        return {"stopReason": "end_turn"}

    ask = rules(default="ask")
    await run_turn(workspace, prompt, permissions=PermissionBroker(ask, ask=Interactive(user)))
    assert shown == [
        [
            "action: tool call",
            "shell line: ls -la",
            f"cwd: {workspace}/sub",
            "tool: Bash",
            "kind: execute",
            'input: {"command":"ls -la","cwd":"sub"}',
            "title: List files",
        ],
        [
            "action: run a command in a terminal",
            "argv: ls -la 'a b'",
            f"cwd: {workspace}/sub",
            "env: LC_ALL=C",
            "kind: execute",
        ],
    ]


OPTIONS = [
    {"optionId": "ok", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


async def test_rules_match_the_tool_name(workspace):
    seen = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        for name in ("Bash", "Read", None):
            tool_call = {"toolCallId": f"t-{name}", "title": "Do it", "kind": "other"}
            if name is not None:
                tool_call["name"] = name
            seen[name] = await agent.request(
                "session/request_permission",
                {"sessionId": sid, "toolCall": tool_call, "options": OPTIONS},
            )
        return {"stopReason": "end_turn"}

    policy = rules({"tool": "Bash", "decision": "reject"}, {"tool": "Re*", "decision": "allow"})
    await run_turn(workspace, prompt, permissions=policy)
    chosen = {name: seen[name]["result"]["outcome"]["optionId"] for name in seen}
    assert chosen == {"Bash": "no", "Read": "ok", None: "no"}


async def test_malformed_terminal_params_are_refused_not_defaulted(workspace):
    marker = workspace / "ran"
    seen = {}

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        base = {"sessionId": sid, "command": f"touch {marker}"}
        for name, extra in {
            "args": {"args": "--help"},
            "env": {"env": [{"name": "PATH=/tmp", "value": "x"}]},
            "cwd": {"cwd": "relative"},
            "outputByteLimit": {"outputByteLimit": -5},
        }.items():
            seen[name] = await agent.request("terminal/create", {**base, **extra})
        return {"stopReason": "end_turn"}

    await run_turn(workspace, prompt, permissions=AllowAll())
    for name in ("args", "env", "cwd", "outputByteLimit"):
        error = seen[name]["error"]
        assert error["code"] == -32602, name
        assert f"'{name}" in error["message"], error["message"]
    assert not marker.exists()


async def test_a_git_star_rule_does_not_run_an_alias_or_a_second_command(workspace):
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    marker = workspace / "pwned"
    seen = {}
    attacks = {
        "alias": {"command": "git", "args": ["-c", f"alias.x=!touch {marker}", "x"]},
        "exec-path": {"command": "git", "args": [f"--exec-path={workspace}", "status"]},
        "shell alias": {"command": f"git -c alias.x='!touch {marker}' x"},
        "second command": {"command": f"git status; touch {marker}"},
        "wrapped": {"command": "bash", "args": ["-lc", f"git status && touch {marker}"]},
    }

    async def prompt(agent, rid, params):
        sid = params["sessionId"]
        for name, create in {**attacks, "plain": {"command": "git status"}}.items():
            seen[name] = await agent.request("terminal/create", {"sessionId": sid, **create})
            if "result" in seen[name]:
                tid = seen[name]["result"]["terminalId"]
                await agent.request("terminal/wait_for_exit", {"sessionId": sid, "terminalId": tid})
        return {"stopReason": "end_turn"}

    policy = rules(
        {"kind": "execute", "command": "git *", "decision": "allow"},
        {"kind": "execute", "command": "git status*", "decision": "allow"},
    )
    await run_turn(workspace, prompt, permissions=policy)
    for name in attacks:
        assert seen[name]["error"]["data"] == DENIED, name
    assert "terminalId" in seen["plain"]["result"]
    assert not marker.exists()


HOSTILE = str(Path(__file__).resolve().parent.parent / "host" / "hostile_agent.py")


async def test_a_hostile_agent_process_against_the_yolo_host(workspace):
    """Over real pipes, with ``--yolo`` and an audit log inside the workspace."""
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "tools").symlink_to(".git/hooks")
    audit = workspace / "audit.jsonl"
    hook = "#!/bin/sh\ntouch $CWD/pwned\n"
    steps = [
        [
            "fs/write_text_file",
            {"sessionId": "$SID", "path": "$CWD/tools/pre-commit", "content": hook},
        ],
        [
            "fs/write_text_file",
            {"sessionId": "$SID", "path": "//$CWD/.git/config", "content": hook},
        ],
        ["fs/write_text_file", {"sessionId": "$SID", "path": "$CWD/audit.jsonl", "content": ""}],
        ["terminal/create", {"sessionId": "$SID", "command": "touch", "args": "$CWD/pwned"}],
        [
            "fs/write_text_file",
            {"sessionId": "$SID", "path": "$CWD/./src/../ok.txt", "content": "ok"},
        ],
    ]
    host = face_host(yolo=True, audit_log=str(audit))
    async with AcpClient.start(
        [sys.executable, HOSTILE], env={"HOSTILE_STEPS": json.dumps(steps)}, host=host
    ) as client:
        result = await (await client.new_session(workspace)).prompt("go")
    answers = json.loads(result.text)
    assert [a.get("error", {}).get("code") for a in answers] == [
        -32603,
        -32603,
        -32603,
        -32602,
        None,
    ]
    assert all("is protected" in a["error"]["message"] for a in answers[:3])
    assert "'args'" in answers[3]["error"]["message"]
    assert (workspace / "ok.txt").read_text() == "ok"
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert "touch" not in (workspace / ".git" / "config").read_text()
    assert not (workspace / "pwned").exists()
    logged = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(x["decision"], x["paths"]) for x in logged] == [
        ("reject", [f"{workspace}/.git/hooks/pre-commit"]),
        ("reject", [f"{workspace}/.git/config"]),
        ("reject", [str(audit)]),
        ("allow", [f"{workspace}/ok.txt"]),
    ]


async def test_no_write_reaches_git_metadata_that_points_git_elsewhere(workspace):
    """``.git/commondir`` (or ``info/``, ``objects/info/alternates``...) sends git to
    a config the agent wrote, whose fsmonitor runs on the user's next ``git status``."""
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    marker = workspace / "PWNED"
    writes = {
        workspace / "evil" / "config": f'[core]\n\tfsmonitor = "touch {marker}; false"\n',
        workspace / "evil" / "objects" / ".keep": "",
        workspace / "evil" / "refs" / "heads" / ".keep": "",
        workspace / ".git" / "commondir": "../evil\n",
        workspace / ".git" / "objects" / "info" / "alternates": str(workspace / "evil") + "\n",
    }
    seen = {}

    async def prompt(agent, rid, params):
        for path, content in writes.items():
            seen[path] = await agent.request(
                "fs/write_text_file",
                {"sessionId": params["sessionId"], "path": str(path), "content": content},
            )
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t, host=face_host(write=True)) as client:
        await (await client.new_session(workspace)).prompt("go")
    for path in (
        workspace / ".git" / "commondir",
        workspace / ".git" / "objects" / "info" / "alternates",
    ):
        assert seen[path]["error"]["data"] == DENIED, path
        assert not path.exists()
    assert "result" in seen[workspace / "evil" / "config"]  # an ordinary file: allowed
    subprocess.run(["git", "-C", str(workspace), "status"], capture_output=True, check=False)
    assert not marker.exists()


async def test_the_agent_cannot_rewrite_acphosts_own_settings_or_history(tmp_path, monkeypatch):
    """An agent run in the home directory must not rewrite the settings that choose
    the agent command, the trusted project files or the history store."""
    home = tmp_path / "home"
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_DATA_HOME", ".local/share"),
    ):
        monkeypatch.setenv(name, str(home / sub))
    targets = [
        home / ".config" / "acphost" / "settings.json",
        home / ".config" / "acphost" / "trusted.json",
        home / ".local" / "share" / "acphost" / "history.sqlite3",
        home / ".local" / "state" / "acphost" / "demo" / "s.json",
    ]
    home.mkdir()
    seen = {}

    async def prompt(agent, rid, params):
        for target in targets:
            seen[target] = await agent.request(
                "fs/write_text_file",
                {"sessionId": params["sessionId"], "path": str(target), "content": "{}"},
            )
        return {"stopReason": "end_turn"}

    t, _ = pair_with({"session/prompt": prompt})
    async with AcpClient.connect(t, host=face_host(yolo=True)) as client:
        await (await client.new_session(home)).prompt("go")
    for target in targets:
        assert seen[target]["error"]["data"] == DENIED, target
        assert not target.exists()
