"""acphost -s NAME: the shortcut of a repeated command line, through real processes.

A run the name's host accepted leaves a shortcut for its command line (all
but the prompt), its working directory and the environment its resolution
reads; a later run with another prompt goes straight to the live host by it,
before the command line is parsed. These tests prove which way a run took
by what it imported (``PYTHONPROFILEIMPORTTIME``, which no shortcut key
holds): a run served by its shortcut imports ``acphost.cli._named_client``
and never the command line's ``acphost.cli._main``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from acphost.launch import named_places
from tests.cli.runner import environment
from tests.cli.terminal import PtyRun, screen
from tests.support.named import Named, hosts_in, processes_in
from tests.support.waiting import eventually_sync

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="named sessions need Unix")

#: Long enough that a host outlives every run of a test; each test stops its hosts.
LIVE = ("--keep-alive", "60s")
#: Added to a run's environment: its imports are listed on its stderr.
PROBE = {"PYTHONPROFILEIMPORTTIME": "1"}
_IMPORT_LINE = re.compile(rb"import time:[^\r\n]*\r?\n")


@pytest.fixture
def named(workspace):
    runs = Named(workspace)
    yield runs
    for pid in hosts_in(workspace):  # a test that failed left its host running
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    left = runs.close()
    assert not left, f"processes left behind: {left}"


def imports(stderr: str) -> set[str]:
    """The modules a probed run imported."""
    return {
        line.rpartition("|")[2].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:")
    }


def way(done) -> str:
    """Which way a probed run went: ``shortcut`` or ``long`` (the command line parsed)."""
    seen = imports(done.stderr)
    assert "acphost.cli._named_client" in seen or "acphost.cli._main" in seen, clean(done.stderr)
    return "long" if "acphost.cli._main" in seen else "shortcut"


def clean(stderr: str) -> str:
    """A probed run's stderr without the list of its imports."""
    return _IMPORT_LINE.sub(b"", stderr.encode("utf-8", "surrogateescape")).decode(
        "utf-8", "surrogateescape"
    )


def shortcuts() -> Path:
    """The folder of the shortcuts (the test's own state home)."""
    return Path(os.environ["XDG_STATE_HOME"]) / "acphost" / "named" / "shortcuts"


def only_shortcut() -> Path:
    (path,) = [p for p in shortcuts().iterdir() if p.suffix == ".json"]
    return path


def stop_hosts(named, workspace) -> None:
    """Stop the test's hosts (SIGTERM) and wait until they and their agents are gone."""
    for pid in hosts_in(workspace):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    named.wait_gone()


def warm_up(named, *line: str, prompt: str = "echo warm") -> None:
    """The long way once (a host starts), leaving the shortcut of ``line``."""
    done = named.run(*line, prompt)
    assert done.returncode == 0, done.stderr
    if "jsonl" not in line:
        assert done.stdout == prompt.removeprefix("echo ") + "\n"


# -- the same output as a plain run ---------------------------------------------------

#: Prompts, and the way their run goes when it repeats the command line.
PROMPTS = [
    ("echo hi", "shortcut"),
    ("plan", "shortcut"),
    ("think", "shortcut"),
    # ("tool": its locations come in updates that a run may merge: plain runs differ too.)
    ("diff", "shortcut"),
    ("subagent", "shortcut"),
    ("stop refusal", "shortcut"),
    ("limit", "shortcut"),
    ("error", "shortcut"),  # exit 1: the agent answered an error
    ("crash", "shortcut"),  # exit 1: the agent died, and its host stops with it
    ("echo after the crash", "long"),  # no live host: the long way starts the next one
    ("echo warm again", "shortcut"),
]


@pytest.mark.parametrize("output", ["text", "simple"])
def test_a_repeated_command_line_is_served_by_its_shortcut_as_a_plain_run(named, workspace, output):
    line = ("-a", "demo", "-s", "same", *LIVE, "-o", output)
    warm_up(named, *line)
    for prompt, expected in PROMPTS:
        plain = named.run("-a", "demo", "-o", output, prompt)
        warm = named.run(*line, prompt, env=PROBE)
        assert way(warm) == expected, prompt
        got = (warm.returncode, warm.stdout, clean(warm.stderr))
        assert got == (plain.returncode, plain.stdout, plain.stderr), prompt
    assert len(hosts_in(workspace)) == 1
    stop_hosts(named, workspace)


def test_a_budget_crossed_through_the_shortcut_exits_3(named, workspace):
    line = ("-a", "demo", "-s", "budget", *LIVE, "--max-tokens", "100")
    warm_up(named, *line)
    done = named.run(*line, "spend", env=PROBE)
    assert way(done) == "shortcut"
    assert done.returncode == 3, done.stderr
    assert "acphost: token budget exceeded:" in clean(done.stderr)
    stop_hosts(named, workspace)


def test_jsonl_through_the_shortcut_is_its_own_turns_frames(named, workspace):
    line = ("-a", "demo", "-s", "frames", *LIVE, "-o", "jsonl")
    first = named.run(*line, "echo first")
    assert first.returncode == 0, first.stderr
    done = named.run(*line, "echo second", env=PROBE)
    assert way(done) == "shortcut"
    assert done.returncode == 0, done.stderr
    frames = [json.loads(text) for text in done.stdout.splitlines()]
    assert frames[0]["method"] == "client/selected_agent"
    assert frames[0]["params"]["name"] == "demo"
    (prompt,) = [f for f in frames if f.get("method") == "session/prompt"]
    assert prompt["params"]["prompt"] == [{"type": "text", "text": "echo second"}]
    chunks = [
        f["params"]["update"]["content"]["text"]
        for f in frames
        if f.get("method") == "session/update"
        and f["params"]["update"].get("sessionUpdate") == "agent_message_chunk"
    ]
    assert "".join(chunks) == "second"
    assert frames[-1] == {
        "jsonrpc": "2.0",
        "id": prompt["id"],
        "result": {"stopReason": "end_turn"},
    }
    assert "echo first" not in done.stdout  # nothing of the turn before
    stop_hosts(named, workspace)


def test_a_shortcut_is_private_and_holds_no_secret(named, workspace):
    line = ("-a", "demo", "-s", "private", *LIVE)
    warm_up(named, *line)
    path = only_shortcut()
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert path.stat().st_mode & 0o777 == 0o600
    (place,) = named_places(str(workspace))
    token = json.loads(Path(place.token_file).read_text())["token"]
    assert token not in path.read_text()  # only where the token is, read at each run
    stop_hosts(named, workspace)


# -- what is not a prompt, and prompts that need the long way -------------------------


@pytest.mark.parametrize("word", ["status", "cancel"])
def test_a_subcommand_word_last_runs_the_subcommand_and_after_dashes_is_a_prompt(
    named, workspace, word
):
    line = ("-a", "demo", "-s", "sub")
    warm_up(named, *line)
    done = named.run(*line, word, env=PROBE)
    assert way(done) == "long"
    assert done.returncode == 0, done.stderr
    assert "[plan]" not in done.stdout  # the demo's answer to a prompt it does not know
    if word == "status":
        assert "sub (demo): idle" in done.stdout
    row = named.status("sub")
    assert row["state"] == "idle" and row["running"] is None and row["queue"] == []
    # After `--` the word is the prompt: the long way once, then the shortcut.
    for expected in ("long", "shortcut"):
        done = named.run(*line, "--", word, env=PROBE)
        assert way(done) == expected
        assert done.returncode == 0, done.stderr
        assert "## The acphost demo agent" in done.stdout  # the tour: the prompt was the word
    stop_hosts(named, workspace)


def test_an_option_last_is_never_a_prompt(named, workspace):
    line = ("-a", "demo", "-s", "opt")
    warm_up(named, *line)
    done = named.run(*line, "--help", env=PROBE)
    assert way(done) == "long"
    assert done.returncode == 0 and done.stdout.startswith("usage: acphost"), done.stderr
    stop_hosts(named, workspace)


def test_a_prompt_mentioning_a_file_takes_the_long_way_and_attaches_it(named, workspace):
    line = ("-a", "demo", "-s", "files", *LIVE)
    warm_up(named, *line)
    (workspace / "notes.txt").write_text("some notes\n")
    done = named.run(*line, "echo see @notes.txt", env=PROBE)
    assert way(done) == "long"
    assert done.returncode == 0, done.stderr
    uri = (workspace / "notes.txt").as_uri()
    assert done.stdout == f"see @notes.txt\n\nAttached: notes.txt <{uri}>\n"
    missing = named.run(*line, "echo see @missing.txt", env=PROBE)
    assert way(missing) == "long"
    assert missing.returncode == 0, missing.stderr
    assert missing.stdout == "see @missing.txt\n"
    assert clean(missing.stderr) == "acphost: @missing.txt: no such file; it is not attached\n"
    # The shortcut of the command line is still there for the next plain prompt.
    done = named.run(*line, "echo plain", env=PROBE)
    assert way(done) == "shortcut" and done.stdout == "plain\n"
    assert len(hosts_in(workspace)) == 1
    stop_hosts(named, workspace)


# -- a shortcut holds only while what it stands for is unchanged -----------------------


def _settings(default: str) -> str:
    """A settings file whose first (the default) agent, named ``default``, is the demo."""
    demo = {"command": sys.executable, "args": ["-m", "acphost.agents.demo"]}
    return json.dumps({"agent_servers": {default: demo}})


def _row(named, agent: str, name: str) -> dict:
    done = named.run("-a", agent, "status", "-s", name, "-o", "json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    return row


@pytest.mark.parametrize("appears", [False, True], ids=["changed", "created"])
def test_a_changed_user_settings_file_makes_the_run_resolve_again(named, workspace, appears):
    """The default agent changes: the same command line is another agent's session."""
    user = workspace / ".xdg" / "acphost" / "settings.json"  # the runs' XDG_CONFIG_HOME
    user.parent.mkdir(parents=True)
    before = "demo" if appears else "first"
    if not appears:
        user.write_text(_settings("first"))
    line = ("-s", "cfg", *LIVE)  # no -a: the default agent
    warm_up(named, *line)
    assert way(named.run(*line, "echo again", env=PROBE)) == "shortcut"
    first_host = _row(named, before, "cfg")["host_pid"]
    if appears:
        user.write_text(_settings("other"))
    else:
        with open(user, "r+") as f:  # the same size, the same inode: only its text differs
            f.write(_settings("other"))
    done = named.run(*line, "echo changed", env=PROBE)
    assert way(done) == "long"
    assert done.returncode == 0 and done.stdout == "changed\n", done.stderr
    row = _row(named, "other", "cfg")
    assert row["state"] == "idle" and row["host_pid"] != first_host
    assert sorted(hosts_in(workspace)) == sorted([first_host, row["host_pid"]])
    # The long way left the new shortcut: the next run is warm again, to the new host.
    done = named.run(*line, "echo warm again", env=PROBE)
    assert way(done) == "shortcut" and done.stdout == "warm again\n"
    stop_hosts(named, workspace)


def test_a_settings_file_named_on_the_command_line_is_watched_too(named, workspace):
    settings = workspace / "mine.json"
    settings.write_text(_settings("first"))
    line = ("--settings", "mine.json", "-s", "cfg", *LIVE)
    warm_up(named, *line)
    settings.write_text(_settings("broken") + "{")  # no longer JSON
    done = named.run(*line, "echo changed", env=PROBE)
    assert way(done) == "long"
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert "mine.json" in clean(done.stderr)
    stop_hosts(named, workspace)


def test_trusting_the_project_settings_makes_the_run_resolve_again(named, workspace):
    """The trust store is one of the files: the project's agent becomes the default."""
    project = workspace / ".acphost" / "settings.json"
    project.parent.mkdir()
    project.write_text(_settings("project"))
    line = ("-s", "trusted", *LIVE)  # no -a: the default agent, the demo while untrusted
    warm_up(named, *line)
    (first_host,) = hosts_in(workspace)
    assert named.run("trust", str(project)).returncode == 0
    done = named.run(*line, "echo trusted", env=PROBE)
    assert way(done) == "long"
    assert done.returncode == 0 and done.stdout == "trusted\n", done.stderr
    row = _row(named, "project", "trusted")
    assert row["host_pid"] != first_host and row["state"] == "idle"
    stop_hosts(named, workspace)


def test_a_warm_run_warns_of_untrusted_project_settings_as_a_plain_run_does(named, workspace):
    """A run that skipped a project settings file leaves no shortcut: each run says so."""
    project = workspace / ".acphost" / "settings.json"
    project.parent.mkdir()
    project.write_text(_settings("project"))
    plain = named.run("-a", "demo", "echo plain")
    assert plain.returncode == 0 and "acphost trust" in plain.stderr, plain.stderr
    line = ("-a", "demo", "-s", "untrusted", *LIVE)
    first = named.run(*line, "echo first")
    assert first.returncode == 0 and first.stderr == plain.stderr
    done = named.run(*line, "echo again", env=PROBE)
    stop_hosts(named, workspace)
    assert way(done) == "long" and done.stdout == "again\n"
    assert clean(done.stderr) == plain.stderr


def test_an_untrusted_project_settings_file_appearing_is_seen(named, workspace):
    line = ("-a", "demo", "-s", "proj", *LIVE)
    warm_up(named, *line)
    (workspace / ".acphost").mkdir()
    (workspace / ".acphost" / "settings.json").write_text(_settings("project"))
    done = named.run(*line, "echo again", env=PROBE)
    assert way(done) == "long"
    assert done.returncode == 0 and done.stdout == "again\n", done.stderr
    assert "acphost trust" in clean(done.stderr)  # the long way says it is skipped
    stop_hosts(named, workspace)


def test_a_cwd_link_pointed_elsewhere_is_that_folders_session(named, workspace):
    """``--cwd LINK``: the long way names the session by the real folder, the shortcut must too."""
    for sub in ("a", "b"):
        (workspace / sub).mkdir()
    link = workspace / "project"
    link.symlink_to("a")
    line = ("-a", "demo", "--cwd", "project", "-s", "moved", *LIVE)
    first = named.run(*line, "diff")
    assert first.returncode == 0 and f"[diff] {workspace / 'a' / 'hello.py'}" in first.stdout
    link.unlink()
    link.symlink_to("b")
    done = named.run(*line, "diff", env=PROBE)
    stop_hosts(named, workspace)
    for sub in ("a", "b"):  # the agents run in the session's folder
        eventually_sync(lambda sub=sub: not processes_in(workspace / sub), what="agents to stop")
    assert done.returncode == 0, clean(done.stderr)
    assert f"[diff] {workspace / 'b' / 'hello.py'}" in done.stdout, done.stdout


def test_another_history_setting_in_the_environment_is_not_served_by_the_shortcut(named, workspace):
    line = ("-a", "demo", "-s", "env", *LIVE)
    warm_up(named, *line)
    (recording,) = hosts_in(workspace)
    done = named.run(*line, "echo unrecorded", env={**PROBE, "ACPHOST_NO_HISTORY": "1"})
    assert way(done) == "long"
    # The live host records into the history: not this run's options. Idle, it
    # makes way, and the run is served by a host that does not record.
    assert (done.returncode, done.stdout) == (0, "unrecorded\n"), clean(done.stderr)
    assert hosts_in(workspace) != [recording]
    # Each environment has its own shortcut: both are served from now on.
    assert len(list(shortcuts().glob("*.json"))) == 2
    again = named.run(*line, "echo unrecorded", env={**PROBE, "ACPHOST_NO_HISTORY": "1"})
    assert way(again) == "shortcut" and again.returncode == 0, clean(again.stderr)
    stop_hosts(named, workspace)


def test_another_state_home_is_another_session_never_the_old_shortcut(named, workspace, tmp_path):
    line = ("-a", "demo", "-s", "env", *LIVE)
    warm_up(named, *line)
    (first_host,) = hosts_in(workspace)
    other = tmp_path / "other-state"
    other.mkdir()
    done = named.run(*line, "echo elsewhere", env={**PROBE, "XDG_STATE_HOME": str(other)})
    assert way(done) == "long"
    assert done.returncode == 0 and done.stdout == "elsewhere\n", done.stderr
    hosts = hosts_in(workspace)
    assert len(hosts) == 2 and first_host in hosts
    # Its own shortcut, in its own state home; the first one is still served.
    assert list((other / "acphost" / "named" / "shortcuts").glob("*.json"))
    done = named.run(*line, "echo home", env=PROBE)
    assert way(done) == "shortcut" and done.stdout == "home\n"
    stop_hosts(named, workspace)


def test_a_shortcut_whose_host_is_gone_starts_a_new_host_that_continues_the_session(
    named, workspace
):
    line = ("-a", "demo", "-s", "gone", "--keep-alive", "0.3s")
    warm_up(named, *line)
    assert only_shortcut().exists()
    (place,) = named_places(str(workspace))
    session_id = json.loads(Path(place.session_file).read_text())["sessionId"]
    named.wait_gone()  # the keep-alive expired: host and agent stopped
    done = named.run(*line, "echo back", env=PROBE)
    assert way(done) == "long"  # tried the shortcut, found no host, went the long way
    assert done.returncode == 0 and done.stdout == "back\n", done.stderr
    assert clean(done.stderr) == ""
    assert json.loads(Path(place.session_file).read_text())["sessionId"] == session_id
    named.wait_gone()


def test_a_shortcut_reaches_the_next_host_of_its_name_with_that_hosts_token(named, workspace):
    line = ("-a", "demo", "-s", "next", "--keep-alive", "0.3s")
    warm_up(named, *line)
    (place,) = named_places(str(workspace))
    token = Path(place.token_file).read_text()
    named.wait_gone()
    # Another command line of the same session starts the next host (another token).
    warm_up(named, "-a", "demo", "-s", "next", *LIVE, "-o", "simple")
    assert Path(place.token_file).read_text() != token
    done = named.run(*line, "echo reached", env=PROBE)
    assert way(done) == "shortcut"
    assert done.returncode == 0 and done.stdout == "reached\n", done.stderr
    named.wait_gone()  # the warm run's keep-alive (0.3 s) is the host's now


def test_no_queue_through_the_shortcut_fails_at_once_when_busy(named, workspace):
    quick = ("-a", "demo", "-s", "busy", *LIVE, "--no-queue")
    warm_up(named, *quick)
    running = named.start("-a", "demo", "-s", "busy", *LIVE, "wait 30")
    named.wait_status("busy", "the turn to run", lambda r: r.get("running") == "wait 30")
    done = named.run(*quick, "echo hi", env=PROBE)
    assert way(done) == "shortcut"
    assert done.returncode == 4 and done.stdout == ""
    assert clean(done.stderr) == (
        "acphost: session busy is busy (a turn is running or waiting); "
        "leave out --no-queue to wait for it\n"
    )
    assert named.status("busy")["queue"] == []
    running.send_signal(signal.SIGINT)
    running.communicate(timeout=30)
    assert running.returncode == 130
    stop_hosts(named, workspace)


#: A shortcut skips the long way's checks of the prompt (``read_prompt``).


@pytest.mark.parametrize("bad", ["   ", "\t", "echo \udcff"], ids=["spaces", "tab", "not-utf8"])
def test_a_prompt_a_plain_run_refuses_is_refused_the_same_through_the_shortcut(
    named, workspace, bad
):
    line = ("-a", "demo", "-s", "bad", *LIVE)
    warm_up(named, *line)
    plain = named.run("-a", "demo", bad)  # ("\udcff": the byte 0xff on the command line)
    assert plain.returncode == 2 and plain.stderr.count("\n") == 1, plain.stderr
    done = named.run(*line, bad, env=PROBE)
    after = named.run(*line, "echo fine", env=PROBE)
    assert after.returncode == 0 and after.stdout.startswith("fine\n"), clean(after.stderr)
    stop_hosts(named, workspace)
    got = (done.returncode, done.stdout, clean(done.stderr))
    assert got == (plain.returncode, "", plain.stderr)


def test_a_warm_run_with_its_stdout_closed_never_writes_into_the_hosts_socket(named, workspace):
    slow = {"ACPHOST_DEMO_STEP": "0.05"}  # the turn streams for a while: 20 chunks
    line = ("-a", "demo", "-s", "closed", *LIVE)
    ready = named.run(*line, "echo ready", env=slow)  # its host's agent takes its time
    assert ready.returncode == 0 and ready.stdout == "ready\n", ready.stderr
    done = subprocess.run(
        ["/bin/sh", "-c", 'exec "$0" -m acphost "$@" >&-', sys.executable, *line, "slow"],
        cwd=workspace,
        env=environment(workspace, {**slow, **PROBE}),
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    stop_hosts(named, workspace)
    assert way(done) == "shortcut"
    err = clean(done.stderr)
    assert "cancelled" not in err, err  # its own output must not cancel its turn
    assert done.returncode in (0, 1) and "Traceback" not in err, err


# -- a broken shortcut never breaks a run ------------------------------------------------


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00\xffnot json at all{")


def _symlink(path: Path) -> None:
    copy = path.with_name("elsewhere.txt")  # a valid shortcut, reached through a link
    shutil.copy(path, copy)
    path.unlink()
    path.symlink_to(copy)


def _another_key(path: Path) -> None:
    data = json.loads(path.read_text())
    data["key"] = "0" * 64  # another command line's shortcut (its digest)
    path.write_text(json.dumps(data))


def _bad_types(path: Path) -> None:
    data = json.loads(path.read_text())
    data.update(files="all", socket=5, request=[])
    path.write_text(json.dumps(data))


def _no_token(path: Path) -> None:
    data = json.loads(path.read_text())
    data["token"] = str(path.with_name("no-such-token"))
    path.write_text(json.dumps(data))


def _huge(path: Path) -> None:
    data = json.loads(path.read_text())
    data["padding"] = "x" * (1 << 17)
    path.write_text(json.dumps(data))


def _other_owner(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    os.chown(path, 65534, 65534)


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)  # opening it for reading waits for a writer: a run must not


def _fifo_token(path: Path) -> None:
    data = json.loads(path.read_text())
    fifo = path.with_name("token-fifo")
    os.mkfifo(fifo)
    data["token"] = str(fifo)
    path.write_text(json.dumps(data))


#: A shortcut, or the token file it names, that is a FIFO: opening it for
#: reading blocks until a writer comes, so the run hangs before the long way.

BREAKAGES = [
    _garbage,
    _symlink,
    _another_key,
    _bad_types,
    _no_token,
    _huge,
    _other_owner,
    _folder,
    _fifo,
    _fifo_token,
]


@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda f: f.__name__.strip("_"))
def test_a_broken_shortcut_never_breaks_a_run(named, workspace, breakage):
    line = ("-a", "demo", "-s", "broken", *LIVE)
    warm_up(named, *line)
    path = only_shortcut()
    breakage(path)
    done = named.run(*line, "echo still fine", env=PROBE, timeout=15)
    assert way(done) == "long"
    assert done.returncode == 0 and done.stdout == "still fine\n", done.stderr
    assert clean(done.stderr) == ""
    assert len(hosts_in(workspace)) == 1  # the same live host
    stop_hosts(named, workspace)


# -- a terminal ---------------------------------------------------------------------------


def _pty(named, workspace, args, *, term="xterm-256color", env=None):
    run = PtyRun(args, cwd=workspace, env=environment(workspace, env), term=term)
    code = run.wait(timeout=60)
    return code, bytes(run.output)


@pytest.mark.parametrize(
    ("term", "env"),
    [("xterm-256color", {}), ("xterm-256color", {"NO_COLOR": "1"}), ("dumb", {})],
    ids=["styled", "no-color", "dumb"],
)
def test_a_warm_run_on_a_terminal_shows_what_a_plain_run_shows_there(named, workspace, term, env):
    line = ("-a", "demo", "-s", "tty", *LIVE)
    warm_up(named, *line)  # its host was started by a run writing into a pipe
    plain_code, plain = _pty(named, workspace, ["-a", "demo", "plan"], term=term, env=env)
    code, probed = _pty(named, workspace, [*line, "plan"], term=term, env={**env, **PROBE})
    assert (code, plain_code) == (0, 0), probed
    seen = imports(probed.decode("utf-8", "replace").replace("\r\n", "\n"))
    assert "acphost.cli._named_client" in seen and "acphost.cli._main" not in seen
    warm = _IMPORT_LINE.sub(b"", probed)
    assert screen(warm) == screen(plain)
    # The same styles and cursor moves; the host's own terminal (a pipe, TERM=dumb) is no part.
    assert _escapes(warm) == _escapes(plain)
    if term == "dumb":
        assert b"\x1b" not in plain
    elif env:
        assert b"\x1b[36m" not in plain and b"\x1b[1m[plan]" in plain  # bold, no colour
    else:
        assert b"\x1b[36m" in plain and b"\x1b[1m[plan]" in plain
    stop_hosts(named, workspace)


@pytest.mark.parametrize("prompt", ["diff", "echo " + " ".join(["wrapped"] * 20)])
def test_a_warm_run_on_a_narrow_terminal_wraps_as_a_plain_run_there(named, workspace, prompt):
    line = ("-a", "demo", "-s", "narrow", *LIVE)
    warm_up(named, *line)
    plain = PtyRun(["-a", "demo", prompt], cwd=workspace, env=environment(workspace), cols=40)
    assert plain.wait(timeout=60) == 0, plain.text()
    warm = PtyRun([*line, prompt], cwd=workspace, env=environment(workspace, PROBE), cols=40)
    assert warm.wait(timeout=60) == 0, warm.text()
    assert "acphost.cli._main" not in imports(warm.text().replace("\r\n", "\n"))
    shown = screen(_IMPORT_LINE.sub(b"", bytes(warm.output)), cols=40)
    assert shown == screen(plain.output, cols=40)
    stop_hosts(named, workspace)


def _escapes(data: bytes) -> set[bytes]:
    return set(re.findall(rb"\x1b\[[0-9;?]*[@-~]", data))


# -- signals ------------------------------------------------------------------------------


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_a_warm_run_cancels_its_turn_and_the_session_goes_on(
    named, workspace, sig, code
):
    line = ("-a", "demo", "-s", "sig", *LIVE)
    warm_up(named, *line)
    running = named.start(*line, "wait 30", env=PROBE)
    named.wait_status("sig", "the turn to run", lambda r: r.get("running") == "wait 30")
    running.send_signal(sig)
    _, err = running.communicate(timeout=30)
    assert running.returncode == code, err
    assert "acphost.cli._main" not in imports(err)  # it was the shortcut's run
    named.wait_status("sig", "the turn cancelled", lambda r: r["state"] == "idle")
    done = named.run(*line, "echo next", env=PROBE)
    assert way(done) == "shortcut"
    assert done.returncode == 0 and done.stdout == "next\n", done.stderr
    stop_hosts(named, workspace)


def test_ctrl_c_of_a_warm_run_waits_for_the_cancelled_end_of_its_turn(named, workspace):
    """Ctrl-C during the turn asks the host to cancel it; the run shows the turn's end."""
    line = ("-a", "demo", "-s", "cancel", *LIVE, "-o", "jsonl")
    warm_up(named, *line, prompt="wait 0")
    running = named.start(*line, "wait 30", env=PROBE)
    # Its first frames are out: the run knows its turn began (the host says so first).
    assert json.loads(running.stdout.readline())["method"] == "client/selected_agent"
    prompt = json.loads(running.stdout.readline())
    assert prompt["method"] == "session/prompt"
    running.send_signal(signal.SIGINT)
    out, err = running.communicate(timeout=30)
    assert running.returncode == 130, err
    assert "acphost.cli._main" not in imports(err)
    frames = [json.loads(text) for text in out.splitlines()]
    end = {"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "cancelled"}}
    assert frames[-1:] == [end]
    assert [f for f in frames if f.get("method") == "session/cancel"]
    done = named.run(*line, "echo next", env=PROBE)
    assert way(done) == "shortcut" and done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["result"] == {"stopReason": "end_turn"}
    stop_hosts(named, workspace)


def test_ctrl_c_of_a_warm_run_waiting_its_turn_takes_its_prompt_out_of_the_queue(named, workspace):
    line = ("-a", "demo", "-s", "queue", *LIVE)
    warm_up(named, *line)
    running = named.start(*line, "wait 30", env=PROBE)
    named.wait_status("queue", "the turn to run", lambda r: r.get("running") == "wait 30")
    waiting = named.start(*line, "echo never sent", env=PROBE)
    named.wait_status("queue", "the prompt queued", lambda r: r["queue"] == ["echo never sent"])
    waiting.send_signal(signal.SIGINT)
    out, err = waiting.communicate(timeout=30)
    assert waiting.returncode == 130 and out == "", err
    assert "acphost.cli._main" not in imports(err)
    row = named.wait_status("queue", "the queue emptied", lambda r: r["queue"] == [])
    assert row["running"] == "wait 30"  # the running turn goes on
    running.send_signal(signal.SIGINT)
    running.communicate(timeout=30)
    assert running.returncode == 130
    done = named.run(*line, "echo after", env=PROBE)
    assert way(done) == "shortcut" and done.stdout == "after\n", done.stderr
    stop_hosts(named, workspace)
