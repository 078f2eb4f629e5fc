"""acphost -s NAME: a warm agent and a queue, through real processes (runs, host, agent)."""

from __future__ import annotations

import json
import os
import signal
import sys

import pytest

from acphost.launch import named_places
from tests.support.named import Named, agents_in, hosts_in
from tests.support.waiting import eventually_sync

#: Short enough that a test's host stops soon after its last turn.
KEEP = ("--keep-alive", "0.5s")


@pytest.fixture
def named(workspace):
    runs = Named(workspace)
    yield runs
    left = runs.close()
    assert not left, f"processes left behind: {left}"


def read_json(path):
    with open(path) as f:
        return json.load(f)


def _ended(named, proc, timeout=60):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def test_two_shells_racing_for_one_name_share_one_host_one_agent_and_one_session(named, workspace):
    # Either may win the race; each turn lasts long enough to see the other queued.
    first = named.start("-a", "demo", "-s", "race", *KEEP, "wait 1")
    second = named.start("-a", "demo", "-s", "race", *KEEP, "wait 1.5")
    row = named.wait_status(
        "race", "both prompts in the session", lambda r: r.get("running") and len(r["queue"]) == 1
    )
    assert {row["running"], *row["queue"]} == {"wait 1", "wait 1.5"}
    assert len(hosts_in(workspace)) == 1
    assert agents_in(workspace) == [row["agent_pid"]]
    code1, out1, err1 = _ended(named, first)
    code2, out2, err2 = _ended(named, second)
    assert (code1, code2) == (0, 0), (err1, err2)
    assert (out1, out2) == ("Waited 1 s.\n", "Waited 1.5 s.\n")
    named.wait_gone()


def test_a_warm_session_reuses_its_agent_and_a_cold_one_continues_the_session(named, workspace):
    done = named.run("-a", "demo", "-s", "warm", "--keep-alive", "30s", "echo one")
    assert done.returncode == 0 and done.stdout.strip() == "one", done.stderr
    before = named.status("warm")
    assert before["state"] == "idle" and before["warm_for"] > 0
    done = named.run("-a", "demo", "-s", "warm", "--keep-alive", "0.3s", "echo two")
    assert done.returncode == 0 and done.stdout.strip() == "two", done.stderr
    # The keep-alive (the last run's 0.3 s) expires: host and agent stop by themselves.
    named.wait_gone()
    assert named.status("warm")["state"] == "stopped"
    (place,) = named_places(str(workspace))
    session_id = read_json(place.session_file)["sessionId"]
    assert session_id == before["session_id"]
    # The next run starts a new host, which continues the same agent session.
    done = named.run("-a", "demo", "-s", "warm", "--keep-alive", "0", "echo three")
    assert done.returncode == 0 and done.stdout.strip() == "three", done.stderr
    assert read_json(place.session_file)["sessionId"] == session_id
    named.wait_gone()
    # Nothing of the host is left but the name's files.
    assert sorted(os.listdir(place.folder)) == [
        "host.log",
        "host.log.1",  # the first host's log, kept when the second started
        "lock",
        "name.json",
        "queue.json",
        "session.json",
        "token",
    ]


def test_status_and_cancel_from_another_process_the_queue_goes_on(named, workspace):
    running = named.start("-a", "demo", "-s", "job", *KEEP, "wait 60")
    named.wait_status("job", "the turn to run", lambda r: r.get("running") == "wait 60")
    waiting = named.start("-a", "demo", "-s", "job", *KEEP, "echo next in line")
    named.wait_status(
        "job", "the second prompt queued", lambda r: r["queue"] == ["echo next in line"]
    )
    text = named.run("-a", "demo", "status")
    assert text.returncode == 0
    assert "job (demo): running" in text.stdout and "queued 1: echo next in line" in text.stdout
    done = named.run("-a", "demo", "cancel", "-s", "job")
    assert done.returncode == 0 and "cancelled the running turn of job" in done.stdout
    code, _, _ = _ended(named, running)
    assert code == 130
    code, out, err = _ended(named, waiting)
    assert code == 0 and out.strip() == "next in line", err
    done = named.run("-a", "demo", "cancel", "-s", "job", "-o", "json")
    assert json.loads(done.stdout) == {"cancelled": []}
    named.wait_gone()


def test_no_queue_fails_at_once_with_exit_4_when_busy(named):
    running = named.start("-a", "demo", "-s", "busy", *KEEP, "wait 60")
    named.wait_status("busy", "the turn to run", lambda r: r.get("running"))
    done = named.run("-a", "demo", "-s", "busy", "--no-queue", "echo hi")
    assert done.returncode == 4
    assert done.stderr.count("\n") == 1 and "session busy is busy" in done.stderr
    assert done.stdout == ""
    assert named.status("busy")["queue"] == []
    running.send_signal(signal.SIGINT)  # Ctrl-C of the running turn: cancelled, 130
    code, _, err = _ended(named, running)
    assert code == 130, err
    named.wait_gone()


def test_ctrl_c_of_a_waiting_run_takes_its_prompt_out_of_the_queue(named):
    running = named.start("-a", "demo", "-s", "q", *KEEP, "wait 60")
    named.wait_status("q", "the turn to run", lambda r: r.get("running"))
    waiting = named.start("-a", "demo", "-s", "q", *KEEP, "echo never sent")
    named.wait_status("q", "the prompt queued", lambda r: r["queue"] == ["echo never sent"])
    waiting.send_signal(signal.SIGINT)
    code, out, _ = _ended(named, waiting)
    assert code == 130 and out == ""
    row = named.wait_status("q", "the queue emptied", lambda r: r["queue"] == [])
    assert row["running"] == "wait 60"  # the running turn goes on
    after = named.start("-a", "demo", "-s", "q", *KEEP, "echo after")
    named.wait_status("q", "the next prompt queued", lambda r: r["queue"] == ["echo after"])
    assert named.run("-a", "demo", "cancel").returncode == 0
    assert _ended(named, running)[0] == 130
    code, out, err = _ended(named, after)
    assert code == 0 and out.strip() == "after", err
    named.wait_gone()


def test_a_host_killed_mid_turn_is_taken_over_and_the_queue_keeps_its_order(named, workspace):
    running = named.start("-a", "demo", "-s", "k", *KEEP, "wait 60")
    row = named.wait_status("k", "the turn to run", lambda r: r.get("running"))
    second = named.start("-a", "demo", "-s", "k", *KEEP, "wait 0.5")
    named.wait_status("k", "one queued", lambda r: r["queue"] == ["wait 0.5"])
    third = named.start("-a", "demo", "-s", "k", *KEEP, "echo third")
    named.wait_status("k", "two queued", lambda r: r["queue"] == ["wait 0.5", "echo third"])
    os.kill(row["host_pid"], signal.SIGKILL)
    code, out, err = _ended(named, running)
    assert code == 1
    assert "the session host stopped during this turn" in err
    # The waiting runs take over: a new host continues the session, in their order.
    order = []

    def both_done():
        for proc, tag in ((second, "second"), (third, "third")):
            if proc.poll() is not None and tag not in order:
                order.append(tag)
        return len(order) == 2

    eventually_sync(both_done, what="the waiting runs to end", timeout=60)
    assert order == ["second", "third"]
    code, out, err = _ended(named, second)
    assert code == 0 and out.strip() == "Waited 0.5 s.", err
    code, out, err = _ended(named, third)
    assert code == 0 and out.strip() == "third", err
    (place,) = named_places(str(workspace))
    assert read_json(place.session_file)["sessionId"] == row["session_id"]
    named.wait_gone()


def test_a_stale_socket_and_lock_of_a_dead_host_never_block_the_name(named, workspace):
    import socket

    from acphost.launch import place_of

    place = place_of("demo", str(workspace), "stale")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(place.socket)  # bound, never listening, left behind: a dead host's socket
    sock.close()
    open(place.lock, "w").close()
    done = named.run("-a", "demo", "-s", "stale", "--keep-alive", "0", "echo alive")
    assert done.returncode == 0 and done.stdout.strip() == "alive", done.stderr
    named.wait_gone()


def test_a_run_with_other_session_options_is_refused_by_a_busy_host_and_served_by_a_new_one(
    named,
):
    running = named.start("-a", "demo", "-s", "opts", "--keep-alive", "30s", "wait 60")
    named.wait_status("opts", "the turn to run", lambda r: r.get("running"))
    done = named.run("-a", "demo", "-s", "opts", "--write", "echo with writes")
    assert done.returncode == 2
    assert "is busy with other options than this run's (write)" in done.stderr
    running.send_signal(signal.SIGINT)
    assert _ended(named, running)[0] == 130
    # Idle, the host makes way: the run gets a host of its own options, which
    # goes on with the same session.
    before = named.status("opts")
    done = named.run("-a", "demo", "-s", "opts", "--write", *KEEP, "echo with writes")
    assert (done.returncode, done.stdout) == (0, "with writes\n"), done.stderr
    after = named.status("opts")
    assert after["host_pid"] != before["host_pid"]
    assert after["session_id"] == before["session_id"]
    named.wait_gone()


def test_jsonl_output_of_a_named_turn_is_its_frames(named):
    done = named.run("-a", "demo", "-s", "frames", "--keep-alive", "0", "-o", "jsonl", "echo hi")
    assert done.returncode == 0, done.stderr
    frames = [json.loads(line) for line in done.stdout.splitlines()]
    assert frames[0]["method"] == "client/selected_agent"
    methods = [f.get("method") for f in frames]
    assert "session/prompt" in methods and "session/update" in methods
    assert frames[-1]["result"]["stopReason"] == "end_turn"
    named.wait_gone()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--keep-alive", "soon"], "argument --keep-alive: 'soon': not a duration; use one"),
        (["--keep-alive", "-5m"], "argument --keep-alive: expected one argument"),
        (["--ask"], "--ask cannot be used with --session"),
        (["--continue"], "--continue cannot be used with --session"),
    ],
)
def test_bad_named_flags_are_one_line_and_exit_2(named, workspace, args, expected):
    done = named.run("-a", "demo", "-s", "bad", *args, "echo hi")
    assert done.returncode == 2
    assert expected in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not hosts_in(workspace)


def test_a_bad_session_name_is_refused(named, workspace):
    done = named.run("-a", "demo", "-s", "../x", "echo hi")
    assert done.returncode == 2 and "a name is 1 to 64 letters" in done.stderr
    assert not hosts_in(workspace)


def test_the_agent_crashing_fails_its_turn_and_the_next_prompt_gets_a_new_agent(named):
    running = named.start("-a", "demo", "-s", "crash", *KEEP, "wait 60")
    named.wait_status("crash", "the turn to run", lambda r: r.get("running") == "wait 60")
    crashing = named.start("-a", "demo", "-s", "crash", *KEEP, "crash")
    named.wait_status("crash", "one queued", lambda r: r["queue"] == ["crash"])
    after = named.start("-a", "demo", "-s", "crash", *KEEP, "echo after the crash")
    named.wait_status("crash", "two queued", lambda r: len(r["queue"]) == 2)
    assert named.run("-a", "demo", "cancel").returncode == 0
    assert _ended(named, running)[0] == 130
    code, _, err = _ended(named, crashing)
    assert code == 1 and "crashing on purpose" in err
    code, out, err = _ended(named, after)
    assert code == 0 and out.strip() == "after the crash", err
    named.wait_gone()


def test_a_host_stopped_with_sigterm_says_so_to_the_running_turn(named, workspace):
    running = named.start("-a", "demo", "-s", "term", *KEEP, "wait 60")
    row = named.wait_status("term", "the turn to run", lambda r: r.get("running"))
    os.kill(row["host_pid"], signal.SIGTERM)
    code, _, err = _ended(named, running)
    assert code == 1 and "the session host stopped during this turn" in err
    named.wait_gone()


def test_a_run_stopped_with_sigterm_exits_143_and_its_turn_is_cancelled(named):
    running = named.start("-a", "demo", "-s", "stop", *KEEP, "wait 60")
    named.wait_status("stop", "the turn to run", lambda r: r.get("running"))
    running.send_signal(signal.SIGTERM)
    assert _ended(named, running)[0] == 143
    # The host cancels the turn of a run that went away; the session is free again.
    named.wait_status("stop", "the turn cancelled", lambda r: r["state"] == "idle")
    done = named.run("-a", "demo", "-s", "stop", "--keep-alive", "0", "echo free")
    assert done.returncode == 0 and done.stdout.strip() == "free", done.stderr
    named.wait_gone()


@pytest.mark.parametrize("output", ["text", "simple"])
def test_a_named_turn_shows_what_a_plain_run_shows_subagents_included(named, output):
    """The run renders the host's updates (its own and its subagents') with the same renderers."""
    plain = named.run("-a", "demo", "-o", output, "subagent")
    assert plain.returncode == 0, plain.stderr
    done = named.run("-a", "demo", "-s", "same", "--keep-alive", "0", "-o", output, "subagent")
    assert done.returncode == 0, done.stderr
    assert done.stdout == plain.stdout
    assert "[helper 1]" in done.stdout or output == "simple"
    named.wait_gone()


RELAY = "[subagent] ← helper 1: Done: say pong"


def test_a_named_run_waits_for_the_subagents_that_outlive_its_turn_as_a_plain_run_does(named):
    slow = {"ACPHOST_DEMO_STEP": "0.2"}  # the child goes on for a while after the answer
    plain = named.run("-a", "demo", "subagent background", env=slow)
    assert plain.returncode == 0, plain.stderr
    assert "helper 1: idle" in plain.stdout
    done = named.run("-a", "demo", "-s", "bg", "--keep-alive", "0", "subagent background", env=slow)
    assert done.returncode == 0, done.stderr
    # Everything the plain run shows, and the relay of the child's answer that
    # comes right after it reports idle (the plain run may miss that one: it
    # stops rendering as soon as the child is idle).
    assert done.stdout.startswith(plain.stdout.rstrip("\n").removesuffix(RELAY))
    assert done.stdout.endswith("[subagent] helper 1: idle (end_turn)\n" + RELAY + "\n")
    named.wait_gone()


def test_each_named_turn_says_what_the_policy_refused_during_it(named, tmp_path):
    """As a plain run does, once per turn: the host's tally starts again for each."""
    import sys
    from pathlib import Path

    hostile = Path(__file__).parents[1] / "host" / "hostile_agent.py"
    terminal = ["terminal/create", {"sessionId": "$SID", "command": "true", "cwd": "$CWD"}]
    env = {"HOSTILE_STEPS": json.dumps([terminal, terminal]), "ACPHOST_NO_HISTORY": "1"}
    agent = ("--agent-command", f"{sys.executable} {hostile}", "-s", "policy", "-o", "simple")
    expected = "acphost: rejected 2 requests (commands); use --write, --ask or --approve-all"
    first = named.run(*agent, "--keep-alive", "30s", "go", env=env)
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines() == [expected]
    second = named.run(*agent, "--keep-alive", "0", "go", env=env)
    assert second.returncode == 0, second.stderr
    assert second.stderr.splitlines() == [expected]
    named.wait_gone()


def test_the_same_agent_and_workspace_spelled_otherwise_are_the_same_session(named, workspace):
    running = named.start("-s", "spelled", *KEEP, "wait 60")  # the default agent: the demo
    row = named.wait_status("spelled", "the turn to run", lambda r: r.get("running"))
    other = named.start("-a", "demo", "--cwd", ".", "-s", "spelled", *KEEP, "echo same")
    named.wait_status("spelled", "the prompt queued", lambda r: r["queue"] == ["echo same"])
    assert named.status("spelled")["host_pid"] == row["host_pid"]
    assert named.run("cancel", "-s", "spelled").returncode == 0
    assert _ended(named, running)[0] == 130
    code, out, err = _ended(named, other)
    assert code == 0 and out.strip() == "same", err
    named.wait_gone()


@pytest.mark.timeout(150)  # two runs wait out the answer's bound
def test_a_frozen_host_is_said_once_its_answer_is_late_and_the_session_lives_on(named, workspace):
    """A host that cannot answer (SIGSTOP) never leaves its run waiting for ever."""
    from acphost.cli._named_client import ANSWER_TIMEOUT

    done = named.run("-a", "demo", "-s", "frozen", "--keep-alive", "60s", "echo up")
    assert done.returncode == 0, done.stderr
    (host,) = hosts_in(workspace)
    os.kill(host, signal.SIGSTOP)
    try:
        # By the shortcut the first run left (--keep-alive is the run's own), and
        # the long way (--cwd: a command line no run left a shortcut for).
        for flags in ((), ("--cwd", str(workspace))):
            late = named.run(
                "-a", "demo", "-s", "frozen", *flags, "echo late", timeout=ANSWER_TIMEOUT + 30
            )
            assert (late.returncode, late.stdout) == (1, ""), late.stderr
            assert late.stderr.startswith("acphost: the host of session frozen does not answer")
            assert "host.log" in late.stderr and "status" in late.stderr
    finally:
        os.kill(host, signal.SIGCONT)
    done = named.run("-a", "demo", "-s", "frozen", "--keep-alive", "0", "echo after")
    assert (done.returncode, done.stdout) == (0, "after\n"), done.stderr
    named.wait_gone()


_BAD_FRAME_AGENT = r"""
import json, sys
def send(obj):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **obj}) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"id": mid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
    elif method == "session/new":
        send({"id": mid, "result": {"sessionId": "s1"}})
    elif method == "session/prompt":
        sys.stdout.write("{this is not json\n"); sys.stdout.flush()
        send({"method": "session/update", "params": {"sessionId": "s1", "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "ok"}}}})
        send({"id": mid, "result": {"stopReason": "end_turn"}})
"""


def test_the_warnings_of_a_named_turn_reach_its_run_as_a_plain_runs_do(named, workspace):
    """An agent's malformed frame and an unmet budget: said on the run's stderr, both ways."""
    agent = workspace.parent / "bad_frame_agent.py"
    agent.write_text(_BAD_FRAME_AGENT)
    line = ("--agent-command", f"{sys.executable} {agent}", "--max-tokens", "1000", "-o", "simple")
    plain = named.run(*line, "hello")
    assert (plain.returncode, plain.stdout) == (0, "ok\n"), plain.stderr
    assert "malformed" in plain.stderr and "budget set" in plain.stderr, plain.stderr
    for _ in range(2):  # the long way, then the shortcut
        done = named.run(*line, "-s", "warn", "--keep-alive", "30s", "hello")
        assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
        assert done.stderr == plain.stderr
    done = named.run(*line, "-s", "warn", "--keep-alive", "0", "hello")
    assert done.returncode == 0, done.stderr
    named.wait_gone()
