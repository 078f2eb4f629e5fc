"""acphost -s NAME: the host serves only this user's acphost, never a sandboxed agent.

Through real processes: a host started by a real run, and clients connecting
to its real socket (one confined by acphost's own sandbox).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

from acphost._namedwire import WIRE_VERSION
from acphost.config import AgentSpec
from acphost.launch import named_places
from tests.support.named import Named, hosts_in, processes_in
from tests.support.waiting import eventually_sync

_KEEP = ("--keep-alive", "30s")
_QUICK = ("--keep-alive", "0.3s")


def agents_running(workspace):
    return [pid for pid, cmd in processes_in(workspace).items() if "demo._agent" in cmd]


#: A client that knows the socket's path but not the token: it tries every request.
_PROBE = r"""
import json, socket, sys
path, token_file = sys.argv[1], sys.argv[2]
try:
    open(token_file).read()
    print("TOKEN READ")
except OSError:
    print("token unreadable")
requests = [
    {"v": VERSION, "op": "status"},
    {"v": VERSION, "op": "cancel_running"},
    {"v": VERSION, "op": "status", "token": "guess"},
    {"v": VERSION, "op": "prompt", "prompt": [{"type": "text", "text": "echo injected"}],
     "options": {"no_such_option": 1}, "keep_alive": 600},
]
for request in requests:
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(20)
            s.connect(path)
            s.sendall(json.dumps(request).encode() + b"\n")
            answer = s.makefile("rb").readline()
            print("answer", json.loads(answer).get("t") if answer else "closed",
                  answer.decode(errors="replace").strip())
    except OSError as exc:
        print("unreachable", type(exc).__name__)
"""


@pytest.fixture
def named(workspace):
    runs = Named(workspace)
    yield runs
    left = runs.close()
    assert not left, f"processes left behind: {left}"


def _probe(place, preexec=None, env=None):
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.replace("VERSION", str(WIRE_VERSION)), place.socket, os.path.join(place.folder, "token")],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=preexec,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _refused_only(lines):
    answers = [line for line in lines if line.startswith(("answer", "unreachable"))]
    assert len(answers) == 4, lines
    for line in answers:
        if line.startswith("answer"):
            kind = line.split()[1]
            assert kind == "denied", line
            assert "no_such_option" not in line, line  # nothing said about the options


def test_a_client_without_the_token_is_refused_and_a_real_run_is_served(named, workspace):
    done = named.run("-a", "demo", "-s", "tok", "--keep-alive", "30s", "echo one")
    assert done.returncode == 0 and done.stdout == "one\n", done.stderr
    (place,) = named_places(str(workspace))
    assert os.stat(os.path.join(place.folder, "token")).st_mode & 0o777 == 0o600
    lines = _probe(place)
    _refused_only(lines)
    assert "TOKEN READ" in lines  # the user's own process may read it, but did not send it
    row = named.status("tok")
    assert row["state"] == "idle" and row["keep_alive"] == 30.0  # the probe changed nothing
    done = named.run("-a", "demo", "-s", "tok", "--keep-alive", "0.3s", "echo two")
    assert done.returncode == 0 and done.stdout == "two\n", done.stderr
    named.wait_gone()


def test_a_process_in_acphosts_sandbox_cannot_use_a_named_session(named, workspace, monkeypatch):
    from acphost.host import build_confinement, sandbox_support

    if sandbox_support()[0] == 0:
        pytest.skip("no Landlock here")
    # A state folder too deep for a socket's path: the socket is in /tmp, which
    # the sandbox does not hide; the token stays in the (denied) state folder.
    deep = workspace.parent / ("s" * 60) / ("t" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(deep))
    done = named.run("-a", "demo", "-s", "conf", "--keep-alive", "30s", "echo one")
    assert done.returncode == 0, done.stderr
    (place,) = named_places(str(workspace))
    assert not place.socket.startswith(place.folder)
    other = workspace.parent / "other"
    other.mkdir()
    sandbox = build_confinement(AgentSpec(name="p", command="/bin/sh", source="t"), str(other))
    try:
        lines = _probe(place, sandbox.preexec(), {**os.environ, **sandbox.env})
    finally:
        sandbox.close()
    assert "TOKEN READ" not in lines, lines  # acphost's state folder is denied
    _refused_only(lines)
    assert named.status("conf")["keep_alive"] == 30.0
    done = named.run("-a", "demo", "-s", "conf", "--keep-alive", "0.3s", "echo two")
    assert done.returncode == 0 and done.stdout == "two\n", done.stderr
    named.wait_gone()


def test_agent_commands_differing_only_in_a_secret_are_two_sessions(named, workspace):
    # The demo agent, its command line carrying a secret it ignores (redacted in the key).
    demo = "import sys; from acphost.agents.demo._agent import main; sys.exit(main([]))"
    agent = f"{shlex.quote(sys.executable)} -c {shlex.quote(demo)} --token="
    first = named.run("--agent-command", agent + "sekrit-one", "-s", "cmd", *_KEEP, "echo a")
    assert first.returncode == 0, first.stderr
    second = named.run("--agent-command", agent + "sekrit-two", "-s", "cmd", *_KEEP, "echo b")
    assert second.returncode == 0, second.stderr
    places = named_places(str(workspace))
    assert len(places) == 2, places  # one host and one session each
    assert len(agents_running(workspace)) == 2
    for place in places:
        with open(os.path.join(place.folder, "name.json")) as f:
            assert "sekrit" not in f.read()  # only a digest of the command is kept
    for secret in ("sekrit-one", "sekrit-two"):  # shorten the keep-alive: both stop
        done = named.run("--agent-command", agent + secret, "-s", "cmd", *_QUICK, "echo c")
        assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_a_run_without_history_is_not_served_by_a_host_that_records_it(named, workspace):
    """Each run is served by a host of its own options: the host that records makes way."""

    def host():
        return named.status("hist")["host_pid"]

    done = named.run("-a", "demo", "-s", "hist", *_KEEP, "echo a")
    assert done.returncode == 0, done.stderr
    recording = host()
    done = named.run("-a", "demo", "-s", "hist", *_KEEP, "echo b", env={"ACPHOST_NO_HISTORY": "1"})
    assert (done.returncode, done.stdout) == (0, "b\n"), done.stderr
    assert host() != recording
    other = workspace.parent / "history.db"
    elsewhere = {"ACPHOST_HISTORY": str(other)}
    done = named.run("-a", "demo", "-s", "hist", *_KEEP, "echo c", env=elsewhere)
    assert (done.returncode, done.stdout) == (0, "c\n"), done.stderr
    assert other.exists()  # recorded where this run said, not where the first host did
    settings = workspace.parent / "settings.json"
    settings.write_text('{"agent_servers": {}}')
    before = host()
    done = named.run(
        "-a", "demo", "-s", "hist", *_KEEP, "echo d", env={"ACPHOST_SETTINGS": str(settings)}
    )
    assert (done.returncode, done.stdout) == (0, "d\n"), done.stderr
    assert host() != before
    # A busy host is never made to serve other options: the run is refused.
    running = named.start("-a", "demo", "-s", "hist", *_KEEP, "wait 60")
    named.wait_status("hist", "the turn to run", lambda r: r.get("running"))
    done = named.run("-a", "demo", "-s", "hist", *_KEEP, "echo e", env={"ACPHOST_NO_HISTORY": "1"})
    assert done.returncode == 2 and "busy with other options" in done.stderr, done.stderr
    running.send_signal(signal.SIGINT)
    assert running.wait(timeout=60) == 130
    done = named.run("-a", "demo", "-s", "hist", *_QUICK, "echo f")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_runs_with_different_tmpdirs_find_the_host_of_a_deep_state_folder(
    named, workspace, monkeypatch
):
    deep = workspace.parent / ("s" * 60) / ("t" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(deep))
    # Two short temporary folders (a socket path fits in either).
    tmp_a, tmp_b = tempfile.mkdtemp(dir="/tmp"), tempfile.mkdtemp(dir="/tmp")
    try:
        for tmp, word in ((tmp_a, "a"), (tmp_b, "b")):
            done = named.run(
                "-a",
                "demo",
                "-s",
                "tmp",
                *_KEEP,
                f"echo {word}",
                "--init-timeout",
                "5",
                env={"TMPDIR": tmp},
            )
            assert done.returncode == 0 and done.stdout == f"{word}\n", done.stderr
        assert len(hosts_in(workspace)) == 1  # the second run used the first one's host
        (place,) = named_places(str(workspace))
        assert place.socket.startswith(f"/tmp/acphost-named-{os.getuid()}/")
        done = named.run("-a", "demo", "-s", "tmp", *_QUICK, "echo c", env={"TMPDIR": tmp_a})
        assert done.returncode == 0, done.stderr
        named.wait_gone()
    finally:
        shutil.rmtree(tmp_a, ignore_errors=True)
        shutil.rmtree(tmp_b, ignore_errors=True)


def test_an_agent_that_cannot_start_is_said_once_as_a_plain_run_says_it(named, workspace):
    missing = str(workspace.parent / "no-such-agent")
    plain = named.run("--agent-command", missing, "hi")
    assert plain.returncode != 0 and "cannot start the agent" in plain.stderr, plain.stderr
    done = named.run("--agent-command", missing, "-s", "x", "hi")
    assert (done.returncode, done.stderr) == (plain.returncode, plain.stderr)
    (place,) = named_places(str(workspace))
    with open(place.log) as f:
        log = f.read()
    assert log.count("cannot start the agent") == 1, log  # one host, which logged why
    # Again: the next run starts one new host, which fails the same way.
    again = named.run("--agent-command", missing, "-s", "x", "hi")
    assert (again.returncode, again.stderr) == (plain.returncode, plain.stderr)
    # The first host's log is kept beside the second's, not erased.
    with open(place.log + ".1") as f:
        assert f.read() == log


def _ask_raw(place, lines, *, keep=0):
    """Send each line on its own connection; the first answer of each (or keep them open)."""
    import asyncio

    async def main():
        answers, held = [], []
        for line in lines:
            reader, writer = await asyncio.open_unix_connection(place.socket)
            writer.write(line.encode() + b"\n")
            answer = json.loads(await asyncio.wait_for(reader.readline(), 30))
            answers.append(answer)
            held.append(writer)
        for writer in held:
            writer.close()
        return answers

    return asyncio.run(main())


def _prompt_line(place, **fields):
    request = {
        "v": WIRE_VERSION,
        "op": "prompt",
        "token": place.read_token(),
        "prompt": [{"type": "text", "text": "echo x"}],
        "options": None,
        **fields,
    }
    return json.dumps(request)


def _options(workspace, monkeypatch, *flags):
    """The options a run of ``acphost FLAGS`` sends (as the run computes them)."""
    from acphost.cli._named import _fingerprint
    from acphost.cli._parser import build_parser

    monkeypatch.setenv("XDG_CONFIG_HOME", str(workspace / ".xdg"))
    return _fingerprint(build_parser().parse_args([*flags, "x"]), None)


def test_the_host_refuses_wire_values_out_of_bounds(named, workspace, monkeypatch):
    flags = ("-a", "demo", "-s", "wire", "--no-history")
    done = named.run(*flags, *_KEEP, "echo a")
    assert done.returncode == 0, done.stderr
    (place,) = named_places(str(workspace))
    options = _options(workspace, monkeypatch, *flags)
    huge = _prompt_line(place, options=options, keep_alive=1e308)
    nan = _prompt_line(place, options=options, keep_alive=float("nan"))  # json writes NaN
    for answer in _ask_raw(place, [huge, nan]):
        assert answer["t"] == "refused" and "keep-alive" in answer["message"], answer
    assert named.status("wire")["keep_alive"] == 30.0
    # A ticket the host never gave out is not taken: the prompt gets the next one.
    (answer,) = _ask_raw(place, [_prompt_line(place, options=options, ticket=99999)])
    assert answer["t"] == "queued" and answer["ticket"] != 99999, answer
    # At most MAX_WAITING prompts wait: the next is refused at once.
    from acphost.launch._named_runs import MAX_WAITING

    running = _prompt_line(place, options=options, prompt=[{"type": "text", "text": "wait 30"}])
    lines = [running] + [_prompt_line(place, options=options)] * (MAX_WAITING - 1)
    answers = _ask_raw(place, [*lines, _prompt_line(place, options=options)])
    assert all(a["t"] == "queued" for a in answers[:-1]), answers[:3]
    assert answers[-1]["t"] == "full", answers[-1]
    done = named.run(*flags, *_QUICK, "echo b")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_a_run_that_stops_reading_is_dropped_and_its_turn_goes_on(named, workspace, monkeypatch):
    import socket

    flags = ("-a", "demo", "-s", "slow", "--no-history")
    done = named.run(*flags, *_KEEP, "echo a")
    assert done.returncode == 0, done.stderr
    (place,) = named_places(str(workspace))
    options = _options(workspace, monkeypatch, *flags)
    # More frames than the host holds for one run (each frame line is ~230 bytes).
    flood = [{"type": "text", "text": "flood 200000"}]

    def log():
        with open(place.log) as f:
            return f.read()

    with socket.socket(socket.AF_UNIX) as client:  # a run that never reads
        client.connect(place.socket)
        client.sendall(_prompt_line(place, options=options, prompt=flood, output="jsonl").encode())
        client.sendall(b"\n")
        eventually_sync(
            lambda: "stopped reading is dropped" in log(), what="the host to drop it", timeout=50
        )
    # The turn went on to its end: the session serves the next run.
    done = named.run(*flags, *_QUICK, "echo after")
    assert done.returncode == 0 and done.stdout == "after\n", done.stderr
    named.wait_gone()


def test_a_tightened_rules_file_is_never_served_by_the_looser_host(named, workspace):
    """The rules' contents are the session's options: the host made way for the stricter ones."""
    rules = workspace.parent / "rules.json"
    rules.write_text('{"rules": [], "default": "allow"}')
    line = ("-a", "demo", "-s", "rules", "--permission-policy", str(rules), *_KEEP, "-o", "simple")
    for _ in range(2):  # the long way, then the shortcut
        done = named.run(*line, "permission")
        assert (done.returncode, done.stdout) == (0, "You chose allow_once.\n"), done.stderr
    loose = named.status("rules")["host_pid"]
    rules.write_text('{"rules": [], "default": "reject"}')  # the same size: stat may not tell
    done = named.run(*line, "permission")
    assert (done.returncode, done.stdout) == (0, "You chose reject_once.\n"), done.stderr
    assert "rejected 1 request" in done.stderr
    assert named.status("rules")["host_pid"] != loose
    done = named.run(*line, "--keep-alive", "0", "echo bye")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_a_run_of_another_acphost_version_makes_an_idle_host_step_aside(named, workspace):
    done = named.run("-a", "demo", "-s", "upgrade", *_KEEP, "echo a")
    assert done.returncode == 0, done.stderr
    (place,) = named_places(str(workspace))
    (old,) = hosts_in(workspace)
    (answer,) = _ask_raw(place, [_prompt_line(place, v=WIRE_VERSION + 1)])
    assert answer["t"] == "gone", answer
    eventually_sync(lambda: old not in hosts_in(workspace), what="the old host to stop")
    # Without the token, another version changes nothing.
    done = named.run("-a", "demo", "-s", "upgrade", *_KEEP, "echo b")
    assert done.returncode == 0, done.stderr
    (live,) = hosts_in(workspace)
    (answer,) = _ask_raw(place, [_prompt_line(place, v=WIRE_VERSION + 1, token="guess")])
    assert answer["t"] == "denied", answer
    assert hosts_in(workspace) == [live]
    done = named.run("-a", "demo", "-s", "upgrade", *_QUICK, "echo c")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def _shortcut_files():
    folder = os.path.join(os.environ["XDG_STATE_HOME"], "acphost", "named", "shortcuts")
    return [os.path.join(folder, f) for f in os.listdir(folder)] if os.path.isdir(folder) else []


def test_a_shortcut_keeps_no_command_line_and_no_option(named, workspace):
    secret = "sk-live-SUPERSECRET123"
    run_demo = 'exec "$1" -m acphost.agents.demo'  # the secret is the shell's $0
    agent = shlex.join(["sh", "-c", run_demo, secret, sys.executable])
    line = ("--agent-command", agent, "-s", "sec", "--system-prompt", "be brief", *_KEEP)
    for word in ("echo one", "echo two"):
        done = named.run(*line, word)
        assert done.returncode == 0, done.stderr
    (path,) = _shortcut_files()
    with open(path) as f:
        text = f.read()
    assert secret not in text and "be brief" not in text and "agent-command" not in text
    done = named.run(*line, "--keep-alive", "0", "echo bye")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_a_shortcut_never_speaks_to_a_socket_in_a_folder_others_may_write(named, workspace):
    """A shortcut whose socket is in a shared folder (as /tmp is) is not used."""
    import socket

    line = ("-a", "demo", "-s", "shared", *_KEEP)
    done = named.run(*line, "echo one")
    assert done.returncode == 0, done.stderr
    (path,) = _shortcut_files()
    shared = tempfile.mkdtemp(prefix="shared-", dir=workspace.parent)
    os.chmod(shared, 0o777)
    fake = os.path.join(shared, "s")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(fake)
        listener.listen()
        listener.settimeout(0)
        with open(path) as f:
            data = json.load(f)
        data["socket"] = fake
        with open(path, "w") as f:
            json.dump(data, f)
        done = named.run(*line, "echo two")
        assert (done.returncode, done.stdout) == (0, "two\n"), done.stderr
        try:
            conn, _ = listener.accept()
        except BlockingIOError:
            conn = None
        if conn is not None:  # connected (the kernel accepts): it must have been told nothing
            conn.settimeout(0)
            with conn:
                try:
                    got = conn.recv(65536)
                except BlockingIOError:
                    got = b""
            assert got == b"", got
    done = named.run(*line, "--keep-alive", "0", "echo bye")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_trusting_or_revoking_a_project_reaches_a_live_session(named, workspace):
    """Which settings file applies is a session option: trust and revoke both take effect."""
    project = workspace / ".acphost" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"agent_servers": {"demo": {
        "command": sys.executable, "args": ["-m", "acphost.agents.demo"],
        "system_prompt": "PROJECT-PROMPT"}}}))
    line = ("-a", "demo", "-s", "trust", *_KEEP, "-o", "simple")
    done = named.run(*line, "system")
    assert done.returncode == 0 and "PROJECT-PROMPT" not in done.stdout, done.stdout
    assert named.run("trust", str(project)).returncode == 0
    done = named.run(*line, "system")
    assert done.returncode == 0 and "PROJECT-PROMPT" in done.stdout, done.stdout
    assert named.run("trust", "--revoke", str(project)).returncode == 0
    done = named.run(*line, "system")
    assert done.returncode == 0 and "PROJECT-PROMPT" not in done.stdout, done.stdout
    done = named.run(*line[:-2], *_QUICK, "echo bye")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_runs_racing_a_cold_name_with_other_options_are_served_or_told_it_is_busy(
    named, workspace
):
    """The host makes way only when nothing starts, waits or runs: never a killed agent."""
    runs = [
        named.start("-a", "demo", "-s", "race", "--system-prompt", prompt, *_QUICK, "system")
        for prompt in ("AAA", "BBB") * 3
    ]
    outcomes = []
    for proc in runs:
        out, err = proc.communicate(timeout=60)
        outcomes.append((proc.returncode, out, err))
    for code, _out, err in outcomes:
        assert "killed" not in err and "Traceback" not in err, err
        assert code == 0 or (code == 2 and "busy with other options" in err), (code, err)
    assert any(code == 0 for code, _, _ in outcomes)
    named.wait_gone()


def test_a_bad_system_prompt_is_one_line_as_in_a_plain_run_and_starts_no_host(named, workspace):
    missing = str(workspace / "no-such-prompt.txt")
    plain = named.run("-a", "demo", "--system-prompt", "@" + missing, "hi")
    done = named.run("-a", "demo", "-s", "badprompt", "--system-prompt", "@" + missing, "hi")
    assert (done.returncode, done.stderr) == (2, plain.stderr) and plain.returncode == 2
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert hosts_in(workspace) == []


def test_a_run_flag_spelled_as_argparse_allows_is_read_as_argparse_reads_it(named, workspace):
    """``--out``, ``-vo``: the shortcut does not read them, so never serves them."""
    line = ("-a", "demo", "-s", "spell", *_KEEP)
    done = named.run(*line, "--out", "text", "-o", "simple", "echo a")
    assert (done.returncode, done.stdout) == (0, "a\n"), done.stderr
    done = named.run(*line, "-o", "jsonl", "--out", "simple", "echo b")  # the last one wins
    assert (done.returncode, done.stdout) == (0, "b\n"), done.stderr
    done = named.run(*line, "-o", "jsonl", "-vo", "simple", "echo c")
    assert done.returncode == 0 and done.stdout == "c\n", done.stdout
    done = named.run(*line[:-2], *_QUICK, "echo bye")
    assert done.returncode == 0, done.stderr
    named.wait_gone()


def test_a_run_that_stops_reading_its_output_is_told_it_was_dropped(named, workspace):
    """Not that its host died: the host lives, the turn went on; the run exits 1 saying so."""
    flags = ("-a", "demo", "-s", "stalled", "--no-history", *_KEEP, "-o", "jsonl")
    done = named.run(*flags, "echo up")
    assert done.returncode == 0, done.stderr
    (place,) = named_places(str(workspace))
    host = named.status("stalled")["host_pid"]
    stalled = named.start(*flags, "flood 200000")  # its stdout is a pipe nobody reads yet

    def log():
        with open(place.log) as f:
            return f.read()

    eventually_sync(lambda: "stopped reading is dropped" in log(), what="the drop", timeout=50)
    _out, err = stalled.communicate(timeout=60)
    assert stalled.returncode == 1, err
    assert "the session host dropped this run" in err and "stopped during" not in err, err
    assert named.status("stalled")["host_pid"] == host  # it lives on
    done = named.run(*flags[:-4], *_QUICK, "-o", "simple", "echo after")
    assert (done.returncode, done.stdout) == (0, "after\n"), done.stderr
    named.wait_gone()
