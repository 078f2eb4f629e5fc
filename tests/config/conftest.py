"""Every config test gets its own user folders: nothing reads the real ~/.config."""

from __future__ import annotations

import pytest

from acphost.config import _settings


@pytest.fixture(autouse=True)
def user_dirs(tmp_path, monkeypatch):
    home = tmp_path / "home"
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_DATA_HOME", "data"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.delenv("ACPHOST_SETTINGS", raising=False)
    monkeypatch.setattr(_settings, "_warned", set())
    return home
