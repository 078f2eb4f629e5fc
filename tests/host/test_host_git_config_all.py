"""Every repository's configuration, every word of a command, every key that runs one, fail closed.

Real ``git`` repositories, the hostile agent over real pipes against the
real ``acphost --yolo``/``--write``, and a real git command afterwards
showing that nothing of the agent's ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acphost.host import ProtectedPaths
from tests.host.test_host_git_config import git, repo, write
from tests.host.test_host_hostile_review import HOSTILE, denied, run_hostile


def marker_script(marker):
    return f"#!/bin/sh\ntouch {marker}\n"


def test_a_nested_repository_protects_what_it_names_outside_itself(tmp_path):
    """``ws/app`` sets ``core.hooksPath ../shared-hooks``: ``ws/shared-hooks/pre-commit``
    is refused even with ``--yolo``, and ``git -C app commit`` runs nothing."""
    ws = repo(tmp_path / "ws")
    app = repo(ws / "app")
    git(app, "config", "core.hooksPath", "../shared-hooks")
    (ws / "shared-hooks").mkdir()
    marker = tmp_path / "PWNED"
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/shared-hooks/pre-commit", marker_script(marker)),
        write("$CWD/shared-notes.txt", "fine"),
    ], "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    (app / "f").write_text("x")
    git(app, "add", "f")
    git(app, "commit", "-q", "-m", "user's commit")
    assert not marker.exists()


def test_a_repository_created_during_the_run_is_found(tmp_path):
    """A command the agent runs creates a repository whose hooks are elsewhere; the next
    write there is refused (the walk follows new ``.git`` entries)."""
    ws = tmp_path / "ws"
    (ws / "deep" / "er").mkdir(parents=True)
    assert ProtectedPaths([os.path.realpath(ws)]).area(f"{os.path.realpath(ws)}/x") is None
    script = (
        "git init -q deep/er/late && git -C deep/er/late config core.hooksPath ../../../late-hooks"
    )
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/late-hooks/pre-commit", "before"),
        ["terminal/create", {"sessionId": "$SID", "command": "sh", "args": ["-c", script],
                             "cwd": "$CWD"}],
        ["terminal/wait_for_exit", {"sessionId": "$SID", "terminalId": "$TERMINAL"}],
        write("$CWD/late-hooks/pre-commit"),
    ], "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [False, False, False, True], answers
    assert answers[2]["result"]["exitCode"] == 0
    assert (ws / "late-hooks" / "pre-commit").read_text() == "before"


@pytest.mark.parametrize(
    ("key", "value", "target", "free"),
    [
        # A script handed to an interpreter, no "/" in its name.
        ("diff.pic.textconv", "python3 conv.py", "conv.py", "conv2.py"),
        # Glued to shell syntax inside a function.
        ("alias.fmt", "!f() { ./tools/fmt.sh; }; f", "tools/fmt.sh", "tools/other.sh"),
        ("core.pager", "sh pager.sh", "pager.sh", "pager.txt"),
        # An option's value after "=".
        ("core.sshCommand", "ssh -oProxyCommand=./x.sh", "x.sh", "y.sh"),
        # A folder moved to with cd: the words after it are in it, the folder itself is not.
        ("alias.run", "!cd tools && ./run.sh", "tools/run.sh", "tools/notes.txt"),
        ("alias.ev", "!sh -c 'PATH=bin:$PATH tool'", "bin/tool", "lib/tool"),
    ],
)
def test_every_word_of_a_command_is_a_path(tmp_path, key, value, target, free):
    ws = repo(tmp_path / "ws")
    git(ws, "config", key, value)
    answers = run_hostile(tmp_path, ws, [write(f"$CWD/{target}"), write(f"$CWD/{free}")],
                          "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    assert not (ws / target).exists()


def test_an_interpreted_textconv_and_an_alias_never_run_the_agent_s_file(tmp_path):
    """Two hostile runs: ``python3 conv.py`` on ``git diff``, ``./tools/fmt.sh``
    inside a function alias on ``git fmt``."""
    ws = repo(tmp_path / "ws")
    marker = tmp_path / "PWNED"
    git(ws, "config", "diff.pic.textconv", "python3 conv.py")
    git(ws, "config", "alias.fmt", "!f() { sh ./tools/fmt.sh; }; f")
    (ws / ".gitattributes").write_text("*.pic diff=pic\n")
    (ws / "a.pic").write_text("one\n")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "one")
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/conv.py", f"open({str(marker)!r}, 'w')\n"),
        write("$CWD/tools/fmt.sh", marker_script(marker)),
        write("$CWD/a.pic", "two\n"),
    ], "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, True, False], answers
    subprocess.run(["git", "-C", str(ws), "diff"], capture_output=True, check=False)
    subprocess.run(["git", "-C", str(ws), "fmt"], capture_output=True, check=False)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("key", "value", "target"),
    [
        ("remote.origin.uploadpack", "./up.sh", "up.sh"),
        ("remote.origin.receivepack", "./rp.sh", "rp.sh"),
        ("submodule.x.update", "!./u.sh", "u.sh"),
        ("core.alternateRefsCommand", "./alt.sh", "alt.sh"),
        ("trailer.sign.command", "./trailer.sh", "trailer.sh"),
        ("trailer.sign.cmd", "./trailer.sh", "trailer.sh"),
        ("sendemail.sendmailCmd", "./sm.sh", "sm.sh"),
        ("sendemail.work.toCmd", "./to.sh", "to.sh"),
        ("guitool.x.cmd", "./g.sh", "g.sh"),
        ("tar.tgz.command", "./gz.sh", "gz.sh"),
        ("imap.tunnel", "./tunnel.sh", "tunnel.sh"),
        ("remote.origin.url", "ext::sh ./ext.sh", "ext.sh"),
        ("url.ext::./base.sh %S.insteadOf", "origin", "base.sh"),
        ("init.templateDir", "tmpl", "tmpl/hooks/post-checkout"),
        ("core.editor", "ed.sh", "ed.sh"),
        ("credential.helper", "!./cred.sh", "cred.sh"),
    ],
)
def test_every_key_that_runs_a_command_is_read(tmp_path, key, value, target):
    ws = repo(tmp_path / "ws")
    git(ws, "config", key, value)
    answers = run_hostile(tmp_path, ws, [write(f"$CWD/{target}"), write("$CWD/README")],
                          "--write")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers


def test_an_upload_pack_the_agent_would_write_never_runs_on_fetch(tmp_path):
    origin = repo(tmp_path / "origin")
    git(origin, "commit", "-q", "--allow-empty", "-m", "one")
    ws = repo(tmp_path / "ws")
    git(ws, "remote", "add", "origin", str(origin))
    git(ws, "config", "remote.origin.uploadpack", "./up.sh")
    marker = tmp_path / "PWNED"
    answers = run_hostile(tmp_path, ws, [write("$CWD/up.sh", marker_script(marker))], "--write")
    assert denied(answers[0]), answers
    subprocess.run(["git", "-C", str(ws), "fetch", "-q", "origin"], capture_output=True,
                   check=False)  # fmt: skip
    assert not marker.exists()


def run_stderr(tmp_path, ws, steps, *flags, env):
    """Like run_hostile, but also the host's stderr."""
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "-o", "simple", *flags,
         "--agent-command", f"{sys.executable} {HOSTILE}", "go"],
        cwd=ws, capture_output=True, text=True, timeout=60,
        env={**os.environ, "HOSTILE_STEPS": json.dumps(steps), "ACPHOST_SETTINGS": "",
             "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "ACPHOST_NO_HISTORY": "1", **env},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr


def test_a_configuration_git_cannot_read_fails_closed(tmp_path):
    """The user's global configuration is malformed (the agent cannot write it): git
    cannot say where the hooks are, so every write in the repository is refused and the
    host says why once; the user's commit after fixing it runs nothing of the agent's."""
    ws = repo(tmp_path / "ws")
    git(ws, "config", "core.hooksPath", "hooks")
    bad = tmp_path / "bad.gitconfig"
    bad.write_text("[core\n")
    marker = tmp_path / "PWNED"
    answers, stderr = run_stderr(tmp_path, ws, [
        write("$CWD/hooks/pre-commit", marker_script(marker)),
        write("$CWD/src.txt", "x"),
    ], "--yolo", env={"GIT_CONFIG_GLOBAL": str(bad)})  # fmt: skip
    assert [denied(a) for a in answers] == [True, True], answers
    said = [line for line in stderr.splitlines() if "bad config" in line]
    assert len(said) == 1 and "refused" in said[0], stderr
    (ws / "f").write_text("x")
    git(ws, "add", "f")
    git(ws, "commit", "-q", "-m", "after the fix")
    assert not marker.exists()


def test_a_nested_repository_git_cannot_read_refuses_writes_outside_it(tmp_path):
    """``ws/app``'s configuration is malformed: it may name ``../shared-hooks``, so a write
    anywhere in the workspace is refused."""
    ws = repo(tmp_path / "ws")
    app = repo(ws / "app")
    with (app / ".git" / "config").open("a") as config:
        config.write("[core]\n\thooksPath = ../shared-hooks\n[broken\n")
    answers, stderr = run_stderr(tmp_path, ws, [
        write("$CWD/shared-hooks/pre-commit"),
        write("$CWD/notes.txt", "x"),
    ], "--yolo", env={})  # fmt: skip
    assert [denied(a) for a in answers] == [True, True], answers
    assert len([line for line in stderr.splitlines() if "bad config" in line]) == 1, stderr


def test_without_git_a_repository_fails_closed_and_a_plain_folder_does_not(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    ws = repo(tmp_path / "ws")
    plain = tmp_path / "plain"
    plain.mkdir()
    steps = [write("$CWD/x.txt", "x")]
    env = {"PATH": str(empty)}
    answers, stderr = run_stderr(tmp_path, ws, steps, "--yolo", env=env)
    assert denied(answers[0]) and "git is not installed" in stderr, stderr
    answers, stderr = run_stderr(tmp_path, plain, steps, "--yolo", env=env)
    assert not denied(answers[0]) and (plain / "x.txt").exists()


def test_git_taking_too_long_fails_closed(tmp_path, monkeypatch):
    from acphost.host import _gitconfig

    ws = repo(tmp_path / "ws")
    real = os.path.realpath(ws)
    monkeypatch.setattr(_gitconfig, "_TIMEOUT", 1e-6)
    assert ProtectedPaths([real]).area(f"{real}/hooks/pre-commit") == real


def test_the_walk_forgets_a_removed_repository_and_is_bounded(tmp_path, monkeypatch, caplog):
    import shutil

    from acphost.host import _gitrepos

    ws = tmp_path / "ws"
    for name in ("a", "b", "c"):
        (ws / name / "deeper").mkdir(parents=True)
    real = os.path.realpath(ws)
    app = repo(ws / "a" / "deeper" / "app")
    git(app, "config", "core.hooksPath", "../../../hooks")
    protect = ProtectedPaths([real])
    assert protect.area(f"{real}/hooks/pre-commit") == f"{real}/hooks"
    shutil.rmtree(app)
    assert protect.area(f"{real}/hooks/pre-commit") is None
    # Past the bound the walk stops and says so once; a repository on the way
    # down to the written path is still asked.
    monkeypatch.setattr(_gitrepos, "_MAX_FOLDERS", 2)
    monkeypatch.setattr(_gitrepos, "_walks", {})
    late = repo(ws / "c" / "deeper" / "late")
    git(late, "config", "core.hooksPath", "hooks2")
    with caplog.at_level("WARNING", "acphost.host.protect"):
        assert protect.area(f"{real}/c/deeper/late/hooks2/x") == f"{real}/c/deeper/late/hooks2"
        protect.area(f"{real}/c/y")
    assert len([r for r in caplog.records if "more than 2 folders" in r.getMessage()]) == 1


def test_a_worktree_outside_the_workspace_has_its_configuration_read(tmp_path):
    """The workspace's repository has a worktree elsewhere whose own configuration
    (``config.worktree``) puts the hooks in the workspace."""
    ws = repo(tmp_path / "ws")
    git(ws, "commit", "-q", "--allow-empty", "-m", "one")
    outside = tmp_path / "elsewhere"
    git(ws, "worktree", "add", "-q", str(outside))
    git(ws, "config", "extensions.worktreeConfig", "true")
    hooks = f"{os.path.realpath(ws)}/wt-hooks"
    git(outside, "config", "--worktree", "core.hooksPath", hooks)
    marker = tmp_path / "PWNED"
    answers = run_hostile(tmp_path, ws, [
        write("$CWD/wt-hooks/pre-commit", marker_script(marker)),
        write("$CWD/wt-notes.txt", "x"),
    ], "--yolo")  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    git(outside, "commit", "-q", "--allow-empty", "-m", "user's commit")
    assert not marker.exists()


def test_what_git_takes_for_no_repository_refuses_nothing(tmp_path):
    """A stray empty ``.git`` folder, a ``.git`` file naming nothing and a lone ``HEAD``
    are no repositories to git: nothing of theirs runs, so nothing else is refused."""
    ws = tmp_path / "ws"
    (ws / "stray" / ".git").mkdir(parents=True)
    (ws / "broken").mkdir()
    (ws / "broken" / ".git").write_text("gitdir: ../nowhere\n")
    (ws / "lone").mkdir()
    (ws / "lone" / "HEAD").write_text("ref: refs/heads/main\n")
    answers = run_hostile(tmp_path, ws, [write("$CWD/notes.txt", "x")], "--yolo")
    assert not denied(answers[0]), answers
