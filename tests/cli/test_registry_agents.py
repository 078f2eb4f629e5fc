"""``-a acp:ID[@VERSION]`` through the real command: a run, a listing, a batch.

Nothing is downloaded: ``npx`` on the run's PATH is a stand-in script that
writes down the arguments it was given and starts the demo agent, so the
real resolver, launcher and reports see a registry agent whose package is
the version asked for.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from .runner import run, spawn

PINNED = "@agentclientprotocol/codex-acp@2.6.0"


@pytest.fixture
def npx(tmp_path) -> tuple[dict[str, str], Path]:
    """A PATH whose ``npx`` records its argv (one per line) and runs the demo agent."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    argv_file = tmp_path / "npx-argv"
    script = bindir / "npx"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > {shlex.quote(str(argv_file))}\n'
        f"exec {shlex.quote(sys.executable)} -m acphost.agents.demo\n"
    )
    script.chmod(0o755)
    env = {
        "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
        "ACPHOST_HISTORY": str(tmp_path / "history.sqlite3"),
    }
    return env, argv_file


@pytest.mark.parametrize(
    ("agent", "needle"),
    [
        ("acp:kimi-code", "close matches: acp:kimi"),
        ("acp:copilot", "close matches: acp:github-copilot-cli"),
        ("acp:zzz", "`acphost agents` lists the registry's ids"),
        ("acp:goose@1.50.1", "only as binary archives"),
        ("acp:codex-acp@latest", "must be a version number"),
        ("acp:Codex", "expected acp:ID or acp:ID@VERSION"),
    ],
)
def test_a_registry_agent_that_cannot_run_is_one_line_and_exit_2(tmp_path, npx, agent, needle):
    """Nothing starts: one line on stderr saying why (and the close ids), exit 2."""
    env, argv_file = npx
    for args in (["-a", agent, "echo hi"], ["agents", "-a", agent]):
        r = run(args, cwd=tmp_path, env=env)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stdout == ""
        assert r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
    assert not argv_file.exists()


def test_agents_shows_the_pinned_command_without_running_it(tmp_path, npx):
    env, argv_file = npx
    r = run(["agents", "-a", "acp:codex-acp@2.6.0"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    header, row = r.stdout.splitlines()[:2]
    assert header.split() == ["NAME", "SOURCE", "FOUND", "COMMAND"]
    assert row.split() == ["acp:codex-acp@2.6.0", "registry", "yes", "npx", "-y", PINNED]
    # Unpinned: the registry's own package version.
    r = run(["agents", "-a", "acp:fast-agent"], cwd=tmp_path, env=env)
    assert r.stdout.splitlines()[1].split()[3:] == ["uvx", "fast-agent-acp==0.10.1", "-x"]
    assert not argv_file.exists()


def test_a_pinned_registry_agent_runs_that_package_and_the_history_keeps_it(tmp_path, npx):
    env, argv_file = npx
    r = run(["-a", "acp:codex-acp@2.6.0", "echo hi"], cwd=tmp_path, env=env)
    assert (r.returncode, r.stdout) == (0, "hi\n"), r.stderr
    assert argv_file.read_text().splitlines() == ["-y", PINNED]
    (record,) = json.loads(run(["history", "list", "-o", "json"], cwd=tmp_path, env=env).stdout)
    assert record["agent"] == "acp:codex-acp@2.6.0"
    exported = run(["history", "export", record["id"], "-f", "json"], cwd=tmp_path, env=env)
    assert json.loads(exported.stdout)["session"]["command"] == ["npx", "-y", PINNED]


def test_a_batch_report_records_each_runs_agent_version(tmp_path, npx):
    """report.json says which version each run started: the pinned one, None for a command."""
    env, argv_file = npx
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("# ws\n")
    out = tmp_path / "out"
    r = spawn(
        [
            *("batch", "-a", "acp:codex-acp@2.6.0", "-a", "demo", "-p", "echo hi"),
            *("--workspace", str(ws), "--out", str(out), "--no-history"),
            "--no-sandbox",  # the fake npx notes its argv outside the workspace
        ],
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    report = json.loads((out / "report.json").read_text())
    versions = {run["agent"]: run["agent_version"] for run in report["runs"]}
    assert versions == {"acp:codex-acp@2.6.0": "2.6.0", "demo": None}
    assert all(run["status"] == "ok" for run in report["runs"])
    assert argv_file.read_text().splitlines() == ["-y", PINNED]
    lines = (out / "report.md").read_text().splitlines()
    (pinned,) = [line for line in lines if line.startswith("Agent acp:")]
    (demo,) = [line for line in lines if line.startswith("Agent demo")]
    shown = re.search(r"\(version (.*?)\)", pinned)
    assert shown and shown.group(1).replace("\\", "") == "2.6.0", pinned  # Markdown-escaped
    assert "(version" not in demo
