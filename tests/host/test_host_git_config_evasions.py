"""Ways around the protected paths git's configuration names, each closed.

A repository git refuses over its owner, command words that are shell
expansions or globs, aliases that run programs without ``!``, the walk's
bound, includes whose condition is not met yet, git-lfs's commands. Real
``git`` repositories, the hostile agent over real pipes against the real
``acphost --yolo``.
"""

from __future__ import annotations

import subprocess

import pytest

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


@pytest.mark.parametrize(
    ("key", "value", "target", "free"),
    [
        # A command substitution: every tools/clean.sh of the workspace.
        ("filter.fmt.clean", 'sh "$(git rev-parse --show-toplevel)/tools/clean.sh"',
         "tools/clean.sh", "tools/other.sh"),
        ("filter.fmt.clean", 'sh "$(git rev-parse --show-toplevel)/tools/clean.sh"',
         "sub/tools/clean.sh", "sub/clean.sh"),
        ("alias.t", '!sh "$PWD/t.sh"', "t.sh", "u.sh"),
        ("alias.t", "!sh ${TOP}/deep/t.sh", "a/deep/t.sh", "a/t.sh"),
        # A glob: the folder holding it.
        ("alias.checks", '!for f in checks/*.sh; do sh "$f"; done', "checks/x.sh", "x.sh"),
        ("alias.top", "!for f in *.sh; do sh $f; done", "x.sh", "x.txt"),
        ("core.editor", "sh `pwd`/ed.sh", "ed.sh", "ed.txt"),
        ("core.pager", "sh ~+/pg.sh", "pg.sh", "pg.txt"),
        ("core.pager", "sh tools/{a,b}.sh", "tools/a.sh", "a.sh"),
        ("core.pager", "sh tools/$NAME.sh", "tools/z.sh", "z.sh"),
    ],
)  # fmt: skip
def test_expanded_and_globbed_words_protect_what_they_may_become(
    tmp_path, key, value, target, free
):
    ws = repo(tmp_path / "ws")
    git(ws, "config", key, value)
    answers = run_hostile(tmp_path, ws, [write(f"$CWD/{target}"), write(f"$CWD/{free}")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    assert not (ws / target).exists()


def test_a_word_that_is_only_an_expansion_names_nothing(tmp_path):
    """``sh "$X"`` could be any file: nothing can be located, every write stays allowed."""
    ws = repo(tmp_path / "ws")
    git(ws, "config", "alias.x", '!sh "$X"; sh $(cat list)')
    answers = run_hostile(tmp_path, ws, [write("$CWD/a.sh"), write("$CWD/list", "a.sh")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [False, True], answers


def test_a_substituted_filter_never_runs_the_agent_s_script(tmp_path):
    """The reviewer's run: ``filter.fmt.clean`` through ``$(git rev-parse --show-toplevel)``
    runs on the user's ``git add``."""
    ws = repo(tmp_path / "ws")
    marker = tmp_path / "PWNED"
    git(ws, "config", "filter.fmt.clean", 'sh "$(git rev-parse --show-toplevel)/tools/clean.sh"')
    (ws / ".gitattributes").write_text("*.c filter=fmt\n")
    (ws / "a.c").write_text("int x;\n")
    answers = run_hostile(tmp_path, ws, [write("$CWD/tools/clean.sh", f"touch {marker}; cat\n")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True], answers
    subprocess.run(["git", "-C", str(ws), "add", "a.c"], capture_output=True, check=False)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("value", "target"),
    [
        ("rebase -x 'sh tools/check.sh'", "tools/check.sh"),
        ("difftool -y -x tools/d.sh", "tools/d.sh"),
        ("grep -Otools/open.sh", "tools/open.sh"),
        ("bisect run ./bisect.sh", "bisect.sh"),
        ("submodule foreach sh fe.sh", "fe.sh"),
    ],
)
def test_an_alias_without_a_bang_that_runs_a_program_protects_it(tmp_path, value, target):
    ws = repo(tmp_path / "ws")
    git(ws, "config", "alias.x", value)
    answers = run_hostile(tmp_path, ws, [write(f"$CWD/{target}"), write("$CWD/tools/n.txt")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers


def test_a_difftool_alias_never_runs_the_agent_s_program(tmp_path):
    """The reviewer's run: ``alias.dt = difftool -y -x tools/d.sh`` on the user's ``git dt``."""
    ws = repo(tmp_path / "ws")
    marker = tmp_path / "PWNED"
    git(ws, "config", "alias.dt", "difftool -y -x 'sh tools/d.sh'")
    (ws / "a").write_text("1\n")
    git(ws, "add", "a")
    git(ws, "commit", "-q", "-m", "one")
    (ws / "a").write_text("2\n")
    answers = run_hostile(tmp_path, ws, [write("$CWD/tools/d.sh", f"touch {marker}\n")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True], answers
    subprocess.run(["git", "-C", str(ws), "dt"], capture_output=True, check=False, timeout=30)
    assert not marker.exists()
