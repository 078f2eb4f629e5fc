"""Which paths the sandbox grants, checked by real confined processes (``sh``, ``cat``)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from acphost.config import DEMO, AgentSpec, SettingsError, parse_settings
from acphost.host import build_confinement, sandbox_support
from tests.support.sandboxing import private_view

ABI, WHY = sandbox_support()
pytestmark = pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")

AGENT = AgentSpec(name="probe", command="/bin/sh", source="tests")


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("KEY\n")
    (home / "notes.txt").write_text("notes\n")
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    ws = tmp_path / "ws"
    ws.mkdir()
    return home, ws


def confined(spec: AgentSpec, ws: Path, script: str) -> subprocess.CompletedProcess[str]:
    sandbox = build_confinement(spec, str(ws))
    try:
        return subprocess.run(
            ["/bin/sh", "-c", script],
            cwd=ws,
            env={**os.environ, **sandbox.env},
            preexec_fn=sandbox.preexec(),
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        sandbox.close()


def test_denied_contents_are_unreadable_their_names_and_siblings_are_not(home):
    _, ws = home
    done = confined(
        AGENT, ws, "ls -a ~/.ssh; cat ~/notes.txt; cat ~/.ssh/id_ed25519 || echo REFUSED"
    )
    # Landlock alone lists the name; the private view covers the folder with an empty one.
    assert ("id_ed25519" in done.stdout) != private_view()[0]
    assert "notes" in done.stdout  # a sibling of the denied folder is read
    assert "KEY" not in done.stdout and "REFUSED" in done.stdout


def test_a_file_made_later_beside_a_denied_folder_is_not_readable(home):
    home_dir, ws = home
    sandbox = build_confinement(AGENT, str(ws))
    try:
        (home_dir / "later.txt").write_text("LATER\n")  # made after the ruleset
        done = subprocess.run(
            ["/bin/sh", "-c", "cat ~/later.txt || echo REFUSED"],
            preexec_fn=sandbox.preexec(),
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        sandbox.close()
    assert "REFUSED" in done.stdout and "LATER" not in done.stdout


def test_a_state_folder_a_link_moves_into_a_denied_place_is_not_granted(home, caplog):
    home_dir, ws = home
    (home_dir / ".tool").symlink_to(home_dir / ".ssh")
    spec = replace(AGENT, sandbox_write=("~/.tool",))
    done = confined(spec, ws, "echo x > ~/.tool/authorized_keys || echo REFUSED")
    assert "REFUSED" in done.stdout
    assert not (home_dir / ".ssh" / "authorized_keys").exists()
    assert "symbolic link" in caplog.text


def test_a_state_folder_a_link_turns_into_the_home_folder_is_not_granted(home, caplog):
    home_dir, ws = home
    (home_dir / ".tool").symlink_to(home_dir)
    (home_dir / "sub").mkdir()
    spec = replace(AGENT, sandbox_write=("~/.tool",))
    done = confined(spec, ws, "echo x > ~/sub/f || echo REFUSED")
    assert "REFUSED" in done.stdout and not (home_dir / "sub" / "f").exists()
    assert "symbolic link" in caplog.text


def test_the_demo_writes_its_sessions_inside_acphosts_denied_state_folder(home):
    home_dir, ws = home
    state = home_dir / ".local" / "state" / "acphost"
    state.mkdir(parents=True)
    (state / "history.sqlite3").write_text("HISTORY\n")
    done = confined(
        DEMO,
        ws,
        "echo s > ~/.local/state/acphost/demo/s.json && echo WROTE; "
        "cat ~/.local/state/acphost/history.sqlite3 || echo REFUSED",
    )
    assert "WROTE" in done.stdout and "REFUSED" in done.stdout
    assert "HISTORY" not in done.stdout


def test_the_private_temp_folder_is_tmpdir_and_slash_tmp_is_not_writable(home):
    _, ws = home
    done = confined(
        AGENT,
        ws,
        'echo t > "$TMPDIR/t" && echo TMPDIR-OK; echo u > /tmp/acphost-probe-$$ || echo REFUSED',
    )
    assert "TMPDIR-OK" in done.stdout and "REFUSED" in done.stdout


def test_other_agents_folders_are_denied_and_its_own_are_writable(home):
    home_dir, ws = home
    (home_dir / ".codex").mkdir()
    (home_dir / ".codex" / "auth.json").write_text("CODEX-TOKEN\n")
    spec = replace(AGENT, sandbox_write=("~/.gemini",))
    done = confined(
        spec, ws, "cat ~/.codex/auth.json || echo REFUSED; echo g > ~/.gemini/g && echo OWN"
    )
    assert "CODEX-TOKEN" not in done.stdout
    assert "REFUSED" in done.stdout and "OWN" in done.stdout


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("yes", "sandbox must be true (insist), false (off), or an object"),
        ({"read": []}, "unknown keys ['read']"),
        ({"deny": [""]}, "sandbox.deny must be a list of paths"),
    ],
)
def test_a_bad_sandbox_entry_is_one_line(value, needle, tmp_path):
    data = json.loads(json.dumps({"agent_servers": {"a": {"command": "x", "sandbox": value}}}))
    with pytest.raises(SettingsError, match=re.escape(needle)):
        parse_settings(data, tmp_path / "settings.json")


def test_sandbox_settings_reach_the_spec(tmp_path):
    data = {
        "agent_servers": {
            "a": {"command": "x", "sandbox": {"write": ["~/.a"], "deny": ["~/work/secret"]}},
            "b": {"command": "y", "sandbox": False},
        }
    }
    settings = parse_settings(data, tmp_path / "settings.json")
    a, b = settings.agents["a"], settings.agents["b"]
    assert (
        a.sandbox is None and a.sandbox_write == ("~/.a",) and a.sandbox_deny == ("~/work/secret",)
    )
    assert b.sandbox is False


def test_a_broad_write_root_never_lifts_the_default_denials(home):
    """``"sandbox": {"write": ["~"]}`` carves the home around ~/.ssh; it does not open it."""
    home_dir, ws = home
    (home_dir / ".codex").mkdir()
    (home_dir / ".codex" / "auth.json").write_text("OTHER AGENT\n")
    spec = replace(AGENT, sandbox_write=("~",))
    done = confined(
        spec,
        ws,
        "cat ~/.ssh/id_ed25519 || echo REFUSED-SSH; cat ~/.codex/auth.json || echo REFUSED-CODEX;"
        " echo more >> ~/notes.txt && echo WROTE",
    )
    assert "KEY" not in done.stdout and "REFUSED-SSH" in done.stdout
    assert "OTHER AGENT" not in done.stdout and "REFUSED-CODEX" in done.stdout
    # The root it asked for is writable around them (its files; a new name right
    # beside a denied one cannot be made: the home itself is only listed).
    assert "WROTE" in done.stdout


def test_an_empty_home_variable_still_denies_the_accounts_home(home, monkeypatch):
    import pwd

    account = pwd.getpwuid(os.getuid()).pw_dir
    monkeypatch.setenv("HOME", "")
    _, ws = home
    sandbox = build_confinement(AGENT, str(ws))
    try:
        assert os.path.realpath(
            os.path.join(account, ".ssh")
        ) in sandbox.deny or not os.path.lexists(os.path.join(account, ".ssh"))
        assert os.sep not in sandbox.write
    finally:
        sandbox.close()


def test_a_deep_tree_left_in_the_temporary_folder_is_removed(home):
    _, ws = home
    sandbox = build_confinement(AGENT, str(ws))
    temp = sandbox.temp
    path = temp
    for _ in range(1500):  # deeper than Python's recursion
        path = os.path.join(path, "d")
        os.mkdir(path)
    os.symlink("/", os.path.join(temp, "link-to-root"))
    sandbox.close()
    assert not os.path.lexists(temp)
    assert os.path.isdir("/usr")  # the link was removed, never followed


@pytest.mark.skipif(ABI < 6, reason="abstract unix sockets are scoped from Landlock ABI 6")
def test_an_abstract_socket_made_outside_cannot_be_reached(home):
    import socket
    import sys

    _, ws = home
    name = f"\0acphost-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(name)
    server.listen(1)
    try:
        probe = (
            "import socket,sys\n"
            "s=socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
            "try:\n"
            f"    s.connect({name!r}); print('CONNECTED')\n"
            "except OSError as e:\n"
            "    print('REFUSED', e.errno)\n"
        )
        done = confined(AGENT, ws, f"{sys.executable} -c {shlex.quote(probe)}")
        assert "REFUSED" in done.stdout and "CONNECTED" not in done.stdout, done
    finally:
        server.close()


def test_named_sessions_socket_folder_in_tmp_is_denied_to_an_agent_whose_workspace_holds_tmp(
    home,
):
    """With /tmp writable (its workspace), an agent still cannot reach, replace or make the
    folder where named sessions put their sockets when their own folder's path is too long."""
    from acphost._namedwire import short_socket_folder

    folder = short_socket_folder()
    probe = os.path.join(folder, f"planted-{os.getpid()}")
    script = (
        f"ls {shlex.quote(folder)} && echo LISTED; "
        f"echo x > {shlex.quote(probe)} && echo PLANTED; "
        f"mv {shlex.quote(folder)} {shlex.quote(folder)}.moved && echo MOVED"
    )
    done = confined(AGENT, Path("/tmp"), script)
    try:
        assert os.path.isdir(folder) and os.stat(folder).st_mode & 0o777 == 0o700
        assert "PLANTED" not in done.stdout and not os.path.exists(probe), done.stdout
        assert "MOVED" not in done.stdout, done.stdout
    finally:
        for leftover in (probe,):
            if os.path.exists(leftover):
                os.unlink(leftover)
        if os.path.isdir(folder + ".moved"):
            os.rename(folder + ".moved", folder)
