"""Trust is for a project's own settings file: a symbolic link to a trusted file is refused.

A checkout whose ``.acphost/settings.json`` (or whose ``.acphost`` folder) is
a link to another project's trusted file must not be honoured: the trusted
file's relative agent command would run in the new checkout, unreviewed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acphost.config import SettingsError, find_settings, trust, trust_status

# The agent command is relative: it runs whatever ``agent.py`` the checkout holds.
SETTINGS = {"agent_servers": {"proj": {"command": sys.executable, "args": ["agent.py"]}}}
MARKER_AGENT = "import pathlib; pathlib.Path('ran-agent-of-this-checkout').write_text('x')\n"


def _cli(args, cwd, home):
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(home / "config"),
        "ACPHOST_SETTINGS": "",
        "ACPHOST_DEMO_STEP": "0",
    }
    return subprocess.run(
        [sys.executable, "-m", "acphost", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.fixture
def projects(tmp_path, user_dirs):
    """Project A, trusted by the real ``acphost trust``; project B beside it, with no settings."""
    a, b = tmp_path / "a", tmp_path / "b"
    for ws in (a, b):
        ws.mkdir()
        (ws / "agent.py").write_text(MARKER_AGENT)
    (a / ".acphost").mkdir()
    (a / ".acphost" / "settings.json").write_text(json.dumps(SETTINGS))
    r = _cli(["trust"], a, user_dirs)
    assert r.returncode == 0, r.stderr
    return a, b


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_a_link_to_a_trusted_file_is_not_honoured(projects, user_dirs, linked):
    """B links to A's trusted file: `acphost -a proj` in B neither finds proj nor runs B's agent."""
    a, b = projects
    if linked == "file":
        (b / ".acphost").mkdir()
        (b / ".acphost" / "settings.json").symlink_to(a / ".acphost" / "settings.json")
        link = b / ".acphost" / "settings.json"
    else:
        (b / ".acphost").symlink_to(a / ".acphost")
        link = b / ".acphost"
    r = _cli(["-a", "proj", "hello"], b, user_dirs)
    assert not (b / "ran-agent-of-this-checkout").exists(), r.stderr
    assert r.returncode != 0
    warning = [line for line in r.stderr.splitlines() if "symbolic link" in line]
    assert len(warning) == 1, r.stderr
    assert str(b / ".acphost" / "settings.json") in warning[0] and str(link) in warning[0]
    # The same settings in A itself still run A's agent: the trust is A's.
    r = _cli(["-a", "proj", "hello"], a, user_dirs)
    assert (a / "ran-agent-of-this-checkout").exists(), r.stderr


def test_trust_refuses_a_linked_settings_file_with_one_line(projects, user_dirs):
    a, b = projects
    (b / ".acphost").mkdir()
    (b / ".acphost" / "settings.json").symlink_to(a / ".acphost" / "settings.json")
    r = _cli(["trust"], b, user_dirs)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "symbolic link" in r.stderr and str(b / ".acphost" / "settings.json") in r.stderr
    # A copy is B's own file: it can be trusted, by B's path.
    target = b / ".acphost" / "settings.json"
    target.unlink()
    target.write_bytes((a / ".acphost" / "settings.json").read_bytes())
    r = _cli(["trust"], b, user_dirs)
    assert r.returncode == 0, r.stderr
    assert find_settings(None, str(b)) == (target, False)


def test_the_library_calls_refuse_links_too(projects, tmp_path):
    a, b = projects
    (b / ".acphost").symlink_to(a / ".acphost")
    path = b / ".acphost" / "settings.json"
    assert trust_status(path, path.read_bytes()) == "linked"
    with pytest.raises(SettingsError, match="symbolic link"):
        trust(path, path.read_bytes())
    # A link above the project leads to the same project: followed.
    above = tmp_path / "above"
    above.symlink_to(a)
    data = (a / ".acphost" / "settings.json").read_bytes()
    assert trust_status(above / ".acphost" / "settings.json", data) == "trusted"
