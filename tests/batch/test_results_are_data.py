"""A results folder is data: whatever it holds, acphost deletes, reads and writes only its own.

Every test runs the real command (a subprocess, the demo agent, real git) on a
results folder crafted as a checkout could ship it or a copy could bring it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from acphost.batch._workdir import WorkDir

from .conftest import FILES, acphost, git, tree

FAST = {"ACPHOST_DEMO_STEP": "0"}


def mark(out: Path) -> Path:
    """Make ``out`` look like a batch's folder (a crafted one can carry the mark too)."""
    out.mkdir(parents=True, exist_ok=True)
    plan = {"format": "acphost-batch", "version": 1, "runs": []}
    (out / "batch.json").write_text(json.dumps(plan))
    return out


def run_batch(ws: Path, out: Path, *prompts: str, extra=(), timeout=120):
    args = ["batch", "-a", "demo", "--workspace", str(ws), "--out", str(out), "--no-history"]
    for prompt in prompts:
        args += ["-p", prompt]
    return acphost([*args, *extra], cwd=ws, env=FAST, timeout=timeout)


def test_a_crafted_workspace_marker_deletes_nothing(git_ws, tmp_path):
    """The folder a checkout ships names the project itself, and a directory elsewhere,
    as a run's leftover workspace: neither is touched (it was the project, .git included)."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious\n")
    run_dir = mark(git_ws / "acphost-batch") / "runs" / "demo--p1--0"
    run_dir.mkdir(parents=True)
    (run_dir / "workspace.json").write_text(json.dumps({"root": "."}))
    other = git_ws / "acphost-batch" / "runs" / "demo--p2--0"
    other.mkdir()
    marker = {"root": str(victim), "git_dir": str(victim), "common_dir": str(tmp_path)}
    (other / "workspace.json").write_text(json.dumps(marker))
    r = acphost(
        ["batch", "-a", "demo", "-p", "echo hi", "-p", "echo ho", "--no-history"],
        cwd=git_ws,
        env=FAST,
    )
    assert r.returncode == 0, r.stderr
    project = {k: v for k, v in tree(git_ws).items() if not k.startswith("acphost-batch/")}
    assert (git_ws / ".git").is_dir() and project == FILES
    assert git(git_ws, "status", "--porcelain", "--untracked-files=no") == ""
    assert (victim / "keep.txt").read_text() == "precious\n"


@pytest.mark.parametrize("note", ["path", "id-in-use", "link", "link-to-id"])
def test_a_crafted_workdir_note_deletes_and_overwrites_nothing(note, plain_ws, tmp_path):
    """``.workdir`` names a directory acphost would take for its own (an old-style path
    of the right shape, or the id of a batch that is still running), or is a link to a
    file: nothing is removed and the file is not written through."""
    out = mark(tmp_path / "out")
    victim_file = tmp_path / "victim.txt"
    victim_file.write_text("precious\n")
    live = None
    victim = Path(tempfile.mkdtemp(prefix="acphost-batch-"))  # the old check's shape
    try:
        (victim / "keep.txt").write_text("precious\n")
        if note == "path":
            (out / ".workdir").write_text(f"{victim}\n")
        elif note == "id-in-use":
            live = WorkDir.make()  # held by this process, as a running batch holds its own
            (Path(live.path) / "keep.txt").write_text("in use\n")
            (out / ".workdir").write_text(f"{live.ident}\n")
        elif note == "link":
            os.symlink(victim_file, out / ".workdir")
        else:  # the id of a directory no batch holds, but through a link: not the folder's own
            live = WorkDir.make()
            os.close(live._fd)
            live._fd = None
            (Path(live.path) / "keep.txt").write_text("in use\n")
            (tmp_path / "id.txt").write_text(live.ident + "\n")
            os.symlink(tmp_path / "id.txt", out / ".workdir")
        r = run_batch(plain_ws, out, "echo hi")
        assert r.returncode == 0, r.stderr
        assert (victim / "keep.txt").read_text() == "precious\n"
        assert victim_file.read_text() == "precious\n"
        if live is not None:
            assert (Path(live.path) / "keep.txt").read_text() == "in use\n"
            assert "a running batch uses it" in r.stderr or "symbolic link" in r.stderr
        if note == "path":
            assert "holds no work directory id acphost wrote" in r.stderr
        assert not (out / ".workdir").exists()  # this batch's own note, gone with its directory
    finally:
        if live is not None:
            live.remove()
        subprocess.run(["rm", "-rf", str(victim)], check=True)


def test_a_killed_batchs_work_directory_is_removed_by_its_id(git_ws, tmp_path):
    """What the note's id names is removed when it is ours: a real directory of this
    user's that no batch holds, with its worktree entries in the repository."""
    out = mark(tmp_path / "out")
    stale = WorkDir.make()
    dest = os.path.join(stale.path, "demo--p1--0")
    git(git_ws, "worktree", "add", "--detach", "-q", dest)
    (out / ".workdir").write_text(stale.ident + "\n")
    stale._fd and os.close(stale._fd)  # the batch that made it died: its lock went with it
    stale._fd = None
    assert len(git(git_ws, "worktree", "list").splitlines()) == 2
    r = run_batch(git_ws, out, "echo hi")
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(stale.path)
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1


def test_planted_links_in_the_results_folder_are_never_written_through(plain_ws, tmp_path):
    out = mark(tmp_path / "out")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "runs").mkdir(parents=True)
    os.symlink(elsewhere, out / "runs" / "demo--p1--0")
    r = run_batch(plain_ws, out, "echo hi")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "runs/demo--p1--0 in the results folder" in r.stderr
    assert "is a symbolic link" in r.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_planted_patch_link_is_refused_and_its_target_kept(plain_ws, tmp_path):
    out = mark(tmp_path / "out")
    run_dir = out / "runs" / "demo--p1--0"
    run_dir.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.symlink(victim, run_dir / "diff.patch")
    r = run_batch(plain_ws, out, "terminal sh -c 'echo x > x.txt'", extra=["--write"])
    assert r.returncode == 1 and "symbolic link" in r.stderr, r.stderr
    assert victim.read_text() == "precious\n"


def test_a_kept_workspace_left_before_is_left_and_the_run_keeps_its_own_beside_it(
    plain_ws, tmp_path
):
    out = mark(tmp_path / "out")
    old = out / "workspaces" / "demo--p1--0"
    old.mkdir(parents=True)
    (old / "mine.txt").write_text("not acphost's\n")
    r = run_batch(plain_ws, out, "echo hi", extra=["--keep-workspaces"])
    assert r.returncode == 0, r.stderr
    assert (old / "mine.txt").read_text() == "not acphost's\n"
    assert "left " in r.stderr and "demo--p1--0.2" in r.stderr
    result = json.loads((out / "runs" / "demo--p1--0" / "result.json").read_text())
    assert result["workspace"] == str(out / "workspaces" / "demo--p1--0.2")


# -- reading back -------------------------------------------------------------------------


@pytest.fixture
def finished(plain_ws, tmp_path):
    """A batch's results folder with one run that changed a file."""
    out = tmp_path / "out"
    r = run_batch(plain_ws, out, "terminal sh -c 'echo x > x.txt'", extra=["--write"])
    assert r.returncode == 0, r.stderr
    return out


def _set_diff(out: Path, value: str) -> None:
    path = out / "runs" / "demo--p1--0" / "result.json"
    data = json.loads(path.read_text())
    data["diff"] = value
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link", "huge"])
def test_batch_report_reads_no_file_outside_the_results_folder(how, finished, tmp_path):
    secret = tmp_path / "id_ed25519"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t\n")
    if how == "absolute":
        _set_diff(finished, str(secret))
    elif how == "dotdot":
        _set_diff(finished, "runs/demo--p1--0/../../../id_ed25519")
    elif how == "link":
        patch = finished / "runs" / "demo--p1--0" / "diff.patch"
        patch.unlink()
        os.symlink(secret, patch)
    else:  # a path of a million characters: the report says so in a bounded line
        _set_diff(finished, "../" * 333_333 + "id_ed25519")
    r = acphost(["batch", "report", str(finished)], cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    for name in ("report.md", "report.html", "report.json"):
        assert "s3cr3t" not in (finished / name).read_text()
    assert "Diff not shown" in (finished / "report.md").read_text()
    assert "Diff not shown" in (finished / "report.html").read_text()
    assert (finished / "report.html").stat().st_size < 100_000


def test_batch_report_does_not_hang_on_a_fifo(finished, tmp_path):
    fifo = finished / "runs" / "demo--p1--0" / "pipe"
    os.mkfifo(fifo)
    _set_diff(finished, "runs/demo--p1--0/pipe")
    r = acphost(["batch", "report", str(finished)], cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "FIFO" in (finished / "report.md").read_text()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_batch_file_that_is_a_link_is_not_read(finished, tmp_path):
    elsewhere = tmp_path / "elsewhere.json"
    plan = json.loads((finished / "batch.json").read_text())
    plan["prompts"][0]["prompt"] = "s3cr3t from elsewhere"
    elsewhere.write_text(json.dumps(plan))
    (finished / "batch.json").unlink()
    os.symlink(elsewhere, finished / "batch.json")
    r = acphost(["batch", "report", str(finished)], cwd=tmp_path, timeout=60)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "symbolic link" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "s3cr3t" not in (finished / "report.md").read_text()


def test_a_run_id_that_is_a_path_is_refused_in_one_line(finished, tmp_path):
    outside = tmp_path / "runs" / "x"
    outside.mkdir(parents=True)
    (outside / "result.json").write_text("{}")
    plan = json.loads((finished / "batch.json").read_text())
    plan["runs"][0]["id"] = "../../runs/x"
    (finished / "batch.json").write_text(json.dumps(plan))
    r = acphost(["batch", "report", str(finished)], cwd=tmp_path, timeout=60)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "is not one acphost makes" in r.stderr and len(r.stderr.strip().splitlines()) == 1


# -- what the patch shows -----------------------------------------------------------------


def _patch(out: Path) -> str:
    return (out / "runs" / "demo--p1--0" / "diff.patch").read_text()


def test_gitattributes_written_by_the_agent_hide_no_change(git_ws, tmp_path):
    """``* -diff`` in a .gitattributes the agent writes made git print "Binary files
    differ" for its code; the patch shows every line, binary decided by content."""
    out = tmp_path / "out"
    script = "printf '* -diff\\n' > .gitattributes; echo x = 2 > hello.py"
    r = run_batch(git_ws, out, f'terminal sh -c "{script}"', extra=["--write"])
    assert r.returncode == 0, r.stderr
    patch = _patch(out)
    assert "+x = 2" in patch and '-print("hello")' in patch
    assert "Binary files" not in patch
    assert "+x = 2" in (out / "report.md").read_text()


def test_a_filter_the_agent_names_runs_no_program_and_hides_nothing(git_ws, tmp_path):
    """A clean filter configured for the repository runs when git compares a work tree;
    an agent that names it for every file in .gitattributes made git run it, and the
    patch showed its output (here nothing) instead of the change."""
    ran = tmp_path / "filter-ran"
    filt = tmp_path / "filter.sh"
    filt.write_text(f"#!/bin/sh\necho ran >> {ran}\ncat >/dev/null\n")
    filt.chmod(0o755)
    git(git_ws, "config", "filter.hide.clean", str(filt))
    git(git_ws, "config", "diff.conv.textconv", str(filt))
    out = tmp_path / "out"
    script = "printf '* filter=hide diff=conv\\n' > .gitattributes; echo changed > hello.py"
    r = run_batch(git_ws, out, f'terminal sh -c "{script}"', extra=["--write"])
    assert r.returncode == 0, r.stderr
    assert not ran.exists()
    assert "+changed" in _patch(out)


def test_a_gitignore_that_ignores_itself_hides_no_added_file(git_ws, tmp_path):
    out = tmp_path / "out"
    script = "printf '*\\n' > .gitignore; echo evil > evil.py"
    r = run_batch(git_ws, out, f'terminal sh -c "{script}"', extra=["--write"])
    assert r.returncode == 0, r.stderr
    patch = _patch(out)
    assert "b/evil.py" in patch and "+evil" in patch and "b/.gitignore" in patch


def test_files_hidden_in_a_git_directory_the_agent_made_are_in_the_patch(git_ws, tmp_path):
    """A worktree's own .git file is not content; a .git directory put in its place is."""
    out = tmp_path / "out"
    script = "rm .git; mkdir .git; echo evil > .git/evil.py"
    r = run_batch(git_ws, out, f'terminal sh -c "{script}"', extra=["--write"])
    assert r.returncode == 0, r.stderr
    assert "b/.git/evil.py" in _patch(out)


def test_ignored_files_stay_out_of_the_patch(git_ws, tmp_path):
    (git_ws / ".gitignore").write_text("build/\n")
    git(git_ws, "add", ".gitignore")
    git(git_ws, "commit", "-qm", "ignore build")
    out = tmp_path / "out"
    script = "mkdir build; echo o > build/out.o; echo new > new.txt"
    r = run_batch(git_ws, out, f'terminal sh -c "{script}"', extra=["--write"])
    assert r.returncode == 0, r.stderr
    patch = _patch(out)
    assert "b/new.txt" in patch and "build/" not in patch


def test_git_config_planted_in_a_copied_workspace_runs_nothing(plain_ws, tmp_path):
    """A plain workspace is compared without git: a .git the agent writes there, with
    an fsmonitor or an external diff, is content, never configuration."""
    ran = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\necho ran >> {ran}\n")
    hook.chmod(0o755)
    config = f"[core]\\n\\tfsmonitor = {hook}\\n[diff]\\n\\texternal = {hook}\\n"
    script = f"mkdir -p .git; printf '{config}' > .git/config; echo changed > hello.py"
    out = tmp_path / "out"
    r = run_batch(plain_ws, out, f'terminal sh -c "{script}"', extra=["--write"])
    assert r.returncode == 0, r.stderr
    assert not ran.exists()
    assert "+changed" in _patch(out)


def test_the_patch_of_a_worktree_applies_to_the_commit(git_ws, tmp_path):
    out = tmp_path / "out"
    script = "echo changed > hello.py; rm README.md; echo n > src/new.py"
    r = run_batch(git_ws, out, f'terminal sh -c "{script}"', extra=["--write"])
    assert r.returncode == 0, r.stderr
    subprocess.run(
        ["git", "apply", "--index", str(out / "runs" / "demo--p1--0" / "diff.patch")],
        cwd=git_ws,
        check=True,
    )
    assert (git_ws / "hello.py").read_text() == "changed\n" and not (git_ws / "README.md").exists()
