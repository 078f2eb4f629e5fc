"""``--ask`` answers the agent's forms (``elicitation/create``) on a real terminal.

The demo agent's ``ask form`` covers every field type; the hostile agent puts
terminal attacks in every string of its form. Forms are advertised only when
someone can fill them in: with ``--ask`` and a terminal.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.cli.terminal import PtyRun
from tests.cli.test_terminal import EVIL, SHOWN, assert_harmless, outcomes
from tests.support.in_process import run_main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


@pytest.fixture
def demo_env(tmp_path):
    return {**os.environ, "ACPHOST_DEMO_STEP": "0", "XDG_CONFIG_HOME": str(tmp_path / ".xdg")}


def answer_fields(run: PtyRun, replies: list[tuple[bytes, bytes | None]]) -> None:
    """Type each reply once its prompt is on the screen (keys typed before a
    prompt appears are discarded, as for permission questions)."""
    at = 0
    for prompt, reply in replies:
        at = run.read_until(prompt, start=at)
        if reply is not None:
            run.write(reply)


def test_every_field_kind_is_asked_checked_and_sent(tmp_path, demo_env):
    run = PtyRun(["-a", "demo", "--ask", "-o", "simple", "ask form"], cwd=tmp_path,
                 env=demo_env, cols=200)
    answer_fields(run, [
        (b"Your name (required): ", b"Ada\n"),
        (b"Email: ", b"not-an-email\n"),
        (b"an email address", None),
        (b"Email: ", b"ada@example.com\n"),
        (b"Creativity: [0.5] ", b"\n"),  # Enter keeps the default
        (b"Retries: [2] ", b"9\n"),
        (b"at most 5", None),
        (b"Retries: [2] ", b"3\n"),
        (b"Run the tests after each edit: [y/n] [y] ", b"n\n"),
        (b"Language (required): number [Python] ", b"2\n"),
        (b"Tone: number ", b"\n"),  # optional, left out
        (b"Tools the agent may use (required): numbers, comma-separated [Read files] ",
         b"1,3\n"),
        (b"send these answers to the agent? [Y/n] ", b"y\n"),
    ])
    assert run.wait() == 0, run.text()
    assert ("You accepted the form with email=ada@example.com, language=rust, name=Ada, "
            "retries=3, temperature=0.5, tests=false, tools=[read, bash].") in run.text()


def test_ctrl_d_declines_the_form(tmp_path, demo_env):
    run = PtyRun(["-a", "demo", "--ask", "-o", "simple", "ask form"], cwd=tmp_path, env=demo_env)
    run.read_until(b"Your name (required): ")
    run.write(b"\x04")
    assert run.wait() == 0, run.text()
    assert "You declined the form." in run.text()


def test_without_ask_no_form_is_offered(tmp_path, demo_env):
    r = run_main(["-a", "demo", "-o", "simple", "ask form"], cwd=tmp_path, env=demo_env)
    assert r.returncode == 0, r.stderr
    assert "did not advertise elicitation.form" in r.stdout


def test_a_hostile_form_is_shown_inert(tmp_path, hostile_env):
    run = PtyRun(["--ask", "form"], cwd=tmp_path, env=hostile_env, cols=200)
    at = run.read_until(b"(required): ")
    run.write(b"\n")  # Enter keeps the agent's default
    at = run.read_until(b"number ", start=at)
    asked = run.text()
    for shown in ("form " + SHOWN, "desc " + SHOWN, "first " + SHOWN, "[def" + SHOWN + "]"):
        assert shown in asked, (shown, asked)
    run.write(b"2\n")
    run.read_until(b"[Y/n] ", start=at)
    run.write(b"\n")
    assert run.wait() == 0, run.text()
    assert_harmless(bytes(run.output))
    # The default sent back is the agent's exact string: data, not terminal output.
    assert outcomes(tmp_path)["100"] == {
        "action": "accept", "content": {"who": "def" + EVIL, "pick": "b"}}


def test_ctrl_c_at_a_form_withdraws_it_and_cancels_the_turn(tmp_path, hostile_env):
    run = PtyRun(["--ask", "form"], cwd=tmp_path, env=hostile_env)
    run.read_until(b"(required): ")
    run.write(b"\x03")
    assert run.wait() == 130, run.text()
    assert outcomes(tmp_path)["100"] == {"action": "cancel"}
    assert "Traceback" not in run.text()


def test_a_huge_form_is_shown_bounded_and_answered_whole(tmp_path, hostile_env):
    """A 50,000-line message, a 100,000-character default and 500 choices would
    scroll the question away: what is shown is bounded, what is sent is whole."""
    run = PtyRun(["--ask", "bigform"], cwd=tmp_path, env=hostile_env, cols=200)
    at = run.read_until(b"who: ")
    assert b"(49980 more lines)" in run.output
    run.write(b"\n")  # Enter keeps the agent's default, whole
    at = run.read_until(b"number ", start=at)
    assert b"and 470 more (type the number or the value)" in run.output
    run.write(b"c499\n")
    asked = run.read_until(b"[Y/n] ", start=at)
    assert asked < 20_000  # the whole form, as shown (the agent's reply follows)
    run.write(b"\n")
    assert run.wait() == 0, run.text()
    assert outcomes(tmp_path)["100"] == {
        "action": "accept", "content": {"who": "d" * 100_000, "pick": "c499"}}
