"""The collector paused during a run's imports: an in-process run leaves it as it was."""

from __future__ import annotations

import gc

import pytest

from acphost import cli
from acphost.cli import _collector
from tests.support.in_process import process_state_kept


@pytest.fixture(autouse=True)
def _process_state_kept():
    """These tests call main() themselves: the loggers and globals it sets are put back."""
    with process_state_kept():
        yield


@pytest.fixture
def demo_env(monkeypatch, tmp_path):
    monkeypatch.setenv("ACPHOST_DEMO_STEP", "0")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".xdg"))
    monkeypatch.setenv("ACPHOST_SETTINGS", "")
    monkeypatch.chdir(tmp_path)


def test_a_prompt_run_in_process_leaves_the_collector_as_it_was(demo_env, capsys):
    """A real prompt run (the demo agent over real pipes) pauses the collector and gives it back."""
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen = []
    real_resume = _collector.resume

    def resume():
        seen.append(gc.isenabled())  # off until the run's imports are done
        real_resume()

    _collector.resume = resume
    try:
        assert cli.main(["-a", "demo", "-o", "simple", "hello"]) == 0
    finally:
        _collector.resume = real_resume
    assert capsys.readouterr().out.strip()
    assert seen and seen[0] is False  # it was paused when the run resumed it
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen  # nothing frozen in process
    assert gc.get_threshold() == thresholds


def test_a_disabled_collector_stays_disabled(demo_env, capsys):
    gc.disable()
    try:
        assert cli.main(["-a", "demo", "-o", "simple", "hello"]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failed_run_and_a_subcommand_give_the_collector_back(demo_env, capsys):
    with pytest.raises(SystemExit):
        cli.main(["--no-such-flag"])  # argparse exits
    assert gc.isenabled()
    assert cli.main(["-a", "no-such-agent", "hi"]) == 2
    assert gc.isenabled()
    seen = []
    real_resume = _collector.resume

    def resume():
        seen.append(gc.isenabled())
        real_resume()

    _collector.resume = resume
    try:
        assert cli.main(["agents"]) == 0
    finally:
        _collector.resume = real_resume
    assert seen[0] is False and gc.isenabled()  # given back before the subcommand ran
