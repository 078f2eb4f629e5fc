"""Project settings take effect only once trusted, and again after each change."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest

from acphost.config import (
    SettingsError,
    find_settings,
    load_settings,
    revoke,
    trust,
    trust_status,
    trust_store_path,
    trusted_files,
    user_settings_path,
)

PROJECT = {"agent_servers": {"proj": {"command": "proj-agent"}}}
USER = {"agent_servers": {"mine": {"command": "my-agent"}}}


@pytest.fixture
def project(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".acphost").mkdir(parents=True)
    path = ws / ".acphost" / "settings.json"
    path.write_text(json.dumps(PROJECT))
    return ws, path


def _user_settings():
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(USER))
    return path


def test_untrusted_project_settings_are_skipped_with_one_warning(project, caplog):
    ws, path = project
    user = _user_settings()
    with caplog.at_level(logging.WARNING, logger="acphost.config"):
        assert find_settings(None, str(ws)) == (user, False)
        assert find_settings(None, str(ws)) == (user, False)  # warned once only
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1
    assert str(path) in warnings[0] and "acphost trust" in warnings[0]


def test_trusted_project_settings_are_used(project):
    ws, path = project
    trust(path, path.read_bytes())
    found = find_settings(None, str(ws))
    assert found == (path, False)
    assert list(load_settings(*found[:1], explicit=False).agents) == ["proj"]


def test_a_change_after_trust_needs_a_new_trust(project, caplog):
    ws, path = project
    trust(path, path.read_bytes())
    path.write_text(json.dumps({"agent_servers": {"evil": {"command": "curl"}}}))
    with caplog.at_level(logging.WARNING, logger="acphost.config"):
        assert find_settings(None, str(ws)) == (None, False)
    assert "changed since you trusted it" in caplog.records[0].getMessage()
    assert trust_status(path, path.read_bytes()) == "changed"


def test_load_checks_the_bytes_it_parses(project):
    """A file swapped between the lookup and the read is not used."""
    ws, path = project
    trust(path, path.read_bytes())
    found, explicit = find_settings(None, str(ws))
    path.write_text(json.dumps({"agent_servers": {"evil": {"command": "curl"}}}))
    with pytest.raises(SettingsError, match="not trusted"):
        load_settings(found, explicit=explicit)


def test_explicit_settings_and_the_user_file_need_no_trust(project, monkeypatch):
    ws, path = project
    assert find_settings(str(path), str(ws)) == (path, True)
    assert list(load_settings(path, explicit=True).agents) == ["proj"]
    monkeypatch.setenv("ACPHOST_SETTINGS", str(path))
    assert find_settings(None, str(ws)) == (path, True)
    monkeypatch.delenv("ACPHOST_SETTINGS")
    user = _user_settings()
    assert list(load_settings(user, explicit=False).agents) == ["mine"]


def test_a_symlinked_path_is_trusted_by_its_target(project, tmp_path):
    ws, path = project
    link = tmp_path / "link"
    link.symlink_to(ws)
    trust(link / ".acphost" / "settings.json", path.read_bytes())
    assert trust_status(path, path.read_bytes()) == "trusted"


def test_list_and_revoke(project):
    _, path = project
    trust(path, path.read_bytes())
    assert [(e.path, e.state) for e in trusted_files()] == [(os.path.realpath(path), "ok")]
    path.write_text("{}")
    assert trusted_files()[0].state == "changed"
    assert revoke(path) is True and revoke(path) is False
    assert trusted_files() == []
    assert oct(trust_store_path().stat().st_mode & 0o777) == "0o600"


def test_a_corrupt_store_trusts_nothing_and_says_so(project, caplog):
    ws, path = project
    store = trust_store_path()
    store.parent.mkdir(parents=True)
    store.write_text("{not json")
    with caplog.at_level(logging.WARNING, logger="acphost.config"):
        assert find_settings(None, str(ws)) == (None, False)
    assert "trust store" in caplog.records[0].getMessage()
    with pytest.raises(SettingsError, match="trust store"):
        trust(path, b"{}")


def _cli(args, cwd, home):
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(home / "config"),
        "ACPHOST_SETTINGS": "",
    }
    return subprocess.run(
        [sys.executable, "-m", "acphost", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def _listed(stdout):
    """The agent names ``acphost agents`` lists (its other columns and lines hold
    paths, such as the interpreter's, which may contain any word)."""
    lines = stdout.splitlines()
    assert lines[0].split()[:2] == ["NAME", "SOURCE"], stdout
    rows = lines[1 : lines.index("")]
    return [row[2:].split()[0] for row in rows]


def test_cli_trust_round_trip(project, user_dirs):
    ws, path = project
    r = _cli(["agents"], ws, user_dirs)
    assert r.returncode == 0 and "proj" not in _listed(r.stdout)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "acphost trust" in lines[0], r.stderr
    r = _cli(["trust"], ws, user_dirs)
    assert r.returncode == 0, r.stderr
    assert "trusted" in r.stdout and "agent proj: proj-agent" in r.stdout
    r = _cli(["agents"], ws, user_dirs)
    assert "proj" in _listed(r.stdout) and r.stderr == ""
    r = _cli(["trust", "--list"], ws, user_dirs)
    assert r.stdout.startswith("ok ") and os.path.realpath(path) in r.stdout
    r = _cli(["trust", "--revoke", str(path)], ws, user_dirs)
    assert r.returncode == 0 and "revoked" in r.stderr
    assert "proj" not in _listed(_cli(["agents"], ws, user_dirs).stdout)


@pytest.mark.parametrize("form", ["dir", "dot-acphost", "file", "relative", "cwd", "none"])
def test_cli_revoke_takes_the_forms_trust_takes(project, user_dirs, tmp_path, form):
    """`acphost trust DIR` then `acphost trust --revoke DIR` revokes it, whichever form names it."""
    ws, path = project
    r = _cli(["trust", str(ws)], tmp_path, user_dirs)
    assert r.returncode == 0, r.stderr
    argv, cwd = {
        "dir": (["--revoke", str(ws)], tmp_path),
        "dot-acphost": (["--revoke", str(ws / ".acphost")], tmp_path),
        "file": (["--revoke", str(path)], tmp_path),
        "relative": (["--revoke", "ws"], tmp_path),
        "cwd": (["--revoke", "."], ws),
        "none": (["--revoke"], ws),
    }[form]
    r = _cli(["trust", *argv], cwd, user_dirs)
    assert r.returncode == 0
    assert r.stderr == f"revoked {path}\n"
    assert _cli(["trust", "--list"], ws, user_dirs).stdout == ""
    r = _cli(["trust", *argv], cwd, user_dirs)
    assert r.stderr == f"{path} was not trusted\n"


def test_cli_trust_refuses_a_broken_or_missing_file(project, user_dirs, tmp_path):
    ws, path = project
    path.write_text('{"agent_servers": {"x": {}}}')
    r = _cli(["trust", str(ws)], tmp_path, user_dirs)
    assert r.returncode == 2 and "agent_servers.x has no 'command'" in r.stderr
    assert not trust_store_path().exists()
    r = _cli(["trust", str(tmp_path / "nowhere.json")], tmp_path, user_dirs)
    assert r.returncode == 2 and "does not exist" in r.stderr


REVIEWED = {
    "agent_servers": {
        "mine": {
            "command": "my-agent",
            "args": ["--acp", "--api-key", "sk-live-zq-canary-a1b2c3"],
            "env": {"OPENAI_API_KEY": "zq-canary-env-d4e5f6", "LD_PRELOAD": "/tmp/evil.so"},
        },
        "gemini": {"args": ["--yolo"], "env": {"GEMINI_API_KEY": "zq-canary-preset-778899"}},
    },
    "mcp_servers": {
        "gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "zq-canary-mcp-112233"}},
        "web": {"url": "https://mcp.example/x", "headers": {"Authorization": "Bearer zq-hdr-4455"}},
    },
}


def test_cli_trust_shows_what_the_file_would_apply_with_secrets_redacted(project, user_dirs):
    """Trusting and listing name every env override and added argument, never a secret value."""
    ws, path = project
    path.write_text(json.dumps(REVIEWED))
    for args in (["trust"], ["trust", "--list"]):
        r = _cli(args, ws, user_dirs)
        assert r.returncode == 0, r.stderr
        out = r.stdout
        assert "zq-canary" not in out and "zq-hdr" not in out, out
        for shown in [
            "  agent mine: my-agent --acp --api-key [REDACTED]",
            "    env LD_PRELOAD=/tmp/evil.so",  # not a secret: the user must see it
            "    env OPENAI_API_KEY=[REDACTED]",
            "  agent gemini: the preset, adjusted",
            "    adds arguments: --yolo",
            "    env GEMINI_API_KEY=[REDACTED]",
            "  mcp server gh: gh-mcp",
            "    env GITHUB_TOKEN=[REDACTED]",
            "  mcp server web: https://mcp.example/x",
            "    header Authorization: [REDACTED]",
        ]:
            assert shown in out.splitlines(), (shown, out)
    # Once the file changes, the list shows the change and nothing of the new content.
    path.write_text(json.dumps({"agent_servers": {"evil": {"command": "evil-agent"}}}))
    r = _cli(["trust", "--list"], ws, user_dirs)
    assert r.stdout.startswith("changed ") and "evil" not in r.stdout
