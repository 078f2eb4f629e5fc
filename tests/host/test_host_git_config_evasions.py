"""Ways around the protected paths git's configuration names, each closed.

A repository git refuses over its owner, command words that are shell
expansions or globs, aliases that run programs without ``!``, the walk's
bound, includes whose condition is not met yet, git-lfs's commands. Real
``git`` repositories, the hostile agent over real pipes against the real
``acphost --yolo``.
"""

from __future__ import annotations

import subprocess

from tests.host.test_host_git_config import git, repo, write
from tests.host.test_host_hostile_review import denied, run_hostile


def test_a_repository_owned_by_another_user_still_protects_what_it_names(tmp_path):
    """git refuses a repository owned by someone else (safe.directory); its owner's
    ``git status`` still runs ``core.fsmonitor``, so its script is refused."""
    ws = repo(tmp_path / "ws")
    git(ws, "config", "core.fsmonitor", "sh tools/fsm.sh")
    marker = tmp_path / "PWNED"
    # git's own switch for "this repository is owned by another user".
    other_owner = {"GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/tools/fsm.sh", f"#!/bin/sh\ntouch {marker}\n"),
        write("$CWD/tools/notes.txt", "fine"),
    ], "--yolo", env=other_owner)  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    subprocess.run(["git", "-C", str(ws), "status"], capture_output=True, check=False)
    assert not marker.exists()


def test_a_repository_git_refuses_for_another_reason_fails_closed(tmp_path):
    """An unsupported repository format is no "not a repository": every write of the
    workspace is refused (its configuration is unknown)."""
    ws = repo(tmp_path / "ws")
    git(ws, "config", "core.repositoryformatversion", "99")
    answers = run_hostile(tmp_path, ws, [write("$CWD/notes.txt", "x")], "--yolo")
    assert [denied(a) for a in answers] == [True], answers
