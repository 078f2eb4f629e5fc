"""Protected names are matched by what a file system may take them for, not by their bytes.

On a case-insensitive volume ``.GIT`` is ``.git``; HFS+ drops ignorable
characters (``.g<ZWNJ>it``); Windows drops trailing dots and spaces and
answers to 8.3 short names (``GIT~1``). A hostile agent process, against the
real ``acphost --yolo`` over real pipes, tries each spelling.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acphost.host import ProtectedPaths

HOSTILE = str(Path(__file__).with_name("hostile_agent.py"))

VARIANTS = [
    ".GIT/config",
    ".Git/hooks/pre-commit",
    ".g\u200cit/hooks/pre-commit",  # zero-width non-joiner
    ".git\u00ad/config",  # soft hyphen
    "\ufeff.git/config",  # byte order mark
    ".git./config",
    ".git /config",
    ".git. . /config",
    ".git::$INDEX_ALLOCATION/config",
    "GIT~1/config",
    "git~2/hooks/post-checkout",
    "sub/.GiT/hooks/pre-commit",
    ".ACPHOST/settings.json",
    ".acphost./settings.json",
    "ACPHOS~1/settings.json",
    "\uff0egit/config",  # fullwidth full stop: ".git" once normalised (NFKC)
]


@pytest.mark.parametrize("rel", VARIANTS)
def test_spelling_variants_are_the_protected_area(rel):
    protect = ProtectedPaths(["/r"])
    first = rel.split("/")[0] if not rel.startswith("sub/") else "sub/" + rel.split("/")[1]
    assert protect.area(f"/r/{rel}") == f"/r/{first}"


@pytest.mark.parametrize("rel", [".github/x", ".gitignore", "git/x", "a.git/x", "gitx~1/x",
                                 ".acphost-notes/x", "acphos/x", ".gi t/x"])  # fmt: skip
def test_look_alikes_that_are_other_names_stay_free(rel):
    assert ProtectedPaths(["/r"]).area(f"/r/{rel}") is None


def test_the_host_refuses_every_spelling_from_a_real_agent(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    hook = "#!/bin/sh\ntouch $CWD/pwned\n"
    steps = [
        ["fs/write_text_file", {"sessionId": "$SID", "path": f"$CWD/{rel}", "content": hook}]
        for rel in VARIANTS
    ]
    steps.append(["fs/write_text_file", {"sessionId": "$SID", "path": "$CWD/ok.txt", "content": "ok"}])
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "-o", "simple", "--yolo",
         "--agent-command", f"{sys.executable} {HOSTILE}", "go"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOSTILE_STEPS": json.dumps(steps), "ACPHOST_SETTINGS": "",
             "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "ACPHOST_NO_HISTORY": "1"},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    answers = json.loads(r.stdout)
    assert len(answers) == len(VARIANTS) + 1
    for rel, answer in zip(VARIANTS, answers, strict=False):
        assert "is protected" in answer.get("error", {}).get("message", ""), (rel, answer)
    assert "error" not in answers[-1] and (ws / "ok.txt").read_text() == "ok"
    made = sorted(str(p.relative_to(ws)) for p in ws.iterdir() if p.name not in (".git", "ok.txt"))
    assert made == []
    assert not any((ws / ".git" / "hooks").glob("pre-commit"))
