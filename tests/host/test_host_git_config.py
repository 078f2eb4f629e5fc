"""Protected paths come from git's effective configuration, not from the name ``.git`` alone.

``core.hooksPath = .githooks`` makes ``.githooks/pre-commit`` run on the
user's next commit; ``core.fsmonitor`` and other command keys may name a
script in the working tree; an ``include.path`` target (existing or not) is
configuration; a nested repository has its own. Real ``git`` repositories,
the hostile agent over real pipes against the real ``acphost --write``, and
a real ``git commit`` to show what an accepted write would have done.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from acphost.host import ProtectedPaths
from tests.host.test_host_hostile_review import denied, run_hostile


def git(ws, *args):
    return subprocess.run(
        ["git", "-C", str(ws), *args], check=True, capture_output=True, text=True
    ).stdout


def repo(path):
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    git(path, "config", "user.email", "t@example.invalid")
    git(path, "config", "user.name", "t")
    return path


def write(path, content="#!/bin/sh\ntouch PWNED\n"):
    return ["fs/write_text_file", {"sessionId": "$SID", "path": path, "content": content}]


def test_a_hooks_path_is_protected_and_its_hook_never_runs(tmp_path):
    """With ``core.hooksPath=.githooks``, ``--write`` refuses ``.githooks/pre-commit``;
    the user's next ``git commit`` runs nothing of the agent's."""
    ws = repo(tmp_path / "ws")
    git(ws, "config", "core.hooksPath", ".githooks")
    (ws / ".githooks").mkdir()
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/.githooks/pre-commit"),
        write("$CWD/.githooks/post-commit"),
        write("$CWD/src/ok.txt", "fine"),
    ], "--write")  # fmt: skip
    assert [denied(a) for a in answers] == [True, True, False]
    assert (ws / "src" / "ok.txt").read_text() == "fine"
    git(ws, "add", "src/ok.txt")
    git(ws, "commit", "-q", "-m", "next commit")
    assert not (ws / "PWNED").exists()


@pytest.mark.parametrize(
    ("key", "value", "target"),
    [
        ("core.fsmonitor", "./tools/fsmon.sh", "tools/fsmon.sh"),
        ("include.path", "../shared.gitconfig", "shared.gitconfig"),  # not there yet
        ("includeIf.gitdir:/.path", "../cond.gitconfig", "cond.gitconfig"),
        ("diff.pic.textconv", "sh ./tools/conv.sh", "tools/conv.sh"),
        ("alias.go", "!./tools/go.sh", "tools/go.sh"),
        ("core.hooksPath", ".", "pre-commit"),  # the hooks are in the working tree itself
    ],
)
def test_files_the_configuration_names_are_protected(tmp_path, key, value, target):
    ws = repo(tmp_path / "ws")
    git(ws, "config", key, value)
    answers = run_hostile(tmp_path, ws, [
        write(f"$CWD/{target}"),
        write("$CWD/tools/other.sh"),
        write("$CWD/README"),
    ], "--write")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False, False], answers
    assert not (ws / target).exists()


def test_a_nested_repository_has_its_own_configuration(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    sub = repo(ws / "vendor" / "lib")
    git(sub, "config", "core.hooksPath", "hooks")
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/vendor/lib/hooks/pre-commit"),
        write("$CWD/vendor/lib/src.c", "int x;"),
    ], "--write")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False]


def test_a_change_of_configuration_during_the_run_moves_the_protection(tmp_path):
    """The agent runs an allowed ``git config core.hooksPath hooks2``; the next write
    to ``hooks2/pre-commit`` is refused."""
    ws = repo(tmp_path / "ws")
    policy = tmp_path / "policy.json"
    real = os.path.realpath(ws)
    policy.write_text(json.dumps({"rules": [
        {"kind": "edit", "path": f"{real}/**", "decision": "allow"},
        {"kind": "execute", "command": "git config core.hooksPath hooks2",
         "decision": "allow"},
    ]}))  # fmt: skip
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/hooks2/pre-commit", "before"),
        ["terminal/create", {"sessionId": "$SID", "command": "git",
                             "args": ["config", "core.hooksPath", "hooks2"], "cwd": "$CWD"}],
        ["terminal/wait_for_exit", {"sessionId": "$SID", "terminalId": "$TERMINAL"}],
        write("$CWD/hooks2/pre-commit"),
    ], "--permission-policy", str(policy))  # fmt: skip
    assert [denied(a) for a in answers] == [False, False, False, True], answers
    assert answers[2]["result"]["exitCode"] == 0
    assert (ws / "hooks2" / "pre-commit").read_text() == "before"


def test_worktree_and_separate_git_directories_are_protected(tmp_path):
    """A ``.git`` file points elsewhere in the workspace: that git directory is protected."""
    ws = tmp_path / "ws"
    ws.mkdir()
    main = repo(ws / "main")
    (main / "f").write_text("x")
    git(main, "add", "f")
    git(main, "commit", "-q", "-m", "one")
    git(main, "worktree", "add", "-q", str(ws / "wt"))
    sep = ws / "sep"
    subprocess.run(["git", "init", "-q", f"--separate-git-dir={ws / 'store'}", str(sep)],
                   check=True)  # fmt: skip
    protect = ProtectedPaths([os.path.realpath(ws)])
    real = os.path.realpath(ws)
    assert protect.area(f"{real}/main/.git/worktrees/wt/config") is not None
    assert protect.area(f"{real}/store/hooks/pre-commit") is not None
    assert protect.area(f"{real}/wt/f") is None and protect.area(f"{real}/sep/f") is None


def test_the_answer_is_cached_until_a_configuration_file_changes(tmp_path, monkeypatch):
    from acphost.host import _gitconfig

    ws = repo(tmp_path / "ws")
    real = os.path.realpath(ws)
    calls = []
    original = _gitconfig._git
    monkeypatch.setattr(_gitconfig, "_git", lambda *a, **k: calls.append(a) or original(*a, **k))
    protect = ProtectedPaths([real])
    assert protect.area(f"{real}/h/pre-commit") is None
    asked = len(calls)
    assert protect.area(f"{real}/h/pre-commit") is None
    assert len(calls) == asked  # nothing changed: not asked again
    git(ws, "config", "core.hooksPath", "h")
    assert protect.area(f"{real}/h/pre-commit") == f"{real}/h"
    # An include target that appears later is configuration too.
    git(ws, "config", "include.path", "../extra.gitconfig")
    assert protect.area(f"{real}/extra.gitconfig") == f"{real}/extra.gitconfig"
    (ws / "extra.gitconfig").write_text("[core]\n\tfsmonitor = ./mon.sh\n")
    assert protect.area(f"{real}/mon.sh") == f"{real}/mon.sh"
