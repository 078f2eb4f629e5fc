"""The command line shows the session tree: each subagent's lines attributed to it.

Through the real ``main()`` and the demo agent over real pipes.
"""

from __future__ import annotations

import signal
import subprocess
import sys

from tests.cli.runner import environment, run
from tests.support.in_process import run_main


def test_text_output_attributes_each_childs_lines_and_waits_for_it(tmp_path):
    """A child that goes on after the turn's answer is shown to its end, tagged."""
    r = run(["-o", "text", "subagent background wait 0.1 look around"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:7] == [
        "[subagent] helper 1: running — answers one question",
        "[subagent] → helper 1: look around",
        "Started the subagent 'helper 1'; it goes on in the background.",
        "[helper 1] Working on: look around",
        "[helper 1] [tool] Look it up (search) in_progress",
        "[helper 1] [tool] Look it up (search) completed",
        # The run waited for the child after the turn's answer: its end is shown.
        "[subagent] helper 1: idle (end_turn)",
    ]
    # The child's reply to the parent follows its end, when it came in time.
    assert lines[7:] in ([], ["[subagent] ← helper 1: Done: look around"])
    assert r.stderr == ""


def test_a_foreground_child_comes_before_the_parents_answer(tmp_path):
    r = run(["subagent count the files"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines.index("[helper 1] Working on: count the files") < lines.index(
        "[subagent] helper 1: idle (end_turn)"
    )
    assert lines[-1] == "The subagent answered: Done: count the files"
    assert "[subagent] ← helper 1: Done: count the files" in lines


def test_simple_output_has_only_the_parents_answer(tmp_path):
    r = run(["-o", "simple", "subagent count"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "The subagent answered: Done: count\n"


def test_without_subagents_the_agent_falls_back_to_a_tool_call(tmp_path):
    r = run(["--no-subagents", "subagent count"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "[subagent]" not in r.stdout
    assert "[tool] Agent: helper: count (think) completed" in r.stdout.splitlines()


def test_children_past_the_bound_are_stopped_and_the_run_says_so(tmp_path):
    r = run(["--subagent-timeout", "0.2", "subagent background wait 60 a long job"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (
        "acphost: subagents still running after 0.2 s: helper 1; stopping them "
        "(raise --subagent-timeout to wait longer)"
    ) in r.stderr
    assert "Started the subagent 'helper 1'" in r.stdout


def test_a_childs_text_reaches_a_terminal_inert(tmp_path):
    """A child's text is the agent's: an escape sequence is shown, never obeyed."""
    r = run_main(
        ["subagent \x1b[31mred\x1b]0;title\x07"],
        cwd=tmp_path,
        env=environment(tmp_path),
        terminal=(100, 30),
    )
    assert r.returncode == 0, r.stderr
    assert "[helper 1] Working on:" in r.stdout
    assert "\x1b[31m" not in r.stdout and "\x1b]0;" not in r.stdout


def test_ctrl_c_while_waiting_for_a_child_cancels_it_and_exits_130(tmp_path):
    """After the turn's answer, the first Ctrl-C stops the children and ends the run."""
    env = {**environment(tmp_path), "ACPHOST_DEMO_STEP": "0.01"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", "-o", "text", "subagent background wait 60 long"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("[helper 1] [tool]"):  # the child works, after the turn's answer
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "cancelling (Ctrl-C again to stop the agent)" in err
    assert "[subagent] helper 1: idle (cancelled)" in out.splitlines()


def test_a_child_that_never_ends_a_line_is_held_only_up_to_a_bound():
    """Held text is kept as parts and written once it reaches the bound: linear, bounded."""
    from acphost.cli._edge import Edge
    from acphost.cli._lines import HELD_LINE_CHARS, ChildLines
    from acphost.view import InterMessage

    lines = ChildLines(Edge(terminal=False))
    out = []
    for _ in range(3 * HELD_LINE_CHARS // 1000):
        piece = InterMessage("m1", True, "helper 1", "", "x" * 1000, chunk=True)
        out += lines.parent([piece])
    out += lines.flush()
    texts = [line.text for line in out]
    assert all(t.startswith("[subagent] → helper 1: ") for t in texts)
    assert (
        sum(len(t) - len("[subagent] → helper 1: ") for t in texts)
        == 3 * HELD_LINE_CHARS // 1000 * 1000
    )
    assert max(len(t) for t in texts) <= HELD_LINE_CHARS + 1000 + 40
    # A message's chunks become one line, not a line per chunk.
    few = ChildLines(Edge(terminal=False))
    got = few.parent(
        [InterMessage("m2", False, "helper 1", "", t, chunk=True) for t in ("to", "k ", "en\n")]
    )
    assert [line.text for line in got] == ["[subagent] ← helper 1: tok en"]
