"""Fixtures shared by the command-line tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

HOSTILE = Path(__file__).with_name("hostile_agent.py")


@pytest.fixture
def hostile_env(tmp_path):
    """An environment whose settings make the hostile agent the default agent."""
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps(
            {"agent_servers": {"hostile": {"command": sys.executable, "args": [str(HOSTILE)]}}}
        )
    )
    return {
        **os.environ,
        "ACPHOST_DEMO_STEP": "0",
        "XDG_CONFIG_HOME": str(tmp_path / ".xdg"),
        "ACPHOST_SETTINGS": str(settings),
    }
