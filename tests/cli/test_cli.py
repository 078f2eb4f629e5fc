"""End-to-end tests of the `acphost` command, run as a subprocess against real agents."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acphost.history import HistoryStore
from tests.cli.runner import environment, run, spawn
from tests.support.frames import FrameChecker
from tests.support.in_process import run_main


def check_jsonl(stdout: str) -> list[dict]:
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert lines[0]["method"] == "client/selected_agent"
    assert set(lines[0]["params"]) == {"name", "command"}
    checker = FrameChecker()
    # jsonl mirrors frames without a direction: classify them by protocol role.
    agent_methods = {
        "session/update",
        "session/request_permission",
        "elicitation/create",
        "elicitation/complete",
    }
    ours: set = set()
    theirs: set = set()
    for msg in lines[1:]:
        method = msg.get("method")
        raw = json.dumps(msg).encode()
        if method is not None:
            from_agent = method in agent_methods or method.split("/")[0] in ("fs", "terminal")
            if "id" in msg:
                (theirs if from_agent else ours).add(msg["id"])
            checker("receive" if from_agent else "send", raw)
        elif msg.get("id") in theirs and msg.get("id") not in ours:
            theirs.discard(msg["id"])
            checker("send", raw)
        elif msg.get("id") in ours and msg.get("id") not in theirs:
            ours.discard(msg["id"])
    assert not checker.errors, checker.errors
    assert checker.sent >= 3
    return lines


def test_text_output_default_demo(tmp_path):
    r = run(["show me around"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for tag in ("[plan]", "[tool]", "[diff]"):
        assert tag in r.stdout
    assert "\x1b[" not in r.stdout  # piped: plain


def test_the_readmes_first_command_through_the_console_script(tmp_path):
    """The README's first line, as a user types it: the installed ``acphost`` script, a
    whole process that ends once its output is flushed (the other tests call main())."""
    script = Path(sys.executable).with_name("acphost")
    r = subprocess.run([str(script), "hello, show me around"], cwd=tmp_path, capture_output=True,
                       text=True, env=environment(tmp_path), timeout=60)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "The search found 2 matches." in r.stdout and "[diff]" in r.stdout
    assert r.stderr == ""


def test_simple_output_only_text(tmp_path):
    r = run(["-o", "simple", "echo just this"], cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.strip().startswith("just this")
    assert "[" not in r.stdout


@pytest.mark.parametrize("mode", ["jsonl", "json"])
def test_jsonl_mirrors_every_frame(tmp_path, mode):
    r = run(["-o", mode, "--write", "--approve-all", f"write {tmp_path}/f.txt hi"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = check_jsonl(r.stdout)
    methods = [m.get("method") for m in lines]
    assert (
        "initialize" in methods and "session/prompt" in methods and "fs/write_text_file" in methods
    )
    assert any("result" in m and "stopReason" in m["result"] for m in lines)
    assert (tmp_path / "f.txt").read_text() == "hi"


def test_prompt_from_stdin(tmp_path):
    r = run(["-o", "simple"], cwd=tmp_path, input="echo from stdin\n")
    assert r.returncode == 0 and "from stdin" in r.stdout


def test_double_dash_forces_prompt(tmp_path):
    r = run(["-o", "simple", "--", "agents"], cwd=tmp_path)
    assert r.returncode == 0
    assert "NAME" not in r.stdout  # the prompt ran; the subcommand did not


def test_non_utf8_prompt_is_a_usage_error(tmp_path):
    full_env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    r = run_main([], cwd=tmp_path, stdin=b"\xff\xfe hi", env=full_env)
    assert r.returncode == 2 and b"UTF-8" in r.stderr_bytes and b"Traceback" not in r.stderr_bytes


def test_empty_stdin_is_a_usage_error(tmp_path):
    r = run([], cwd=tmp_path, input="")
    assert r.returncode == 2 and "empty" in r.stderr


def test_a_stdin_that_never_ends_is_a_usage_error(tmp_path):
    """``acphost < /dev/zero``: the prompt read from a pipe is bounded like any input."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / ".xdg"), "ACPHOST_SETTINGS": ""}
    with open("/dev/zero", "rb") as zero:
        r = run_main(["-a", "demo"], stdin=zero, cwd=tmp_path, env=env)
    err = r.stderr
    assert r.returncode == 2 and "Traceback" not in err
    assert "the prompt on stdin is larger than the 64 MiB limit" in err and err.count("\n") == 1


def test_mentions_become_resource_links(tmp_path):
    (tmp_path / "notes.md").write_text("x")
    (tmp_path / "with space.txt").write_text("y")
    r = run(
        [
            "-o",
            "jsonl",
            'echo see @notes.md and @"with space.txt" and @https://example.com/a and me@mail.com',
        ],
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    prompt = next(
        m for m in map(json.loads, r.stdout.splitlines()) if m.get("method") == "session/prompt"
    )
    blocks = prompt["params"]["prompt"]
    assert blocks[0]["type"] == "text" and "@notes.md" in blocks[0]["text"]
    links = [b for b in blocks if b["type"] == "resource_link"]
    uris = [b["uri"] for b in links]
    assert (tmp_path / "notes.md").as_uri() in uris
    assert (tmp_path / "with space.txt").as_uri() in uris
    assert "https://example.com/a" in uris and len(links) == 3
    assert next(b for b in links if b["name"] == "notes.md")["mimeType"] == "text/markdown"


def test_list_flags_in_order_then_prompt(tmp_path):
    r = run(
        ["--list-caps", "--list-modes", "--list-commands", "-o", "simple", "echo after"],
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert (
        out.index("capabilities\n")
        < out.index("modes\n")
        < out.index("  /help")
        < out.index("after")
    )


def test_list_only_needs_no_prompt(tmp_path):
    r = run(["--list-modes"], cwd=tmp_path, input="")
    assert r.returncode == 0 and "architect" in r.stdout


def test_writes_refused_by_default(tmp_path):
    r = run([f"write {tmp_path}/x.txt data"], cwd=tmp_path)
    assert r.returncode == 0
    assert not (tmp_path / "x.txt").exists()


def test_write_flag_allows_writes_inside_only(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    r = run(["--write", f"write {ws}/ok.txt data"], cwd=ws)
    assert (ws / "ok.txt").read_text() == "data"
    r = run(["--yolo", f"write {tmp_path}/escape.txt data"], cwd=ws)
    assert r.returncode == 0 and not (tmp_path / "escape.txt").exists()


def test_yolo_reads_outside(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "outside.txt").write_text("secret-outside\n")
    r = run(["-o", "simple", f"read {tmp_path}/outside.txt"], cwd=ws)
    assert "secret-outside" not in r.stdout
    r = run(["-o", "simple", "--yolo", f"read {tmp_path}/outside.txt"], cwd=ws)
    assert "secret-outside" in r.stdout


def test_deny_all_and_permission_policy_file(tmp_path):
    r = run(["-o", "simple", "--deny-all", "permission"], cwd=tmp_path)
    assert "reject" in r.stdout
    policy = tmp_path / "policy.json"
    policy.write_text(
        json.dumps({"rules": [{"kind": "execute", "decision": "reject"}], "default": "allow"})
    )
    r = run(["-o", "simple", "--permission-policy", str(policy), "terminal echo hi"], cwd=tmp_path)
    assert r.returncode == 0 and "hi\n" not in r.stdout
    policy.write_text("{not json")
    r = run(["--permission-policy", str(policy), "echo x"], cwd=tmp_path)
    assert r.returncode == 2 and "policy.json" in r.stderr


def test_no_terminal_and_no_fs(tmp_path):
    r = run(["-o", "jsonl", "--no-terminal", "--no-fs", "echo x"], cwd=tmp_path)
    init = next(
        m for m in map(json.loads, r.stdout.splitlines()) if m.get("method") == "initialize"
    )
    caps = init["params"]["clientCapabilities"]
    assert caps["terminal"] is False and caps["fs"] == {
        "readTextFile": False,
        "writeTextFile": False,
    }


def test_terminal_runs_by_default(tmp_path):
    r = run(["-o", "simple", "terminal echo hello-term"], cwd=tmp_path)
    assert r.returncode == 0 and "hello-term" in r.stdout


def test_audit_log(tmp_path):
    log = tmp_path / "audit.jsonl"
    run(["--approve-all", "--audit-log", str(log), "permission"], cwd=tmp_path)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries and entries[0]["decision"] == "allow"


def test_sessions_save_resume_and_list(tmp_path):
    env = {"ACPHOST_DEMO_STATE_DIR": str(tmp_path / "state")}
    saved = tmp_path / "session.json"
    r = run(
        ["--save-session", str(saved), "-o", "simple", "echo remember me"], cwd=tmp_path, env=env
    )
    assert r.returncode == 0, r.stderr
    sid = json.loads(saved.read_text())["sessionId"]
    r = run(["--resume", str(saved), "-o", "simple", "echo again"], cwd=tmp_path, env=env)
    assert r.returncode == 0 and "again" in r.stdout, r.stderr
    r = run(["--resume", sid, "-o", "simple", "echo third"], cwd=tmp_path, env=env)
    assert r.returncode == 0
    r = run(["sessions", "list"], cwd=tmp_path, env=env)
    assert r.returncode == 0 and sid in r.stdout
    r = run(["sessions", "-o", "jsonl"], cwd=tmp_path, env=env)
    assert json.loads(r.stdout.splitlines()[0])["sessionId"] == sid


def test_mode_model_config(tmp_path):
    r = run(
        [
            "-o",
            "jsonl",
            "--mode",
            "code",
            "--model",
            "demo-smart",
            "--config",
            "verbose=true",
            "echo x",
        ],
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    methods = [m.get("method") for m in map(json.loads, r.stdout.splitlines())]
    assert "session/set_mode" in methods and methods.count("session/set_config_option") == 2
    r = run(["--mode", "nope", "echo x"], cwd=tmp_path)
    assert r.returncode == 2 and "valid modes: ask, code, architect" in r.stderr
    r = run(["--config", "model=gpt-9", "echo x"], cwd=tmp_path)
    assert r.returncode == 2 and "demo-fast" in r.stderr
    r = run(["--config", "nokey=1", "echo x"], cwd=tmp_path)
    assert r.returncode == 2 and "valid options" in r.stderr


def test_auth_required_message_and_auth_flag(tmp_path):
    env = {"ACPHOST_DEMO_REQUIRE_AUTH": "1"}
    r = run(["echo x"], cwd=tmp_path, env=env)
    assert r.returncode == 1
    assert "demo-login" in r.stderr and "--auth" in r.stderr
    r = run(["--auth", "demo-login", "-o", "simple", "echo authed"], cwd=tmp_path, env=env)
    assert r.returncode == 0 and "authed" in r.stdout


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{", "invalid JSON at line 1"),
        ('{"agent_servers": []}', "agent_servers"),
        ('{"agent_servers": {"x": {"command": 5}}}', "agent_servers.x.command"),
        ('{"agent_servers": {"x": {"command": "a", "args": "b"}}}', "args must be a list"),
        ('{"agent_servers": {"x": {"command": "a", "env": {"K": 1}}}}', "env must be"),
    ],
)
def test_settings_errors_exit_2(tmp_path, content, needle):
    settings = tmp_path / "settings.json"
    settings.write_text(content)
    r = run(["--settings", str(settings), "echo x"], cwd=tmp_path)
    assert r.returncode == 2
    assert needle in r.stderr and str(settings) in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_settings_missing_and_unknown_agent(tmp_path):
    r = run(["--settings", str(tmp_path / "nope.json"), "echo x"], cwd=tmp_path)
    assert r.returncode == 2 and "does not exist" in r.stderr
    r = run(["-a", "no-such-agent", "echo x"], cwd=tmp_path)
    assert r.returncode == 2 and "unknown agent" in r.stderr and "demo" in r.stderr


def test_settings_agent_selection_and_zed_shape(tmp_path):
    settings = tmp_path / ".acphost" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "theme": "ignored: a Zed settings file has many other keys",
                "agent_servers": {
                    "mydemo": {
                        "command": sys.executable,
                        "args": ["-m", "acphost.agents.demo"],
                        "env": {"ACPHOST_DEMO_STEP": "0"},
                    }
                },
            }
        )
    )
    assert run(["trust"], cwd=tmp_path).returncode == 0  # project settings need trust
    r = run(["-o", "jsonl", "echo via settings"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout.splitlines()[0])
    assert first["params"] == {"name": "mydemo", "command": sys.executable}
    r = run(["agents"], cwd=tmp_path)
    assert "mydemo" in r.stdout and str(settings) in r.stdout


def test_agent_not_installed_exit_1(tmp_path):
    settings = tmp_path / "s.json"
    settings.write_text(
        json.dumps({"agent_servers": {"ghost": {"command": "/nonexistent/ghost-agent"}}})
    )
    r = run(["--settings", str(settings), "echo x"], cwd=tmp_path)
    assert r.returncode == 1 and "not found" in r.stderr and "Traceback" not in r.stderr


def test_agent_crash_exit_1_with_stderr_tail(tmp_path):
    r = spawn(["crash"], cwd=tmp_path)  # a whole process: its exit code as a shell sees it
    assert r.returncode == 1
    assert "code 3" in r.stderr and "Traceback" not in r.stderr


def test_non_end_turn_stop_reason_on_stderr(tmp_path):
    r = run(["-o", "simple", "refuse"], cwd=tmp_path)
    assert r.returncode == 0 and "stop reason: refusal" in r.stderr


def test_doctor_and_agents(tmp_path):
    r = run(["doctor"], cwd=tmp_path)
    assert r.returncode == 0 and "initialize:   ok" in r.stdout and "acphost-demo" in r.stdout
    r = run(["agents"], cwd=tmp_path)
    assert (
        r.returncode == 0 and "demo" in r.stdout and "claude" in r.stdout and "gemini" in r.stdout
    )


def test_help_and_bad_flag(tmp_path):
    r = run(["--help"], cwd=tmp_path)
    assert r.returncode == 0 and "exit codes" in r.stdout
    r = run(["--no-such-flag"], cwd=tmp_path)
    assert r.returncode == 2


def test_sigint_cancels_the_turn_and_exits_130(tmp_path):
    env = {**os.environ, "ACPHOST_DEMO_STEP": "0.05", "XDG_CONFIG_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", "-o", "jsonl", "slow"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if '"agent_message_chunk"' in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 130, err
    lines = [json.loads(x) for x in out.splitlines()]
    assert any(m.get("method") == "session/cancel" for m in lines)
    assert any(
        m.get("result", {}).get("stopReason") == "cancelled"
        for m in lines
        if isinstance(m.get("result"), dict)
    )
    # The history says the host stopped the turn.
    history = Path(os.environ["XDG_DATA_HOME"]) / "acphost" / "history.sqlite3"
    with HistoryStore.open(str(history)) as store:
        (summary,) = store.list_sessions()
        (turn,) = store.get(summary.id).turns
    assert (turn.stop_reason, turn.host_stop) == ("cancelled", "interrupted")


def test_second_sigint_kills_the_agent(tmp_path):
    # An agent that ignores session/cancel: the second Ctrl-C must end everything.
    agent = tmp_path / "stubborn.py"
    agent.write_text(Path(__file__).with_name("stubborn_agent.py").read_text())
    settings = tmp_path / "s.json"
    settings.write_text(
        json.dumps(
            {"agent_servers": {"stubborn": {"command": sys.executable, "args": [str(agent)]}}}
        )
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", "--settings", str(settings), "-o", "jsonl", "hang"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if '"session/prompt"' in line:
            break
    # The prompt is on the wire, so the run's Ctrl-C handler is in place.
    proc.send_signal(signal.SIGINT)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    assert "cancelling (Ctrl-C again to stop the agent)" in first, first
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=15)
    assert proc.returncode == 130
    assert "Traceback" not in err and "never retrieved" not in err, err
    history = Path(os.environ["XDG_DATA_HOME"]) / "acphost" / "history.sqlite3"
    with HistoryStore.open(str(history)) as store:
        (summary,) = store.list_sessions()
        (turn,) = store.get(summary.id).turns
    assert turn.host_stop == "interrupted" and turn.error
    pid_file = tmp_path / "stubborn.pid"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the stubborn agent survived")


# -- the command line, polished ----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-a", "demo", "doctor"], "initialize:   ok"),
        (["-v", "sessions"], "sessions"),
        (["--settings", "{settings}", "agents"], "NAME"),
        (["--agent=demo", "-vv", "doctor"], "initialize:   ok"),
    ],
)
def test_subcommand_after_global_options(tmp_path, args, needle):
    settings = tmp_path / "s.json"
    settings.write_text(json.dumps({"agent_servers": {}}))
    args = [a.replace("{settings}", str(settings)) for a in args]
    r = run(args, cwd=tmp_path, env={"ACPHOST_DEMO_STATE_DIR": str(tmp_path / "state")})
    assert r.returncode == 0, r.stderr
    assert needle in r.stdout + r.stderr
    assert "The search found" not in r.stdout  # no prompt was sent


def test_agent_named_like_a_subcommand_is_not_a_subcommand(tmp_path):
    r = run(["-a", "doctor", "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "unknown agent 'doctor'" in r.stderr


@pytest.mark.parametrize("prompt", ["", "   ", "\n"])
def test_empty_prompt_argument_is_a_usage_error(tmp_path, prompt):
    r = run([prompt], cwd=tmp_path)
    assert r.returncode == 2 and "empty" in r.stderr


def test_usage_error_is_one_line(tmp_path):
    r = run(["--no-such-flag"], cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        "acphost: unrecognized arguments: --no-such-flag; see 'acphost --help'"
    ]
    r = run(["doctor", "--bogus"], cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "acphost doctor --help" in r.stderr


@pytest.mark.parametrize("flag", ["--trace", "--save-session", "--audit-log"])
def test_unwritable_output_file_fails_before_the_agent_starts(tmp_path, flag):
    marker = tmp_path / "agent-started"
    command = f"{sys.executable} -c \"open({str(marker)!r}, 'w')\""
    for target in (tmp_path / "no" / "such" / "dir.json", tmp_path):
        r = run(["--agent-command", command, flag, str(target), "hi"], cwd=tmp_path)
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith(f"acphost: {flag} ") and len(r.stderr.splitlines()) == 1
    assert not marker.exists()


def test_missing_mention_is_reported_and_not_linked(tmp_path):
    (tmp_path / "here.md").write_text("x")
    r = run(["-o", "jsonl", 'echo @here.md @gone.py @"also gone.txt" @everyone'], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "@gone.py: no such file" in r.stderr and "@also gone.txt: no such file" in r.stderr
    assert "everyone" not in r.stderr
    prompt = next(
        m for m in map(json.loads, r.stdout.splitlines()) if m.get("method") == "session/prompt"
    )
    links = [b["uri"] for b in prompt["params"]["prompt"] if b["type"] == "resource_link"]
    assert links == [(tmp_path / "here.md").as_uri()]


def test_agent_command_runs_argv_without_a_shell(tmp_path):
    marker = tmp_path / "pwned"
    # The demo agent, started so that it ignores its own arguments: they only
    # show what reached it. Were they given to a shell, the marker would exist.
    start = "import sys; from acphost.agents.demo._agent import main; sys.exit(main([]))"
    command = f"{sys.executable} -c {shlex.quote(start)} '$(touch {marker})' ; touch {marker}"
    r = run(["--agent-command", command, "-o", "simple", "echo via argv"], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "via argv\n", r.stderr
    assert not marker.exists()  # quotes grouped words; nothing was expanded or chained
    command = f"{sys.executable} -m acphost.agents.demo"
    r = run(["--agent-command", "'unclosed", "hi"], cwd=tmp_path)
    assert r.returncode == 2 and "--agent-command" in r.stderr
    r = run(["-a", "demo", "--agent-command", command, "hi"], cwd=tmp_path)
    assert r.returncode == 2 and "exclude each other" in r.stderr


def test_simple_separates_messages_with_a_blank_line(tmp_path):
    r = run(["-o", "simple", "show me around"], cwd=tmp_path)
    assert r.returncode == 0
    assert "The search found 2 matches.\n\n## The acphost demo agent" in r.stdout


def test_listings_are_sections_with_json_spelling(tmp_path):
    r = run(["--list-caps", "--list-modes", "--list-commands"], cwd=tmp_path, input="")
    assert r.returncode == 0, r.stderr
    sections = r.stdout.split("\n\n")
    heads = [section.splitlines()[0] for section in sections]
    assert heads == ["agent", "capabilities", "auth methods", "modes", "config options", "commands"]
    assert "  loadSession: true" in r.stdout and "verbose = false" in r.stdout
    assert "True" not in r.stdout and "False" not in r.stdout
    r = run(["-o", "jsonl", "--list-caps"], cwd=tmp_path, input="")
    assert all(line.startswith("{") for line in r.stdout.splitlines())


def test_help_says_jsonl_is_not_redacted(tmp_path):
    r = run(["--help"], cwd=tmp_path)
    assert "not redacted" in " ".join(r.stdout.split())


def test_bad_policy_file_after_the_agent_started_leaves_no_agent(tmp_path):
    # The agent starts before the policy file is read: a bad file must still end it.
    agent = tmp_path / "stubborn.py"
    agent.write_text(Path(__file__).with_name("stubborn_agent.py").read_text())
    policy = tmp_path / "policy.json"
    policy.write_text("{not json")
    command = f"{sys.executable} {agent}"
    r = run(["--agent-command", command, "--permission-policy", str(policy), "hi"], cwd=tmp_path)
    assert r.returncode == 2 and "policy.json" in r.stderr
    pid_file = tmp_path / "stubborn.pid"
    if pid_file.exists():  # it got far enough to write it: it must be gone now
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid_file.read_text()), 0)


@pytest.mark.parametrize("output", ["text", "simple", "jsonl"])
def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path, output):
    """`acphost ... | head -1`: no error about the agent the host itself stopped."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", "-o", output, "stream 2000"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()  # the reader goes away
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert err == b"", err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("output", ["text", "simple", "jsonl"])
def test_a_full_disk_ends_the_run_with_one_clear_line(tmp_path, output):
    """The deferred write fails (ENOSPC): exit 1, one line on stderr, no traceback."""
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "acphost", "-o", output, "flood 20000"],
            cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
            env={**os.environ, "ACPHOST_DEMO_STEP": "0", "XDG_CONFIG_HOME": str(tmp_path)},
        )
    assert r.returncode == 1
    assert r.stderr == "acphost: cannot write the output: No space left on device\n", r.stderr


def test_approve_all_and_an_allowing_rule_offer_writes(tmp_path):
    """Writes are offered whenever something can allow one (not only --write)."""
    run(["--approve-all", f"write {tmp_path}/a.txt data"], cwd=tmp_path)
    assert (tmp_path / "a.txt").read_text() == "data"
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"kind": "edit", "decision": "allow"}]}))
    run(["--permission-policy", str(policy), f"write {tmp_path}/b.txt data"], cwd=tmp_path)
    assert (tmp_path / "b.txt").read_text() == "data"


def test_the_agent_cannot_rewrite_the_settings_or_the_rules_it_runs_under(tmp_path):
    """The settings file chooses the next run's agent command and the rules file
    what is allowed: neither may be rewritten by the agent, even with --write."""
    settings = tmp_path / "mysettings.json"
    original = json.dumps({"agent_servers": {"d": {"command": "acphost-demo-never-used"}}})
    settings.write_text(original)
    policy = tmp_path / "pol.json"
    rules = json.dumps({"rules": [{"kind": "edit", "decision": "allow"}], "default": "reject"})
    policy.write_text(rules)
    evil = json.dumps({"default": "allow"})
    for target, flags in (
        (settings, ["--settings", str(settings), "-a", "demo", "--write"]),
        (policy, ["--permission-policy", str(policy), "--write"]),
    ):
        r = run([*flags, "-o", "simple", f"write {target} {evil}"], cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert target.read_text() in (original, rules), target
    env_settings = tmp_path / "env-settings.json"
    env_settings.write_text(original)
    r = run(["-a", "demo", "--write", f"write {env_settings} {evil}"], cwd=tmp_path,
            env={"ACPHOST_SETTINGS": str(env_settings)})
    assert env_settings.read_text() == original


def test_jsonl_mirrors_a_flood_frame_by_frame_in_order(tmp_path):
    """The updates of a flood reach the mirror in blocks: every frame is still there, whole, in order."""
    r = run(["-o", "jsonl", "flood 5000"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = check_jsonl(r.stdout)
    texts = [
        m["params"]["update"]["content"]["text"]
        for m in lines
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    assert texts == [f"flood {i}\n" for i in range(1, 5001)]
    assert r.stdout.endswith("\n") and "\n\n" not in r.stdout


def test_doctor_says_what_the_agent_supports(tmp_path):
    """`doctor` prints a row per feature, read from what the agent advertised."""
    r = run(["doctor"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = dict(line.split(":", 1) for line in r.stdout.splitlines() if ":" in line[:14])
    rows = {k.strip(): v.strip() for k, v in rows.items()}
    assert rows["protocol"] == "version 1"
    assert rows["sessions"] == "new, load, resume, list, fork, close, delete"
    assert rows["sys prompt"] == "append, override"
    assert rows["subagents"] == "not advertised"
    assert rows["prompts"] == "text, image, embedded context"


def test_doctor_rows_read_only_what_is_advertised():
    """Claude- and codex-shaped capabilities, and malformed values, row by row."""
    from acphost.cli._commands import supports

    claude = {
        "loadSession": True,
        "promptCapabilities": {"image": True, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": True},
        "auth": {"logout": {}},
        "sessionCapabilities": {"resume": {}, "list": {}, "systemPrompt": {"mode": {"override": {}}}},
    }
    rows = dict(supports(claude, 1))
    assert rows["sessions"] == "new, load, resume, list"
    assert rows["sys prompt"] == "append, override" and rows["mcp servers"] == "stdio, http, sse"
    codex = {"sessionCapabilities": {"systemPrompt": {}, "subagents": {}}}
    rows = dict(supports(codex, 1))
    assert rows["sys prompt"] == "append" and rows["subagents"] == "advertised"
    assert rows["sessions"] == "new" and rows["auth"] == "login only"
    bad = {"loadSession": "yes", "sessionCapabilities": {"systemPrompt": True, "resume": 1}}
    rows = dict(supports(bad, 1))
    assert rows["sessions"] == "new" and rows["sys prompt"] == "no"
    assert dict(supports(None, 1))["prompts"] == "text"
