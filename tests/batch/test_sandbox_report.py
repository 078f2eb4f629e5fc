"""A batch report says which OS sandbox each run's agent ran in."""

from __future__ import annotations

import json

from acphost.batch import load_report
from acphost.host import sandbox_support

from .conftest import acphost

FAST = {"ACPHOST_DEMO_STEP": "0"}
ABI, WHY = sandbox_support()


def test_each_run_records_its_sandbox(plain_ws, tmp_path):
    out = tmp_path / "out"
    r = acphost(
        ["batch", "-a", "demo", "--prompt", "echo hi", "--out", str(out), "--no-history"],
        cwd=plain_ws,
        env=FAST,
    )
    assert r.returncode == 0, r.stderr
    (run,) = json.loads((out / "report.json").read_text())["runs"]
    sandbox = run["sandbox"]
    if ABI:
        assert (sandbox["mechanism"], sandbox["abi"]) == ("landlock", ABI)
        assert sandbox["write"] and sandbox["deny"]
        assert f"Sandbox: landlock (ABI {ABI}); writes: " in (out / "report.md").read_text()
    else:
        assert sandbox["mechanism"] == "none" and WHY in sandbox["reason"]
    (outcome,) = load_report(str(out)).outcomes
    assert outcome.sandbox == sandbox


def test_a_run_without_the_sandbox_says_so(plain_ws, tmp_path):
    out = tmp_path / "out"
    r = acphost(
        ["batch", "-a", "demo", "--no-sandbox", "--prompt", "echo hi", "--out", str(out),
         "--no-history"],
        cwd=plain_ws,
        env=FAST,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    (run,) = json.loads((out / "report.json").read_text())["runs"]
    assert run["sandbox"]["mechanism"] == "none"
