"""``git *`` allows only ``git <one of git's built-in commands>``: a rule judges what will run.

For a word that is not one of its own commands, git runs ``git-WORD``; a
word holding a ``/`` is a path, so ``git x/../tools/build.sh`` runs the
workspace's script once a folder ``git-x`` exists, and ``git x/../../…/make``
runs the agent's ``Makefile``; a word may also be an alias from the
configuration. Replayed with the hostile agent against the real ``acphost``,
and the matcher on its own.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from acphost.host import Decision, PermissionRequest, Rule
from acphost.host._programs import git_builtins, git_subcommand
from tests.host.test_host_hostile_review import denied, run_hostile


def _git(ws, *args):
    subprocess.run(["git", "-C", str(ws), *args], check=True, capture_output=True)


def _terminal(command, args):
    return ["terminal/create", {"sessionId": "$SID", "command": command, "args": args,
                                "cwd": "$CWD"}]  # fmt: skip


def test_git_star_does_not_run_a_path_through_git_dash_word(tmp_path):
    """The agent writes ``git-x/keep`` and a ``Makefile`` (allowed), then asks for
    ``git x/../tools/build.sh`` and ``git x/../../…/usr/bin/make`` under a ``git *``
    rule: both are refused; ``git status`` and ``git log`` still run."""
    ws = tmp_path / "ws"
    (ws / "tools").mkdir(parents=True)
    _git(ws, "init", "-q")
    marker = tmp_path / "PWNED"
    script = ws / "tools" / "build.sh"
    script.write_text("#!/bin/sh\necho building\n")
    script.chmod(0o755)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [
        {"kind": "edit", "path": f"{os.path.realpath(ws)}/**", "decision": "allow"},
        {"kind": "execute", "command": "git *", "decision": "allow"},
    ]}))  # fmt: skip
    up = "../" * len(os.path.realpath(ws).strip("/").split("/"))
    steps = [
        ["fs/write_text_file", {"sessionId": "$SID", "path": "$CWD/git-x/keep", "content": ""}],
        ["fs/write_text_file", {"sessionId": "$SID", "path": "$CWD/Makefile",
                                "content": f"all:\n\ttouch {marker}\n"}],
        ["fs/write_text_file", {"sessionId": "$SID", "path": "$CWD/tools/build.sh",
                                "content": f"#!/bin/sh\ntouch {marker}\n"}],
        _terminal("git", ["x/../tools/build.sh"]),
        _terminal("git", [f"x/{up}usr/bin/make"]),
        _terminal("git", ["status"]),
        _terminal("git", ["log"]),
        _terminal("/usr/bin/git", ["x/../tools/build.sh"]),
    ]  # fmt: skip
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy", str(policy))
    assert [denied(a) for a in answers] == [False, False, False, True, True, False, False, True]
    assert not marker.exists()


def test_git_star_does_not_run_an_alias_or_an_external_command(tmp_path):
    """An alias in the repository's configuration, and an external ``git-WORD``
    on the ``PATH``, are not git's own commands: ``git *`` does not allow them."""
    ws = tmp_path / "ws"
    ws.mkdir()
    _git(ws, "init", "-q")
    _git(ws, "config", "alias.st", "status")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [
        {"kind": "execute", "command": "git *", "decision": "allow"},
        {"kind": "execute", "command": "git lfs", "decision": "allow"},
    ]}))  # fmt: skip
    steps = [_terminal("git", ["st"]), _terminal("git", ["lfs"]), _terminal("git", ["diff"])]
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy", str(policy))
    # A subcommand the rule spells out (git lfs) is the user's choice.
    assert [denied(a) for a in answers] == [True, False, False]


def _request(command, args):
    return PermissionRequest.for_terminal("s", command, args, cwd="/ws")


@pytest.mark.parametrize(
    ("pattern", "args", "allowed"),
    [
        ("git *", ["status"], True),
        ("git *", ["x/../../usr/bin/make"], False),
        ("git *", ["no-such-git-command"], False),
        ("git **", ["x/../tools/build.sh", "--flag"], False),
        ("git **", ["log", "--oneline"], True),
        ("git -C * *", ["-C", "sub", "x/../evil"], False),
        ("git -C * *", ["-C", "sub", "status"], True),
        ("git --no-pager *", ["--no-pager", "x/../evil"], False),
        ("* *", ["x/../evil"], False),
        ("git x/../tools/build.sh", ["x/../tools/build.sh"], True),  # spelled out
        # Options "**" covers before the subcommand: only those that change nothing.
        ("git **", ["-c", "core.pager=touch PWNED", "log"], False),
        ("git **", ["--exec-path=./evil", "status"], False),
        ("git **", ["-C", "/tmp/planted", "status"], False),
        ("git **", ["--no-pager", "log"], True),
        ("git -c * log", ["-c", "core.pager=x", "log"], True),  # spelled out by the user
    ],
)
def test_a_glob_standing_for_the_subcommand_matches_only_builtins(pattern, args, allowed):
    assert Rule(Decision.ALLOW, command=pattern).matches(_request("git", args)) is allowed
    assert Rule(Decision.ASK, command=pattern).matches(_request("git", args)) is allowed


def test_a_reject_rule_still_matches_every_subcommand():
    rule = Rule(Decision.REJECT, command="git *")
    assert rule.matches(_request("git", ["x/../../usr/bin/make"]))


def test_the_subcommand_is_found_after_gits_own_options():
    assert git_subcommand(["git", "status"]) == 1
    assert git_subcommand(["GIT_DIR=x", "/usr/bin/git", "-C", "d", "-c", "a=b", "log"]) == 6
    assert git_subcommand(["git", "--git-dir=x", "--no-pager", "diff"]) == 3
    assert git_subcommand(["git", "-C"]) is None
    assert git_subcommand(["make", "all"]) is None
    assert {"status", "log", "diff", "commit"} <= git_builtins()
    assert "lfs" not in git_builtins()
