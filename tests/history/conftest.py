"""Fixtures of the history tests: a store in a temporary directory, recorded real sessions."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acphost import AcpClient
from acphost.history import HistoryRecorder, HistoryStore, SessionRecord

HERE = Path(__file__).parent
DEMO = [sys.executable, "-m", "acphost.agents.demo"]
USAGE_AGENT = [sys.executable, str(HERE / "usage_agent.py")]
WRITER = HERE / "writer.py"


@pytest.fixture(autouse=True)
def fast_demo(monkeypatch):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")


@pytest.fixture
def store_path(tmp_path, monkeypatch):
    path = tmp_path / "data" / "history.sqlite3"
    monkeypatch.setenv("ACPHOST_HISTORY", str(path))
    return path


@pytest.fixture
def env(tmp_path, store_path):
    """The environment of a whole ``acphost`` run recording into ``store_path``."""
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "TERM": "dumb",
        "ACPHOST_DEMO_STEP": "0",
        "ACPHOST_HISTORY": str(store_path),
        "XDG_CONFIG_HOME": str(tmp_path / ".xdg"),
    }


def only_record(store_path) -> SessionRecord:
    """The one session the store holds, whole."""
    with HistoryStore.open(str(store_path)) as store:
        (summary,) = store.list_sessions()
        return store.get(summary.id)


async def record(
    path,
    prompts,
    *,
    argv=DEMO,
    agent="demo",
    cwd=None,
    redactor=None,
    warn=None,
    timeout=5.0,
    client_options=None,
    close=True,
    command=None,
):
    """Run ``prompts`` against a real agent process, recording into ``path``.

    Returns the recorder, the recording and the turn results.
    """
    recorder = HistoryRecorder.open(str(path), redactor, warn=warn, timeout=timeout)
    cwd = str(cwd or os.getcwd())
    results = []
    async with AcpClient.start(list(argv), **(client_options or {})) as client:
        session = await client.new_session(cwd)
        # The recording observes the client's events: each turn is recorded as it runs.
        recording = recorder.open_session(agent, command or argv, cwd, session)
        for prompt in prompts:
            try:
                result = await session.prompt(prompt)
            except Exception as exc:  # the agent died: recorded as the turn's error
                results.append(exc)
                break
            results.append(result)
        if close:
            recording.close()
    if close:
        recorder.close()
    return recorder, recording, results


def run_cli(*args, env=None, input=None, cwd=None):
    """The real ``acphost`` command, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "acphost", *args],
        capture_output=True,
        text=True,
        input=input,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=60,
    )
