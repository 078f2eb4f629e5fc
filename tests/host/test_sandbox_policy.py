"""Which paths the sandbox grants, checked by real confined processes (``sh``, ``cat``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from acphost.config import DEMO, AgentSpec, SettingsError, parse_settings
from acphost.host import build_confinement, sandbox_support

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
    assert "id_ed25519" in done.stdout  # the name is listed
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
