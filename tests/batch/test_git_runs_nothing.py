"""What a repository's configuration names, acphost batch does not run; an agent's rules hide nothing.

Real ``acphost batch`` processes on real git repositories, with the demo agent
running shell commands in its workspace (as an agent can).
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import acphost, git

FAST = {"ACPHOST_DEMO_STEP": "0"}


def run_batch(ws: Path, out: Path, *prompts: str, extra=()):
    args = ["batch", "-a", "demo", "--workspace", str(ws), "--out", str(out), "--no-history"]
    for prompt in prompts:
        args += ["-p", prompt]
    return acphost([*args, "--write", "--jobs", "1", *extra], cwd=ws, env=FAST)


def logger(tmp_path: Path, name: str, passthrough: bool = False) -> tuple[Path, Path]:
    """A program that notes each time it runs (a filter passes its input through)."""
    log = tmp_path / f"{name}.log"
    script = tmp_path / f"{name}.sh"
    body = "cat\n" if passthrough else "exit 1\n"
    script.write_text(f"#!/bin/sh\necho ran >> {log}\n{body}")
    script.chmod(0o755)
    return script, log


def changed(out: Path, run_id: str) -> list[str]:
    result = json.loads((out / "runs" / run_id / "result.json").read_text())
    return [f["path"] for f in result["changed_files"]]


def test_the_repositorys_fsmonitor_never_runs(git_ws, tmp_path):
    """A repository (copied with its .git) that names an fsmonitor program: git status,
    the checkouts and the listing after the run ran it; now none does."""
    monitor, log = logger(tmp_path, "fsmonitor")
    git(git_ws, "config", "core.fsmonitor", str(monitor))
    out = tmp_path / "out"
    r = run_batch(git_ws, out, "terminal sh -c 'echo new > new.txt'")
    assert r.returncode == 0, r.stderr
    assert not log.exists()
    assert changed(out, "demo--p1--0") == ["new.txt"]


def test_a_smudge_filter_runs_once_for_the_baseline_never_per_run(git_ws, tmp_path):
    """The user's own filters (git-lfs) apply to the checkout every run starts from,
    made once before any agent runs; the runs' worktrees are filled from it."""
    smudge, log = logger(tmp_path, "smudge", passthrough=True)
    git(git_ws, "config", "filter.x.smudge", str(smudge))
    git(git_ws, "config", "filter.x.clean", "cat")
    (git_ws / ".gitattributes").write_text("*.py filter=x\n")
    git(git_ws, "add", ".gitattributes")
    git(git_ws, "commit", "-qm", "filter")
    log.unlink(missing_ok=True)  # what git add ran here is not acphost's
    out = tmp_path / "out"
    r = run_batch(git_ws, out, "echo a", "echo b", "echo c")
    assert r.returncode == 0, r.stderr
    assert log.read_text().count("ran") == len(list(git_ws.glob("**/*.py")))  # one checkout


def test_git_configuration_an_agent_writes_runs_nothing_later(git_ws, tmp_path):
    """Run 1's agent names a smudge filter for every file (shared config and
    info/attributes) and an fsmonitor: the later runs' worktrees and every listing
    after a run are made without running either."""
    smudge, smudge_log = logger(tmp_path, "smudge", passthrough=True)
    monitor, monitor_log = logger(tmp_path, "fsmonitor")
    script = (
        f"git config filter.x.smudge {smudge}; git config filter.x.process {smudge}; "
        'echo "* filter=x" >> "$(git rev-parse --git-common-dir)/info/attributes"; '
        f"echo changed > hello.py; git config core.fsmonitor {monitor}"
    )
    out = tmp_path / "out"
    # One at a time: run 2's workspace is made while run 1 runs, run 3's after it.
    r = run_batch(
        git_ws, out, f"terminal sh -c '{script}'", "echo b", "terminal sh -c 'echo c > c.txt'"
    )
    assert r.returncode == 0, r.stderr
    assert not smudge_log.exists()
    assert not monitor_log.exists()
    assert changed(out, "demo--p1--0") == ["hello.py"]
    assert changed(out, "demo--p3--0") == ["c.txt"]


def test_a_rule_the_agent_adds_to_info_exclude_hides_nothing(git_ws, tmp_path):
    """The agent appends its file to the repository's shared info/exclude: the file is
    still listed and in the patch; the user's own rule there still leaves theirs out."""
    common = Path(git(git_ws, "rev-parse", "--git-common-dir").strip())
    exclude = (git_ws / common if not common.is_absolute() else common) / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    exclude.write_text("*.log\n")
    script = (
        'echo backdoor.py >> "$(git rev-parse --git-common-dir)/info/exclude"; '
        "echo evil > backdoor.py; echo fix >> README.md; echo noise > run.log"
    )
    out = tmp_path / "out"
    r = run_batch(git_ws, out, f"terminal sh -c '{script}'")
    assert r.returncode == 0, r.stderr
    assert changed(out, "demo--p1--0") == ["README.md", "backdoor.py"]
    patch = (out / "runs" / "demo--p1--0" / "diff.patch").read_text()
    assert "+++ b/backdoor.py" in patch and "run.log" not in patch


def test_a_rule_the_agent_adds_to_the_users_excludes_file_hides_nothing(git_ws, tmp_path):
    """core.excludesFile (here git's default one, under XDG_CONFIG_HOME) as it was when
    the batch started applies; what the agent appends to it does not."""
    ignore = tmp_path / "xdg-config" / "git" / "ignore"  # conftest's XDG_CONFIG_HOME
    ignore.parent.mkdir(parents=True)
    ignore.write_text("*.tmp\n")
    script = f"echo hidden.py >> {ignore}; echo evil > hidden.py; echo t > scratch.tmp"
    out = tmp_path / "out"
    r = run_batch(git_ws, out, f"terminal sh -c '{script}'")
    assert r.returncode == 0, r.stderr
    assert changed(out, "demo--p1--0") == ["hidden.py"]


def test_a_worktree_filled_from_the_baseline_is_a_clean_checkout(git_ws, tmp_path):
    """The agent sees a real repository at the commit: git status is clean, HEAD is it."""
    out = tmp_path / "out"
    probe = tmp_path / "probe.txt"
    script = f"git status --porcelain > {probe}; git rev-parse HEAD >> {probe}"
    # The probe is written outside the run's worktree, where the sandbox refuses it.
    r = run_batch(git_ws, out, f"terminal sh -c '{script}'", extra=("--no-sandbox",))
    assert r.returncode == 0, r.stderr
    head = git(git_ws, "rev-parse", "HEAD")
    assert probe.read_text() == head


def test_a_kept_workspace_whose_git_the_agent_replaced_is_named(git_ws, tmp_path):
    """The agent puts a .git of its own, with an fsmonitor, in place of the worktree's:
    acphost runs nothing from it, the files there reach the patch, and the user is told
    before running git in the kept workspace."""
    monitor, log = logger(tmp_path, "fsmonitor")
    config = f"[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = {monitor}\\n"
    script = (
        "rm .git; mkdir -p .git/objects .git/refs; echo ref: refs/heads/main > .git/HEAD; "
        f"printf '{config}' > .git/config; echo fix >> README.md"
    )
    out = tmp_path / "out"
    r = run_batch(git_ws, out, f'terminal sh -c "{script}"', extra=["--keep-workspaces"])
    assert r.returncode == 0, r.stderr
    assert not log.exists()
    assert "the agent replaced the .git of the kept workspace" in r.stderr
    assert "README.md" in changed(out, "demo--p1--0")
    assert ".git/config" in changed(out, "demo--p1--0")
