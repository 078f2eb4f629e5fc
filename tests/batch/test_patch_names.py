"""File names in a run's patch are written as git writes them, so ``git apply`` takes it.

A real ``acphost batch`` with the demo agent running a script that makes files
with awkward names; the patch is applied with real ``git apply`` and ``patch``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from acphost.batch._diff import quote_name

from .conftest import FILES, acphost, fill, git

FAST = {"ACPHOST_DEMO_STEP": "0"}

NAMES = [
    "notes.md\tinstall.sh",
    "new\nline.txt",
    'say "hi".txt',
    "back\\slash.txt",
    "with space.txt",
    "café.txt",
    "-leading-dash.txt",
    "del\x7f.txt",
]

SCRIPT = """
import sys
names = {names!r}
for name in names:
    with open(name, "w") as f:
        f.write("made\\n")
with open("README.md", "a") as f:
    f.write("more\\n")
with open("hello.py", "w") as f:
    f.write("moved\\n")
import os
os.rename("hello.py", "with space too.py")
"""


@pytest.mark.parametrize("kind", ["git", "plain"])
def test_awkward_names_make_a_patch_git_apply_takes(kind, git_ws, plain_ws, tmp_path):
    ws = git_ws if kind == "git" else plain_ws
    script = tmp_path / "make_names.py"
    script.write_text(SCRIPT.format(names=NAMES))
    out = tmp_path / "out"
    r = acphost(
        [
            "batch", "-a", "demo", "--workspace", str(ws), "--out", str(out),
            "--no-history", "--write", "-p", f"terminal {sys.executable} {script}",
        ],
        cwd=ws,
        env=FAST,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    patch = out / "runs" / "demo--p1--0" / "diff.patch"
    text = patch.read_text()
    assert 'diff --git "a/notes.md\\tinstall.sh" "b/notes.md\\tinstall.sh"' in text
    assert '+++ "b/caf\\303\\251.txt"' in text
    assert "+++ b/with space.txt\t\n" in text

    # git apply on a fresh repository of the starting files takes the whole patch.
    fresh = fill(tmp_path / "fresh")
    git(fresh, "init", "-q")
    git(fresh, "add", ".")
    git(fresh, "commit", "-qm", "start")
    done = subprocess.run(
        ["git", "apply", "--check", str(patch)], cwd=fresh, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    git(fresh, "apply", str(patch))
    for name in NAMES:
        assert (fresh / name).read_text() == "made\n", name
    assert not (fresh / "notes.md").exists()
    assert (fresh / "README.md").read_text() == FILES["README.md"] + "more\n"
    assert (fresh / "with space too.py").read_text() == "moved\n"
    assert not (fresh / "hello.py").exists()


@pytest.mark.skipif(shutil.which("patch") is None, reason="patch(1) is not installed")
def test_patch_does_not_take_a_tab_in_a_name_for_its_end(tmp_path):
    """GNU patch reads the quoted name whole: it never creates ``notes.md`` from it."""
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    (after / "notes.md\tinstall.sh").write_text("curl | sh\n")
    from acphost.batch._diff import tree_changes

    patch = tmp_path / "p.patch"
    patch.write_text(tree_changes(str(before), str(after)).patch)
    target = tmp_path / "target"
    target.mkdir()
    subprocess.run(
        ["patch", "-p1", "-s", "-i", str(patch)], cwd=target, capture_output=True, check=False
    )
    assert not (target / "notes.md").exists()


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("plain.txt", "a/plain.txt"),
        ("a b", "a/a b"),
        ("-x", "a/-x"),
        ("t\tb", '"a/t\\tb"'),
        ("n\nl", '"a/n\\nl"'),
        ('q"', '"a/q\\""'),
        ("b\\s", '"a/b\\\\s"'),
        ("é", '"a/\\303\\251"'),
        ("\x01\x7f", '"a/\\001\\177"'),
        ("bad\udcff", '"a/bad\\377"'),  # a name that is not UTF-8, as os.walk gives it
    ],
)
def test_quote_name_is_gits(path, shown):
    assert quote_name("a/", path) == shown


def test_quote_name_matches_git_itself(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    names = ["t\tb", 'q"', "b\\s", "é", "sp ace", "\x01x"]
    for name in names:
        Path(repo / name).write_text("x\n")
    git(repo, "add", "-A")
    heads = {
        line
        for line in git(repo, "diff", "--cached", "--no-color").splitlines()
        if line.startswith("diff --git")
    }
    assert heads == {f"diff --git {quote_name('a/', n)} {quote_name('b/', n)}" for n in names}
