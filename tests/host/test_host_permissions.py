"""Permission policies, rules files, the broker: option choice, sticky, cancel, mediation, audit."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from acphost.errors import InternalError, RequestCancelled
from acphost.host import (
    AllowAll,
    AllowReads,
    Decision,
    DenyAll,
    Interactive,
    PermissionBroker,
    PermissionOption,
    PermissionRequest,
    PolicyFileError,
    RulesPolicy,
    Verdict,
)
from tests.support.waiting import eventually

STD = (
    PermissionOption("opt-a1", "Allow", "allow_once"),
    PermissionOption("opt-aa", "Always", "allow_always"),
    PermissionOption("opt-r1", "Reject", "reject_once"),
    PermissionOption("opt-ra", "Never", "reject_always"),
)


def req(kind="edit", title="Edit file", paths=("/ws/a.py",), command=None, options=STD, **kw):
    return PermissionRequest(
        session_id=kw.pop("session_id", "s1"),
        tool_call_id=kw.pop("tool_call_id", "tc1"),
        title=title,
        tool_kind=kind,
        paths=tuple(paths),
        command=command,
        options=tuple(options),
        **kw,
    )


# -- built-in policies ---------------------------------------------------------


async def test_builtin_policies():
    assert (await DenyAll().decide(req())).decision is Decision.REJECT
    assert (await AllowAll().decide(req())).decision is Decision.ALLOW
    reads = AllowReads()
    for kind in ("read", "search", "think", "switch_mode"):
        assert (await reads.decide(req(kind=kind))).decision is Decision.ALLOW
    for kind in ("edit", "delete", "move", "execute", "fetch", "other", None, "brand_new"):
        assert (await reads.decide(req(kind=kind))).decision is Decision.REJECT
    # a mediated operation is never a read, whatever kind it claims
    fake = PermissionRequest("s", tool_kind="read", operation="fs_write", paths=("/x",))
    assert (await reads.decide(fake)).decision is Decision.REJECT


async def test_interactive_policy():
    seen = []

    async def prompt(request):
        seen.append(request)
        return Verdict.allow("user said yes", always=True)

    verdict = await Interactive(prompt).decide(req())
    assert verdict == Verdict.allow("user said yes", always=True)
    assert seen == [req()]

    async def broken(request):
        raise RuntimeError("ui crashed")

    assert (await Interactive(broken).decide(req())).decision is Decision.REJECT

    async def undecided(request):
        return Verdict.ask()

    assert (await Interactive(undecided).decide(req())).decision is Decision.REJECT


# -- rules files -----------------------------------------------------------------


def write_rules(tmp_path, data, name="policy.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


async def test_rules_matchers_first_match_and_default(tmp_path):
    policy = RulesPolicy.from_file(
        write_rules(
            tmp_path,
            {
                "rules": [
                    {"title": "*secret*", "decision": "reject"},
                    {"kind": ["edit", "delete"], "path": "/ws/src/*", "decision": "allow"},
                    {"kind": "execute", "command": "git status **", "decision": "allow"},
                    {"kind": "read", "decision": "allow"},
                    {"path": "/etc/*", "decision": "reject"},
                ],
                "default": "ask",
            },
        )
    )

    async def decide(r):
        return await policy.decide(r)

    v = await decide(req(title="Edit secret", paths=("/ws/src/x",)))
    assert (v.decision, v.reason) == (Decision.REJECT, "rule 1 in policy.json")
    v = await decide(req(paths=("/ws/src/x.py", "/ws/src/y.py")))
    assert (v.decision, v.reason) == (Decision.ALLOW, "rule 2 in policy.json")
    # allow + path: every path must match
    v = await decide(req(paths=("/ws/src/x.py", "/ws/other/y.py")))
    assert v.decision is Decision.ASK and v.reason == "default of policy.json"
    # ".." cannot sneak out of an allowed glob
    v = await decide(req(paths=("/ws/src/../../etc/passwd",)))
    assert v.reason == "rule 5 in policy.json"
    # reject + path: any path matching is enough
    v = await decide(req(kind="other", paths=("/ws/ok", "/etc/shadow")))
    assert (v.decision, v.reason) == (Decision.REJECT, "rule 5 in policy.json")
    v = await decide(req(kind="execute", command="git status --short", paths=()))
    assert v.reason == "rule 3 in policy.json"
    # shell control characters are not allowed through a glob that lacks them
    v = await decide(req(kind="execute", command="git status; rm -rf ~", paths=()))
    assert v.decision is Decision.ASK
    v = await decide(req(kind="execute", command="git status$(curl evil)", paths=()))
    assert v.decision is Decision.ASK
    v = await decide(req(kind="read", title="Read", paths=()))
    assert v.reason == "rule 4 in policy.json"
    # a request without a title / command never matches those matchers
    v = await decide(req(kind="execute", command=None, title=None, paths=()))
    assert v.decision is Decision.ASK
    # mediated operations take the implied kind
    v = await decide(PermissionRequest.for_fs_write("s", "/ws/src/new.py"))
    assert v.reason == "rule 2 in policy.json"
    v = await decide(PermissionRequest.for_terminal("s", "git", ["status"]))
    assert v.reason == "rule 3 in policy.json"


async def test_rules_default_is_reject(tmp_path):
    policy = RulesPolicy.from_file(write_rules(tmp_path, {"rules": []}))
    assert (await policy.decide(req())).decision is Decision.REJECT


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"rules": [\n  {"kind": "edit",, }\n]}', "line 2 column 19"),
        ({"rules": [], "defaults": "allow"}, "unknown key"),
        ({"rules": [{"kind": "edit", "decison": "allow"}]}, "rule 1: unknown key"),
        ({"rules": [{"kind": "edit"}]}, "'decision' is required"),
        ({"rules": [{"decision": "maybe"}]}, "must be 'allow', 'reject' or 'ask'"),
        ({"rules": [{"decision": ["allow"]}]}, "must be 'allow'"),
        ({"rules": [{"kind": "edits", "decision": "allow"}]}, "unknown kind"),
        ({"rules": [{"kind": [], "decision": "allow"}]}, "non-empty list"),
        ({"rules": [{"path": 3, "decision": "allow"}]}, "'path' must be a glob"),
        ({"rules": {"kind": "edit"}}, "'rules': must be a list"),
        ({"rules": ["edit"]}, "rule 1: must be an object"),
        ([1, 2], "top level"),
        ({"default": "sure"}, "'default'"),
    ],
)
def test_bad_rules_files(tmp_path, content, needle):
    path = write_rules(tmp_path, content, "bad.json")
    with pytest.raises(PolicyFileError, match=r"bad\.json") as info:
        RulesPolicy.from_file(path)
    assert needle in str(info.value)
    assert isinstance(info.value, ValueError)


def test_missing_rules_file(tmp_path):
    with pytest.raises(PolicyFileError, match=r"nope\.json does not exist"):
        RulesPolicy.from_file(tmp_path / "nope.json")


# -- option choice ------------------------------------------------------------------


class Fixed:
    def __init__(self, verdict):
        self.verdict = verdict
        self.calls = 0

    async def decide(self, request):
        self.calls += 1
        return self.verdict


@pytest.mark.parametrize(
    ("verdict", "options", "expected"),
    [
        (Verdict.allow(), STD, ("opt-a1", "allow_once")),
        (Verdict.allow(always=True), STD, ("opt-aa", "allow_always")),
        (Verdict.reject(), STD, ("opt-r1", "reject_once")),
        (Verdict.reject(always=True), STD, ("opt-ra", "reject_always")),
        # fallbacks inside the same polarity
        (Verdict.allow(), STD[1:], ("opt-aa", "allow_always")),
        (Verdict.allow(always=True), STD[:1] + STD[2:], ("opt-a1", "allow_once")),
        (Verdict.reject(), (STD[0], STD[3]), ("opt-ra", "reject_always")),
        # allow with no allow option: the safe side, a reject option
        (Verdict.allow(), STD[2:], ("opt-r1", "reject_once")),
        # reject with no reject option: cancelled
        (Verdict.reject(), STD[:2], (None, None)),
        (Verdict.allow(), (), (None, None)),
    ],
)
async def test_option_chosen_by_kind(verdict, options, expected):
    broker = PermissionBroker(Fixed(verdict))
    outcome = await broker.request(req(options=options))
    assert (outcome.option_id, outcome.option_kind) == expected
    assert outcome.cancelled is (expected[0] is None)


async def test_ids_are_never_interpreted():
    tricky = (
        PermissionOption("allow_once", "trap", "reject_once"),
        PermissionOption("reject", "real allow", "allow_once"),
        PermissionOption("x", "unknown", "allow_forever"),
    )
    allow = await PermissionBroker(AllowAll()).request(req(options=tricky))
    assert allow.option_id == "reject"
    deny = await PermissionBroker(DenyAll()).request(req(options=tricky))
    assert deny.option_id == "allow_once"
    only_unknown = await PermissionBroker(AllowAll()).request(req(options=tricky[2:]))
    assert only_unknown.cancelled


async def test_duplicate_kinds_pick_first():
    opts = (
        PermissionOption("first", "a", "allow_once"),
        PermissionOption("second", "b", "allow_once"),
    )
    assert (await PermissionBroker(AllowAll()).request(req(options=opts))).option_id == "first"


# -- sticky ---------------------------------------------------------------------


async def test_always_is_sticky_per_session():
    policy = Fixed(Verdict.allow("user", always=True))
    broker = PermissionBroker(policy)
    assert (await broker.request(req())).option_kind == "allow_always"
    policy.verdict = Verdict.reject()
    again = await broker.request(req(tool_call_id="tc2"))
    assert again.option_kind == "allow_once" and "remembered" in again.reason
    assert policy.calls == 1
    # a different title is a different key
    assert (await broker.request(req(title="Edit other"))).decision == "reject"
    # another session does not inherit it
    assert (await broker.request(req(session_id="s2"))).decision == "reject"


async def test_always_reject_sticky_and_per_agent():
    policy = Fixed(Verdict.reject(always=True))
    broker = PermissionBroker(policy, remember_per_agent=True)
    assert (await broker.request(req())).option_kind == "reject_always"
    policy.verdict = Verdict.allow()
    assert (await broker.request(req(session_id="s2"))).decision == "reject"
    assert policy.calls == 1


# -- ask ----------------------------------------------------------------------------


async def test_ask_without_handler_rejects_and_with_handler_asks():
    rules = RulesPolicy.from_dict({"rules": [], "default": "ask"})
    outcome = await PermissionBroker(rules).request(req())
    assert outcome.decision == "reject" and "non-interactive" in outcome.reason

    async def yes(request):
        return Verdict.allow("clicked")

    outcome = await PermissionBroker(rules, ask=Interactive(yes)).request(req())
    assert (outcome.decision, outcome.reason) == ("allow", "clicked")


# -- cancellation -------------------------------------------------------------------


async def test_cancel_resolves_pending_and_blocks_new_until_turn():
    started = asyncio.Event()
    cancelled = []

    async def slow(request):
        started.set()
        try:
            await asyncio.sleep(100)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return Verdict.allow()

    broker = PermissionBroker(Interactive(slow))
    pending = asyncio.create_task(broker.request(req()))
    other = asyncio.create_task(broker.request(req(session_id="s2")))
    await started.wait()
    broker.cancel_session("s1")
    outcome = await asyncio.wait_for(pending, 1)
    assert outcome.cancelled and cancelled
    assert not other.done()  # other sessions are untouched
    other.cancel()
    # new requests of s1 are answered cancelled at once, mediation raises
    assert (await asyncio.wait_for(broker.request(req()), 1)).cancelled
    with pytest.raises(RequestCancelled):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/a.py"))
    broker.begin_turn("s1")
    allowing = PermissionBroker(AllowAll())
    allowing.cancel_session("s1")
    allowing.begin_turn("s1")
    assert (await allowing.request(req())).decision == "allow"


async def test_cancel_of_pending_check():
    gate = asyncio.Event()
    asked = asyncio.Event()

    async def waits(request):
        asked.set()
        await gate.wait()
        return Verdict.allow()

    broker = PermissionBroker(Interactive(waits))
    task = asyncio.create_task(broker.check(PermissionRequest.for_fs_write("s1", "/ws/x")))
    await asyncio.wait_for(asked.wait(), 10)  # the check is pending on the user
    broker.cancel_session("s1")
    with pytest.raises(RequestCancelled):
        await asyncio.wait_for(task, 1)


async def test_request_itself_cancelled_cancels_prompt():
    cancelled = []
    asked = asyncio.Event()

    async def slow(request):
        asked.set()
        try:
            await asyncio.sleep(100)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return Verdict.allow()

    broker = PermissionBroker(Interactive(slow))
    task = asyncio.create_task(broker.request(req()))
    await asyncio.wait_for(asked.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await eventually(lambda: cancelled, what="the question's own cancellation")
    assert cancelled


async def test_policy_failure_rejects():
    class Broken:
        async def decide(self, request):
            raise ValueError("bug")

    outcome = await PermissionBroker(Broken()).request(req())
    assert outcome.decision == "reject"


# -- mediation --------------------------------------------------------------------


async def test_check_allow_and_deny():
    await PermissionBroker(AllowAll()).check(PermissionRequest.for_fs_write("s", "/ws/a"))
    broker = PermissionBroker(
        RulesPolicy.from_dict(
            {"rules": [{"kind": "edit", "decision": "reject"}]}, source="policy.json"
        )
    )
    with pytest.raises(InternalError) as info:
        await broker.check(PermissionRequest.for_fs_write("s", "/x/y"))
    assert info.value.code == -32603
    assert info.value.message == (
        "permission denied by the host's policy: writing /x/y (rule 1 in policy.json)"
    )
    assert info.value.data == {"reason": "permission_denied"}
    with pytest.raises(InternalError, match="running 'rm -rf /'"):
        await PermissionBroker().check(PermissionRequest.for_terminal("s", "rm -rf /"))


async def test_check_after_allowed_tool_call_in_turn():
    asked = []

    async def prompt(request):
        asked.append(request.operation)
        return Verdict.allow("user")

    broker = PermissionBroker(DenyAll(), ask=None)
    # the policy denies, but the agent asked and the user allowed (via a rules ask)
    broker = PermissionBroker(
        RulesPolicy.from_dict({"rules": [], "default": "ask"}), ask=Interactive(prompt)
    )
    outcome = await broker.request(req(kind="edit", paths=("/ws/a.py",), tool_call_id="tc9"))
    assert outcome.decision == "allow"
    await broker.check(PermissionRequest.for_fs_write("s1", "/ws/./a.py"))
    outcome = await broker.request(
        req(kind="execute", title="`ls -la`", command="ls -la", paths=(), tool_call_id="tc10")
    )
    await broker.check(PermissionRequest.for_terminal("s1", "bash", ["-c", "ls -la"]))
    await broker.check(PermissionRequest.for_terminal("s1", "ls -la"))
    assert asked == ["tool_call", "tool_call"]
    # a different path / command is asked again
    await broker.check(PermissionRequest.for_fs_write("s1", "/ws/b.py"))
    assert asked[-1] == "fs_write"
    # a new turn forgets this turn's grants
    broker.begin_turn("s1")
    await broker.check(PermissionRequest.for_fs_write("s1", "/ws/a.py"))
    assert asked == ["tool_call", "tool_call", "fs_write", "fs_write"]


async def test_rejected_tool_call_grants_nothing():
    broker = PermissionBroker(DenyAll())
    await broker.request(req(paths=("/ws/a.py",)))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/a.py"))


async def test_grants_are_typed_by_kind():
    """A read grants nothing; execute grants only its command; edit only its paths."""
    broker = PermissionBroker(AllowReads())
    outcome = await broker.request(
        req(kind="read", title="Read README", command="touch /ws/pwned", paths=("/ws/setup.py",))
    )
    assert outcome.decision == "allow"
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_terminal("s1", "touch /ws/pwned"))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/setup.py"))

    # every tool call is allowed, every mediated operation rejected: only the
    # kind of the grant decides what passes
    broker = PermissionBroker(ToolCallsOnly())
    for kind in ("read", "search", "think", "fetch", "switch_mode", "other", None, "brand_new"):
        await broker.request(req(kind=kind, command="make", paths=("/ws/a.py",), title=str(kind)))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_terminal("s1", "make"))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/a.py"))
    # execute: the command, not the paths it names
    await broker.request(req(kind="execute", command="make", paths=("/ws/a.py",)))
    await broker.check(PermissionRequest.for_terminal("s1", "make"))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_terminal("s1", "make install"))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/a.py"))
    # edit, delete, move: the paths, not the command
    for kind, path in (("edit", "/ws/e.py"), ("delete", "/ws/d.py"), ("move", "/ws/m.py")):
        await broker.request(req(kind=kind, command=f"rm {path}", paths=(path,)))
        await broker.check(PermissionRequest.for_fs_write("s1", path))
        with pytest.raises(InternalError):
            await broker.check(PermissionRequest.for_terminal("s1", f"rm {path}"))
    # the tool call id alone is not a grant: it is the agent's choice
    await broker.request(req(kind="edit", paths=("/ws/x.py",), tool_call_id="tc-x"))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/y.py", tool_call_id="tc-x"))


async def test_allowed_terminal_grants_no_write_to_its_cwd():
    policy = RulesPolicy.from_dict({"rules": [{"kind": "execute", "decision": "allow"}]})
    broker = PermissionBroker(policy)
    await broker.check(PermissionRequest.for_terminal("s1", "ls", cwd="/ws/target"))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/target"))


class ToolCallsOnly:
    """Allow the agent's tool calls, whatever the kind; reject every mediated operation."""

    async def decide(self, request):
        if request.operation != "tool_call":
            return Verdict.reject("mediated")
        return Verdict.allow("tool call")


async def test_always_covers_only_the_same_command_and_paths():
    asked = []

    async def user(request):
        asked.append((request.command, request.paths))
        if request.command == "git status" or request.paths == ("/ws/a.py",):
            return Verdict.allow("user", always=True)
        return Verdict.reject("user")

    broker = PermissionBroker(Interactive(user))
    same_title = {"title": "Run git status", "kind": "execute", "paths": ()}
    assert (await broker.request(req(command="git status", **same_title))).decision == "allow"
    assert (await broker.request(req(command="git status", **same_title))).decision == "allow"
    assert len(asked) == 1  # remembered
    outcome = await broker.request(req(command="rm -rf ~", **same_title))
    assert outcome.decision == "reject" and len(asked) == 2
    # the same for paths
    assert (await broker.request(req(title="Edit", paths=("/ws/a.py",)))).decision == "allow"
    assert (await broker.request(req(title="Edit", paths=("/ws/./a.py",)))).decision == "allow"
    assert len(asked) == 3
    outcome = await broker.request(req(title="Edit", paths=("/ws/.bashrc",)))
    assert outcome.decision == "reject" and len(asked) == 4
    outcome = await broker.request(req(title="Edit", paths=("/ws/a.py", "/ws/b.py")))
    assert outcome.decision == "reject" and len(asked) == 5


def test_terminal_request_shows_the_environment():
    env = {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.fsmonitor",
        "GIT_CONFIG_VALUE_0": "touch pwned",
    }
    request = PermissionRequest.for_terminal("s", "git", ["status"], env=env)
    assert request.command == (
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "
        "GIT_CONFIG_VALUE_0='touch pwned' git status"
    )
    assert request.title == f"run {request.command}"
    line = PermissionRequest.for_terminal("s", "make all", env={"PATH": "/tmp/evil bin"})
    assert line.command == "PATH='/tmp/evil bin' make all"
    assert PermissionRequest.for_terminal("s", "git", ["status"], env={}).command == "git status"


@pytest.mark.parametrize("glob", ["git status", "git *", "git status*"])
async def test_rules_for_a_command_do_not_match_it_with_an_environment(glob):
    policy = RulesPolicy.from_dict(
        {"rules": [{"kind": "execute", "command": glob, "decision": "allow"}]}
    )
    plain = PermissionRequest.for_terminal("s", "git", ["status"])
    assert (await policy.decide(plain)).decision is Decision.ALLOW
    for env in ({"LD_PRELOAD": "/ws/evil.so"}, {"PATH": "/ws/bin"}, {"GIT_CONFIG_COUNT": "1"}):
        request = PermissionRequest.for_terminal("s", "git", ["status"], env=env)
        assert (await policy.decide(request)).decision is Decision.REJECT


async def test_allowed_command_does_not_cover_it_with_an_environment():
    async def user(request):
        return Verdict.allow("user") if request.command == "git status" else Verdict.reject("no")

    broker = PermissionBroker(Interactive(user))
    await broker.request(req(kind="execute", command="git status", paths=()))
    await broker.check(PermissionRequest.for_terminal("s1", "git", ["status"]))
    with pytest.raises(InternalError):
        await broker.check(
            PermissionRequest.for_terminal("s1", "git", ["status"], env={"PATH": "/ws/bin"})
        )


async def test_closed_broker_cancels_everything_and_closes_the_log(tmp_path):
    log = tmp_path / "audit.jsonl"
    broker = PermissionBroker(AllowAll(), audit_log=log)
    assert (await broker.request(req())).decision == "allow"
    broker.close()
    broker.close()  # idempotent
    assert (await broker.request(req(session_id="new"))).cancelled
    with pytest.raises(RequestCancelled):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/a.py"))
    broker.begin_turn("s1")  # a closed broker stays closed
    assert (await broker.request(req())).cancelled
    assert len(log.read_text().splitlines()) == 1  # nothing audited after close


async def test_forget_session_drops_sticky_and_grants():
    policy = Fixed(Verdict.allow("user", always=True))
    broker = PermissionBroker(policy)
    await broker.request(req(kind="edit", paths=("/ws/a.py",)))
    broker.forget_session("s1")
    policy.verdict = Verdict.reject()
    assert (await broker.request(req(kind="edit", paths=("/ws/a.py",)))).decision == "reject"
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_fs_write("s1", "/ws/a.py"))


# -- audit log --------------------------------------------------------------------


async def test_audit_log_lines(tmp_path):
    log = tmp_path / "audit.jsonl"
    broker = PermissionBroker(AllowReads(), audit_log=log)
    await broker.request(req(kind="read", title="Read a.py"))
    await broker.request(req(kind="edit", raw_input={"content": "SECRET-CONTENT"}))
    with pytest.raises(InternalError):
        await broker.check(PermissionRequest.for_terminal("s1", "make", ["all"], cwd="/ws"))
    broker.cancel_session("s1")
    await broker.request(req())
    broker.close()
    text = log.read_text()
    assert "SECRET-CONTENT" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["decision"] for line in lines] == ["allow", "reject", "reject", "cancelled"]
    first = lines[0]
    assert set(first) == {
        "time",
        "session",
        "toolCallId",
        "operation",
        "toolKind",
        "toolName",
        "title",
        "paths",
        "command",
        "cwd",
        "decision",
        "optionKind",
        "reason",
    }
    assert first["time"].endswith("+00:00")
    assert (first["session"], first["toolCallId"], first["optionKind"]) == (
        "s1",
        "tc1",
        "allow_once",
    )
    assert lines[2]["operation"] == "terminal_create"
    assert lines[2]["command"] == "make all"
    assert lines[2]["toolKind"] == "execute"
    assert oct(log.stat().st_mode & 0o777) == "0o600"


async def test_audit_log_stream_and_odd_paths():
    stream = io.StringIO()
    broker = PermissionBroker(AllowAll(), audit_log=stream)
    await broker.request(req(paths=("/ws/caf\udce9",)))
    line = json.loads(stream.getvalue())
    assert line["paths"] == ["/ws/caf\udce9"]


def test_host_exports_pinned():
    import acphost.host as host

    assert sorted(host.__all__) == sorted(
        [
            "DEFAULT_MAX_READ_BYTES",
            "DEFAULT_OUTPUT_BYTE_LIMIT",
            "READ_ONLY_TOOL_KINDS",
            "AllowAll",
            "AllowReads",
            "AuditLog",
            "Authorizer",
            "Confinement",
            "Decision",
            "DenyAll",
            "ElicitationHandler",
            "ExitStatus",
            "FileSystemProvider",
            "FormField",
            "HostConfig",
            "HostTools",
            "Interactive",
            "OutputBuffer",
            "InteractiveCallback",
            "PermissionBroker",
            "PermissionOption",
            "PermissionOutcome",
            "PermissionPolicy",
            "PermissionRequest",
            "PolicyFileError",
            "ProtectedPaths",
            "SandboxUnavailable",
            "build_confinement",
            "sandbox_support",
            "startup_files",
            "check_form",
            "form_fields",
            "parse_field",
            "Rule",
            "RulesPolicy",
            "TerminalCreated",
            "TerminalEvent",
            "TerminalExited",
            "TerminalManager",
            "TerminalOutput",
            "TerminalOutputReceived",
            "Verdict",
            "Workspace",
            "check_terminal_params",
            "describe_request",
            "request_facts",
            "open_output",
            "resolve_path",
            "workspace_code_note",
        ]
    )
    assert all(hasattr(host, name) for name in host.__all__)


def test_audit_log_masks_secret_env_values(tmp_path):
    import json as _json

    from acphost.host import AuditLog, PermissionRequest

    log = tmp_path / "audit.jsonl"
    audit = AuditLog(str(log))
    req = PermissionRequest.for_terminal("s", "make", ["deploy"], env={"OPENAI_API_KEY": "sk-secret", "MODE": "ci"})
    audit.record(req, "allow", reason="test")
    audit.close()
    line = _json.loads(log.read_text())
    assert "sk-secret" not in log.read_text()
    assert "OPENAI_API_KEY=[REDACTED]" in line["command"] and "MODE=ci" in line["command"]


def test_audit_log_masks_the_configured_secrets_wherever_they_appear(tmp_path):
    """The audit log passes the one redactor: a configured value is masked in any field."""
    from acphost.host import AuditLog, PermissionRequest
    from acphost.redact import Redactor

    secret = "hunter2-plain-value"
    log = tmp_path / "audit.jsonl"
    audit = AuditLog(str(log), redactor=Redactor(secrets=[secret]))
    req = PermissionRequest.for_terminal("s", "curl", ["-u", f"me:{secret}", "https://x"])
    audit.record(req, "allow", reason=f"user typed {secret}")
    audit.close()
    assert secret not in log.read_text() and "curl" in log.read_text()
