"""The private view's namespace step alone, in real child processes (no Landlock)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acphost.host import _namespace
from acphost.host._namespace import NamespacePlan, hidden_folders
from tests.support.sandboxing import private_view

PRIVATE, WHY = private_view()
needs_view = pytest.mark.skipif(not PRIVATE, reason=f"no private view here: {WHY}")

CHILD = """
import json, os, pty, sys
parent, child = pty.openpty()
os.write(parent, b"x\\n")
print(json.dumps({
    "uid_map": open("/proc/self/uid_map").read().split(),
    "uid": os.getuid(),
    "pts": sorted(os.listdir("/dev/pts")),
    "own": os.read(child, 8).decode(),
    "hidden": os.listdir(sys.argv[1]),
    "writable": os.access(sys.argv[1], os.W_OK),
}))
"""


@needs_view
@pytest.mark.parametrize("own_user", [True, None])
def test_a_child_in_its_own_namespaces_keeps_its_user_and_sees_only_its_terminals(
    tmp_path, own_user
):
    """``own_user=True`` takes the path of an unprivileged user even when run as root."""
    secret = tmp_path / "run"
    secret.mkdir()
    (secret / "bus").write_text("socket stand-in")
    plan = NamespacePlan(hidden_folders([str(secret)], [str(tmp_path / "ws")]))
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(secret)],
            preexec_fn=plan.preexec(own_user=own_user),
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        assert plan.outcome == (_namespace.PRIVATE, 0)
    finally:
        plan.close()
    got = json.loads(done.stdout)
    assert got["uid"] == os.getuid()
    if own_user:  # mapped to itself, one id
        assert got["uid_map"] == [str(os.getuid()), str(os.getuid()), "1"]
    assert got["pts"] == ["0", "ptmx"]  # its own terminal only
    assert got["own"] == "x\n"
    assert got["hidden"] == [] and not got["writable"]
    assert (secret / "bus").exists()  # the cover was the child's alone


def test_a_folder_holding_what_the_agent_works_in_stays_visible(tmp_path):
    run = tmp_path / "run"
    (run / "project").mkdir(parents=True)
    (run / "gnupg").mkdir()
    (tmp_path / "file").write_text("")
    got = hidden_folders(
        [str(run), str(run / "gnupg"), str(tmp_path / "file"), "relative", "/", ""],
        [str(run / "project")],
    )
    assert got == (str(run / "gnupg"),)
    # Outermost only: a folder inside another hidden one adds nothing.
    assert hidden_folders([str(run), str(run / "gnupg")], []) == (str(run),)


@needs_view
def test_a_missing_file_in_a_covered_folder_is_named_as_the_sandboxs_refusal(tmp_path, monkeypatch):
    from acphost.config import AgentSpec
    from acphost.host import build_confinement, sandbox_support

    if sandbox_support()[0] == 0:
        pytest.skip("no Landlock here")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    ws = tmp_path / "ws"
    ws.mkdir()
    sandbox = build_confinement(AgentSpec(name="p", command="/bin/sh", source="t"), str(ws))
    try:
        key = f"{home}/.ssh/id_ed25519"
        assert sandbox.refusal(f"cat: {key}: No such file or directory") == key
        assert sandbox.refusal(f"cat: {ws}/gone.txt: No such file or directory") is None
    finally:
        sandbox.close()
