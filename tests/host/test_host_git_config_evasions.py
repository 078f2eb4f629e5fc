"""Ways around the protected paths git's configuration names, each closed.

A repository git refuses over its owner, command words that are shell
expansions or globs, aliases that run programs without ``!``, the walk's
bound, includes whose condition is not met yet, git-lfs's commands. Real
``git`` repositories, the hostile agent over real pipes against the real
``acphost --yolo``.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from acphost.host import ProtectedPaths
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


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_repository_chowned_to_another_user_still_protects_what_it_names(tmp_path):
    """A hostile run: acphost as root, the repository owned by ``nobody``."""
    import pwd

    ws = repo(tmp_path / "ws")
    git(ws, "config", "core.fsmonitor", "sh tools/fsm.sh")
    nobody = pwd.getpwnam("nobody")
    for folder, subs, files in os.walk(ws):
        for name in [folder, *(os.path.join(folder, n) for n in subs + files)]:
            os.lchown(name, nobody.pw_uid, nobody.pw_gid)
    answers = run_hostile(tmp_path, ws, [write("$CWD/tools/fsm.sh")], "--yolo")
    assert [denied(a) for a in answers] == [True], answers


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
    """A hostile run: ``filter.fmt.clean`` through ``$(git rev-parse --show-toplevel)``
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
    """A hostile run: ``alias.dt = difftool -y -x tools/d.sh`` on the user's ``git dt``."""
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


def test_shallow_repositories_are_found_before_a_deep_tree_uses_the_bound(tmp_path, monkeypatch):
    """Ten projects beside ten trees each larger than the bound: the walk is breadth
    first, so every project's configuration is read whatever order the folders list in."""
    from acphost.host import _gitrepos

    ws = tmp_path / "ws"
    for n in range(10):
        for k in range(30):
            (ws / f"big{n}" / f"p{k}").mkdir(parents=True)
        app = repo(ws / f"app{n}")
        git(app, "config", "core.hooksPath", f"../hooks{n}")
    monkeypatch.setattr(_gitrepos, "_MAX_FOLDERS", 25)
    monkeypatch.setattr(_gitrepos, "_walks", {})
    real = os.path.realpath(ws)
    protect = ProtectedPaths([real])
    for n in range(10):
        assert protect.area(f"{real}/hooks{n}/pre-commit") == f"{real}/hooks{n}"


def test_past_the_bound_the_folders_not_walked_are_refused(tmp_path, monkeypatch, caplog):
    """A repository may hide in a folder the walk never reached: writes there are
    refused, said once with the way out; the folders walked stay writable."""
    from acphost.host import _gitrepos

    ws = repo(tmp_path / "ws")
    for k in range(30):
        (ws / "node_modules" / f"p{k}" / "lib").mkdir(parents=True)
    monkeypatch.setattr(_gitrepos, "_MAX_FOLDERS", 10)
    monkeypatch.setattr(_gitrepos, "_walks", {})
    real = os.path.realpath(ws)
    protect = ProtectedPaths([real])
    with caplog.at_level("WARNING", "acphost.host.protect"):
        assert protect.area(f"{real}/node_modules/p3/lib/index.js") is not None
        assert protect.area(f"{real}/node_modules/p7/lib/index.js") is not None
        assert protect.area(f"{real}/main.py") is None
    said = [r.getMessage() for r in caplog.records if "more than 10 folders" in r.getMessage()]
    assert len(said) == 1 and "a rule naming the folder" in said[0], said
    # Room again (the big tree is gone): the rest is walked and writable.
    shutil.rmtree(ws / "node_modules")
    (ws / "lib").mkdir()
    assert protect.area(f"{real}/lib/index.js") is None


def test_a_repository_beside_a_large_node_modules_is_asked(tmp_path):
    """In a real run past the real bound: a project listed beside a
    ``node_modules`` of more folders than the walk takes still has its hooks protected,
    the sources stay writable and a write deep in the unwalked tree is refused."""
    ws = repo(tmp_path / "ws")
    modules = ws / "node_modules"
    for k in range(20_100):
        os.makedirs(modules / f"p{k}")
    (modules / "p1" / "lib").mkdir()
    app = repo(ws / "zapp")
    git(app, "config", "core.hooksPath", "../hooks")
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/hooks/pre-commit"),
        write("$CWD/src/main.py", "print()\n"),
        write("$CWD/node_modules/p1/lib/index.js", "x"),
    ], "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False, True], answers


def test_an_inactive_conditional_include_protects_what_it_names(tmp_path):
    """``includeIf.onbranch:release.path`` names the hooks only on branch ``release``;
    they are protected before the switch, through nested includes and a cycle, and the
    user's commit on ``release`` runs nothing of the agent's."""
    ws = repo(tmp_path / "ws")
    git(ws, "commit", "-q", "--allow-empty", "-m", "one")
    gitdir = ws / ".git"
    (gitdir / "release.inc").write_text(
        "[core]\n\thooksPath = .relhooks\n[include]\n\tpath = more.inc\n"
    )
    (gitdir / "more.inc").write_text(
        '[alias]\n\tm = !sh more.sh\n[includeIf "onbranch:nope"]\n\tpath = release.inc\n'
    )
    git(ws, "config", "includeIf.onbranch:release.path", "release.inc")
    (ws / ".relhooks").mkdir()
    marker = tmp_path / "PWNED"
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/.relhooks/pre-commit", f"#!/bin/sh\ntouch {marker}\n"),
        write("$CWD/more.sh"),
        write("$CWD/notes.txt", "x"),
    ], "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, True, False], answers
    git(ws, "checkout", "-q", "-b", "release")
    git(ws, "commit", "-q", "--allow-empty", "-m", "user's commit")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("key", "value", "target"),
    [
        ("lfs.customtransfer.mine.path", "tools/transfer.sh", "tools/transfer.sh"),
        ("lfs.extension.foo.clean", "sh lfs-clean.sh %f", "lfs-clean.sh"),
        ("lfs.extension.foo.smudge", "./lfs-smudge %f", "lfs-smudge"),
    ],
)
def test_git_lfs_commands_are_protected(tmp_path, key, value, target):
    ws = repo(tmp_path / "ws")
    git(ws, "config", key, value)
    answers = run_hostile(tmp_path, ws, [write(f"$CWD/{target}"), write("$CWD/lfs-notes.txt")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers


def test_an_alias_s_git_subcommand_is_no_path(tmp_path):
    """``alias.d = diff``: a folder named ``diff`` stays writable; the program a global
    option names (``-c core.pager=./p.sh``) does not."""
    ws = repo(tmp_path / "ws")
    git(ws, "config", "alias.d", "diff --stat")
    git(ws, "config", "alias.p", "-c core.pager=./p.sh log")
    answers = run_hostile(tmp_path, ws, [write("$CWD/diff/x.txt", "x"), write("$CWD/p.sh")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [False, True], answers
