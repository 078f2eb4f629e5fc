"""The user folders follow the XDG base directory specification."""

from __future__ import annotations

from pathlib import Path

import pytest

from acphost.config import config_dir, data_dir, state_dir


def test_each_folder_follows_its_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    assert config_dir() == tmp_path / "c" / "acphost"
    assert state_dir() == tmp_path / "s" / "acphost"
    assert data_dir() == tmp_path / "d" / "acphost"


@pytest.mark.parametrize("value", [None, "", "relative/path"])
def test_unset_empty_or_relative_falls_back_to_the_default(value, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        if value is None:
            monkeypatch.delenv(var, raising=False)
        else:
            monkeypatch.setenv(var, value)
    assert config_dir() == tmp_path / ".config" / "acphost"
    assert state_dir() == tmp_path / ".local" / "state" / "acphost"
    assert data_dir() == tmp_path / ".local" / "share" / "acphost"


def test_nothing_is_created(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    assert isinstance(state_dir(), Path)
    assert not (tmp_path / "s").exists()
