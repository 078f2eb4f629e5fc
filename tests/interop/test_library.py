"""The library against real third-party agents, offline (fake model on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json

import pytest

from acphost import AcpClient, AuthRequired, CapabilityNotSupported, HostConfig
from acphost import schema as s
from acphost.config import presets
from acphost.host import AllowAll, DenyAll, FileSystemProvider, Interactive, Verdict
from tests.interop.conftest import assert_no_survivors, na
from tests.interop.fake_model import Text

pytestmark = [pytest.mark.interop, pytest.mark.timeout(120)]

TURN = 60  # seconds: a scripted turn takes 1-5 s


def host(agent, *, write=False, policy=None):
    # The preset carries the agent's compatibility options (Gemini: missing file -> "").
    preset = presets().get(agent.name)
    missing_empty = preset.missing_file_returns_empty if preset else False
    assert missing_empty == agent.missing_file_returns_empty
    return HostConfig(
        fs=FileSystemProvider(missing_file_returns_empty=missing_empty),
        allow_write=write,
        permissions=policy or AllowAll(),
    )


class Frames:
    """Records every frame, by direction."""

    def __init__(self):
        self.frames: list[tuple[str, dict]] = []

    def __call__(self, direction, line):
        self.frames.append((direction, json.loads(line)))

    def answer_to(self, method):
        """Our response to the agent's first request for ``method``."""
        rid = next(f["id"] for d, f in self.frames if d == "receive" and f.get("method") == method)
        return next(
            f.get("result", f.get("error"))
            for d, f in self.frames
            if d == "send" and f.get("id") == rid and "method" not in f
        )

    def methods(self, direction="receive"):
        return [f.get("method") for d, f in self.frames if d == direction and "method" in f]


def start(agent, root, home, ws, model, *, frames=None, **options):
    m = None if agent.scripted else model
    return AcpClient.start(
        agent.argv(root, m), env=agent.env(home, m), cwd=ws, tap=frames, **options
    )


async def run_turn(agent, root, home, ws, model, prompt, *, frames=None, **options):
    async with start(agent, root, home, ws, model, frames=frames, **options) as client:
        session = await client.new_session(str(ws))
        result = await asyncio.wait_for(session.prompt(prompt).result(), TURN)
    return session, result


# -- initialize and authentication ---------------------------------------------------


async def test_initialize(agent, agents_root, home, ws, model):
    async with start(agent, agents_root, home, ws, model) as client:
        assert client.protocol_version == 1
        session = await client.new_session(str(ws))
        assert session.id


async def test_no_credentials_is_a_clear_auth_error(agent, agents_root, home, ws, model):
    na(agent, "auth")
    async with AcpClient.start(
        agent.argv(agents_root, model, credentials=False),
        env=agent.env(home, model, credentials=False),
        cwd=ws,
        auth_terminal=agent.auth_needs_terminal,
    ) as client:
        with pytest.raises(AuthRequired) as info:
            # Claude Code opens the session and refuses the prompt; the others refuse session/new.
            session = await client.new_session(str(ws))
            await asyncio.wait_for(session.prompt("hi").result(), TURN)
    assert info.value.code == -32000
    assert info.value.auth_methods, "the agent's methods come with the error"


# -- turns ----------------------------------------------------------------------------


async def test_text_turn(agent, agents_root, home, ws, model):
    model.script = [Text("Hello from the fake model.")]
    _session, result = await run_turn(agent, agents_root, home, ws, model, "say hello")
    assert result.stop_reason == "end_turn"
    if agent.scripted:
        assert result.text.startswith("I'll help you with that.")
    else:
        assert "Hello from the fake model." in result.text
    # Closing the client leaves no process of the agent's (codex-acp 2.6.0 exits
    # only about 2 s after its stdin closes: acphost ends its process group).
    assert_no_survivors(home)


async def test_fs_read_goes_through_the_host(agent, agents_root, home, ws, model):
    na(agent, "read")
    model.script = [agent.read(str(ws / "notes.txt")), Text("I read it.")]
    frames = Frames()
    _, result = await run_turn(
        agent,
        agents_root,
        home,
        ws,
        model,
        "read notes",
        frames=frames,
        host=host(agent, write=agent.read_needs_write),
    )
    assert result.stop_reason == "end_turn"
    assert "line two" in frames.answer_to("fs/read_text_file")["content"]


async def test_fs_write_allowed(agent, agents_root, home, ws, model):
    model.script = (
        [agent.write(str(ws / "out.txt"), "written by the agent\n")] if agent.write else []
    )
    model.script.append(Text("Wrote it."))
    frames = Frames()
    _session, result = await run_turn(
        agent,
        agents_root,
        home,
        ws,
        model,
        "write out.txt",
        frames=frames,
        host=host(agent, write=True, policy=AllowAll()),
    )
    assert result.stop_reason == "end_turn"
    if agent.scripted:  # the SDK example only asks permission, then reports the change
        assert "session/request_permission" in frames.methods()
        assert "successfully updated" in result.text
        return
    assert (ws / "out.txt").read_text() == "written by the agent\n"
    if agent.own_tools:  # asked, then wrote the file itself
        assert "session/request_permission" in frames.methods()
        assert "fs/write_text_file" not in frames.methods()
        # The agent numbers its requests from 0, as we do (codex-acp, claude-agent-acp):
        # the permission was answered, not mistaken for the answer to one of ours.
        answer = frames.answer_to("session/request_permission")
        assert answer["outcome"]["outcome"] == "selected", answer
    else:
        assert "fs/write_text_file" in frames.methods()


async def test_fs_write_rejected_by_policy(agent, agents_root, home, ws, model):
    model.script = [agent.write(str(ws / "out.txt"), "nope\n")] if agent.write else []
    model.script.append(Text("Could not write."))
    frames = Frames()
    session, result = await run_turn(
        agent,
        agents_root,
        home,
        ws,
        model,
        "write out.txt",
        frames=frames,
        host=host(agent, write=True, policy=DenyAll()),
    )
    assert result.stop_reason == ("cancelled" if agent.reject_ends_turn else "end_turn")
    assert not (ws / "out.txt").exists()
    assert "fs/write_text_file" not in frames.methods()
    assert "session/request_permission" in frames.methods() or not agent.own_tools
    if agent.reject_ends_turn:
        return  # the turn stopped at the refusal: the model was not called again
    if agent.scripted:
        assert "skip the configuration update" in result.text
        return
    # The agent saw the rejection: reported on the tool call, or sent back to the model.
    failed = [c for c in session.state.tool_calls.values() if c.status == "failed"]
    seen = model.tool_results()
    assert failed or "cancel" in seen.lower() or "reject" in seen.lower(), seen


async def test_shell_command(agent, agents_root, home, ws, model):
    na(agent, "terminal")
    model.script = [agent.shell("echo hello-from-shell && pwd"), Text("Ran it.")]
    frames = Frames()
    _, result = await run_turn(
        agent, agents_root, home, ws, model, "run it", frames=frames, host=host(agent)
    )
    assert result.stop_reason == "end_turn"
    assert "hello-from-shell" in model.tool_results()
    if agent.uses_terminal:
        # The command ran in a terminal of ours, and the agent released it.
        methods = frames.methods()
        assert "terminal/create" in methods and "terminal/release" in methods
        assert "hello-from-shell" in frames.answer_to("terminal/output")["output"]
    else:
        # Gemini CLI and Qwen Code run their own shell even when terminals are offered.
        assert "terminal/create" not in frames.methods()


async def test_plan(agent, agents_root, home, ws, model):
    na(agent, "plan")
    model.script = [agent.plan("first step"), Text("Planned.")]
    session, result = await run_turn(agent, agents_root, home, ws, model, "plan it")
    assert result.stop_reason == "end_turn"
    assert [e.content for e in session.state.plan] == ["first step"]


async def test_cancel_mid_stream(agent, agents_root, home, ws, model):
    model.script = [Text("word " * 600, chunks=600, delay=0.02)]  # ~12 s of streaming
    async with start(agent, agents_root, home, ws, model, host=host(agent)) as client:
        session = await client.new_session(str(ws))
        turn = session.prompt("talk for a long time")
        async for update in turn:
            if isinstance(update, s.AgentMessageChunk) and update.text.strip():
                break
        result = await asyncio.wait_for(session.cancel(), 10)
        await turn.aclose()
    assert result is not None and result.stop_reason == "cancelled"
    # The cancel took effect mid-stream: far fewer than the 600 words arrived.
    assert session.state.last_agent_text().count("word") < 600


async def test_write_outside_the_workspace_is_refused(agent, agents_root, home, ws, outside, model):
    na(agent, "jail")
    target = outside / "escape.txt"
    model.script = [agent.write(str(target), "pwned\n"), Text("Tried.")]
    frames = Frames()
    _, result = await run_turn(
        agent,
        agents_root,
        home,
        ws,
        model,
        "write outside",
        frames=frames,
        host=host(agent, write=True, policy=AllowAll()),
    )
    assert result.stop_reason == "end_turn"
    assert not target.exists()
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "untouched\n"
    seen = model.tool_results()
    if "fs/write_text_file" in frames.methods():
        # Our jail refused it, and the agent told the model it failed.
        assert "outside the workspace" in frames.answer_to("fs/write_text_file")["message"]
        assert "error" in seen.lower() or "failed" in seen.lower(), seen
    else:
        # Gemini CLI refuses paths outside its roots itself, before asking us.
        assert "not in workspace" in seen.lower(), seen


# -- permissions and the system prompt -------------------------------------------------


async def test_permission_reaches_the_policy(agent, agents_root, home, ws, model):
    # A command that changes something (agents run read-only ones like `echo`
    # without asking) where the agent has one, else a write; the SDK example asks
    # on its own. The allow is honoured.
    if agent.shell is not None:
        model.script = [agent.shell("touch permitted-run"), Text("Ran it.")]
    elif agent.write is not None:
        model.script = [agent.write(str(ws / "out.txt"), "permitted\n"), Text("Wrote it.")]
    asked = []

    async def decide(request):
        asked.append(request)
        return Verdict.allow("the test allows it")

    policy = Interactive(decide)
    _, result = await run_turn(
        agent, agents_root, home, ws, model, "do it", host=host(agent, write=True, policy=policy)
    )
    assert result.stop_reason == "end_turn"
    assert asked, "the agent asked nothing"
    if agent.scripted:
        assert asked[0].operation == "tool_call" and asked[0].options
        return
    if agent.shell is not None:
        assert (ws / "permitted-run").exists()  # it ran, after the allow
    else:
        assert (ws / "out.txt").read_text() == "permitted\n"
    # The agent's own session/request_permission, with its options (fast-agent
    # asks too before it creates our terminal).
    request = next(r for r in asked if r.operation == "tool_call")
    assert request.options and request.tool_call_id


SYSTEM_PROMPT = "ACPHOST-SYSTEM-PROMPT-7: answer tersely."


@pytest.mark.parametrize("mode", ["append", "override"])
async def test_system_prompt(agent, agents_root, home, ws, model, mode):
    model.script = [Text("Answered.")]
    frames = Frames()
    async with start(agent, agents_root, home, ws, model, frames=frames) as client:
        # What this version advertises (docs/INTEROP.md lists it per agent).
        assert client.system_prompt_modes == agent.system_prompt_modes
        if mode not in agent.system_prompt_modes:
            # Refused before anything is sent: no session/new goes out.
            with pytest.raises(CapabilityNotSupported):
                await client.new_session(
                    str(ws), system_prompt=SYSTEM_PROMPT, system_prompt_mode=mode
                )
            assert "session/new" not in frames.methods("send")
            return
        session = await client.new_session(
            str(ws), system_prompt=SYSTEM_PROMPT, system_prompt_mode=mode
        )
        result = await asyncio.wait_for(session.prompt("hi").result(), TURN)
    assert result.stop_reason == "end_turn"
    assert session.state.system_prompt == SYSTEM_PROMPT
    sent = next(f for d, f in frames.frames if d == "send" and f.get("method") == "session/new")
    assert sent["params"]["systemPrompt"]["mode"] == mode
    # The agent handed it to the model (claude: in `system`; codex: a developer message).
    assert model.sent(SYSTEM_PROMPT)
    if agent.name == "claude":
        # Override replaces Claude Code's own instructions; append keeps them.
        system = json.dumps([r.body.get("system") for r in model.main_requests()])
        assert ("Claude Code" in system) == (mode == "append"), system[:300]


@pytest.mark.parametrize("reopen", ["load", "resume"])
async def test_system_prompt_again_on_load_and_resume(agent, agents_root, home, ws, model, reopen):
    # The schema: a client SHOULD send on session/load and session/resume the
    # system prompt it created the session with. (Both agents keep the one
    # stored with the session: another text sent then never reaches the model.)
    if "append" not in agent.system_prompt_modes:
        pytest.skip(f"not applicable: {agent.name} takes no system prompt")
    model.script = [Text("First answer.")]
    async with start(agent, agents_root, home, ws, model) as client:
        first = await client.new_session(str(ws), system_prompt=SYSTEM_PROMPT)
        await asyncio.wait_for(first.prompt("hi").result(), TURN)
    model.requests.clear()
    frames = Frames()
    async with start(agent, agents_root, home, ws, model, frames=frames) as client:
        reopen_session = getattr(client, f"{reopen}_session")
        session = await reopen_session(first.id, str(ws), system_prompt=SYSTEM_PROMPT)
        result = await asyncio.wait_for(session.prompt("again").result(), TURN)
    assert result.stop_reason == "end_turn"
    assert session.state.system_prompt == SYSTEM_PROMPT
    sent = next(
        f for d, f in frames.frames if d == "send" and f.get("method") == f"session/{reopen}"
    )
    assert sent["params"]["systemPrompt"]["content"][0]["text"] == SYSTEM_PROMPT
    assert model.sent(SYSTEM_PROMPT)  # the new agent process still hands it to the model


# What each version sends beside the schema (docs/INTEROP.md): usage on the
# prompt's answer (Gemini CLI: only _meta.quota.token_count, snake_case), and
# the adapters' _auth/status_update extension notification.
SENDS_USAGE = {"claude", "codex", "gemini", "vibe"}
AUTH_STATUS_KIND = {"claude": "api_key", "codex": "gateway"}


async def test_usage_and_auth_status_accepted_quietly(agent, agents_root, home, ws, model):
    model.script = [Text("Hello.")]
    async with start(agent, agents_root, home, ws, model, unstable=True) as client:
        session = await client.new_session(str(ws))
        result = await asyncio.wait_for(session.prompt("hi").result(), TURN)
        auth = client.unstable.adapter_auth
    assert result.stop_reason == "end_turn"
    assert (result.usage is not None) == (agent.name in SENDS_USAGE), result.usage
    assert (auth or {}).get("kind") == AUTH_STATUS_KIND.get(agent.name), auth
