"""The test helpers themselves: what they promise, and that they fail when they should."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import threading

import pytest

import acphost.cli
from tests.support.in_process import run_main
from tests.support.waiting import settled


def _fds():
    return [(s.st_dev, s.st_ino) for s in map(os.fstat, (0, 1, 2))]


def test_run_main_puts_the_process_back_as_it_found_it(tmp_path):
    env, cwd, fds = dict(os.environ), os.getcwd(), _fds()
    streams = (sys.stdin, sys.stdout, sys.stderr)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    logger = logging.getLogger("acphost")
    loggers = (list(logger.handlers), logger.level, logger.propagate)
    run_env = {**env, "ACPHOST_DEMO_STEP": "0", "ACPHOST_SETTINGS": "", "ONLY_IN_THE_RUN": "1"}
    r = run_main(["-vv", "-o", "simple", "echo hi"], cwd=tmp_path, env=run_env)
    assert (r.code, r.stdout) == (0, "hi\n"), r.stderr
    assert "acphost: acphost.transport: started agent" in r.stderr  # -vv logged to its stderr
    assert dict(os.environ) == env and os.getcwd() == cwd and _fds() == fds
    assert (sys.stdin, sys.stdout, sys.stderr) == streams
    assert {s: signal.getsignal(s) for s in handlers} == handlers
    assert (list(logger.handlers), logger.level, logger.propagate) == loggers


def test_run_main_gives_a_terminal_or_pipes(tmp_path, monkeypatch):
    seen = []

    def main(argv):
        seen.append((os.isatty(0), os.isatty(1), os.isatty(2), os.get_terminal_size(1)[:2]
                     if os.isatty(1) else None, os.getcwd(), os.environ.get("ONLY")))  # fmt: skip
        print("out")
        print("err", file=sys.stderr)
        return 3

    monkeypatch.setattr(acphost.cli, "main", main)
    r = run_main([], cwd=tmp_path, env={"ONLY": "1"}, terminal=(100, 30))
    assert r.code == 3 and r.stdout_bytes == b"out\r\nerr\r\n" and r.stderr == ""
    r = run_main([], cwd=tmp_path, env={"ONLY": "2"}, stdin="x")
    assert (r.code, r.stdout, r.stderr) == (3, "out\n", "err\n")
    assert seen == [(True, True, True, (100, 30), str(tmp_path), "1"),
                    (False, False, False, None, str(tmp_path), "2")]  # fmt: skip


def test_run_main_fails_a_run_that_leaves_a_child_process(tmp_path, monkeypatch):
    left = []

    def main(argv):
        left.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))  # fmt: skip
        return 0

    monkeypatch.setattr(acphost.cli, "main", main)
    monkeypatch.setattr("tests.support.in_process.DEADLINE", 0.2)
    with pytest.raises(AssertionError, match="outlived the run"):
        run_main([], cwd=tmp_path)
    assert left[0].wait(5) == -signal.SIGKILL  # and it was ended


def test_run_main_fails_a_run_that_leaves_a_thread(tmp_path, monkeypatch):
    stop = threading.Event()

    def main(argv):
        threading.Thread(target=stop.wait, name="left behind").start()
        return 0

    monkeypatch.setattr(acphost.cli, "main", main)
    monkeypatch.setattr("tests.support.in_process.DEADLINE", 0.2)
    try:
        with pytest.raises(AssertionError, match="left behind"):
            run_main([], cwd=tmp_path)
    finally:
        stop.set()


def test_run_main_fails_a_run_that_leaves_an_event_loop_open(tmp_path, monkeypatch):
    loops = []

    def main(argv):
        loops.append(asyncio.new_event_loop())
        asyncio.set_event_loop(loops[0])
        return 0

    monkeypatch.setattr(acphost.cli, "main", main)
    try:
        with pytest.raises(AssertionError, match="event loop was left open"):
            run_main([], cwd=tmp_path)
    finally:
        asyncio.set_event_loop(None)
        loops[0].close()


async def test_settled_waits_for_what_one_sleep_0_does_not():
    """A consequence a few hops away: one sleep(0) misses it, settled() does not."""
    loop = asyncio.get_running_loop()
    done = []

    def hop(n):
        if n:
            loop.call_soon(hop, n - 1)
        else:
            done.append(True)

    loop.call_soon(hop, 5)
    await asyncio.sleep(0)
    assert not done  # what a negative check after one sleep(0) would have seen
    await settled()
    assert done
    loop.call_later(0, done.append, "timer due now")
    await settled()
    assert done[-1] == "timer due now"
