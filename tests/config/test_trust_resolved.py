"""The project folder is resolved once: what is trusted is what is read and where the agent runs.

A ``--cwd`` that goes through a link someone else controls (``shared/B``
leading to the trusted project A) could be pointed elsewhere between the
trust check and the agent's start: A's trusted settings (``python agent.py``)
would then run the other folder's ``agent.py``. And a settings file turned
from a copy into a link between two looks at it could be read as the
project's own and trusted by the link's target. Each test swaps the link at
a fixed point instead of hoping a flipping thread wins a race.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

import acphost.launch
from acphost.config import (
    SettingsError,
    _project,
    _trust,
    find_settings,
    load_settings,
    project_dir,
    settings_for,
    trust,
)
from acphost.launch import _setup

SETTINGS = {"agent_servers": {"proj": {"command": sys.executable, "args": ["agent.py"]}}}

# A's agent says where it runs, then is the demo agent, so the run completes.
A_AGENT = """\
import json, os, runpy, sys
with open(os.environ["MARKER"], "w") as f:
    json.dump({"who": "A", "cwd": os.getcwd()}, f)
sys.argv = [sys.argv[0]]
runpy.run_module("acphost.agents.demo", run_name="__main__", alter_sys=True)
"""
EVIL_AGENT = """\
import json, os
with open(os.environ["MARKER"], "w") as f:
    json.dump({"who": "evil", "cwd": os.getcwd()}, f)
"""

# The real CLI, with its resolve() wrapped so that the link is swapped right
# after the check: the run from then on must not look at the link again.
SWAP_AFTER_RESOLVE = """\
import os, sys
import acphost.launch._setup as setup
real = setup.resolve
def resolve_then_swap(args):
    out = real(args)
    link, to = os.environ["SWAP_LINK"], os.environ["SWAP_TO"]
    os.symlink(to, link + ".new")
    os.replace(link + ".new", link)
    return out
setup.resolve = resolve_then_swap
from acphost.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def _swap_link(link: Path, to: Path) -> None:
    tmp = link.with_name(link.name + ".new")
    tmp.symlink_to(to)
    os.replace(tmp, link)


@pytest.fixture
def shared(tmp_path, user_dirs):
    """Project A (trusted by the real ``acphost trust``), ``shared/B`` linking to it, ``evil``."""
    a, evil, shared = tmp_path / "a", tmp_path / "evil", tmp_path / "shared"
    for folder in (a, evil, shared):
        folder.mkdir()
    (a / ".acphost").mkdir()
    (a / ".acphost" / "settings.json").write_text(json.dumps(SETTINGS))
    (a / "agent.py").write_text(A_AGENT)
    (evil / "agent.py").write_text(EVIL_AGENT)
    (shared / "B").symlink_to(a)
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "trust"],
        cwd=a,
        env=_env(user_dirs, tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return SimpleNamespace(a=a, evil=evil, b=shared / "B", marker=tmp_path / "marker.json")


def _env(home: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_DATA_HOME": str(home / "data"),
        "ACPHOST_SETTINGS": "",
        "ACPHOST_DEMO_STEP": "0",
        "ACPHOST_DEMO_STATE_DIR": str(tmp_path / "demo-state"),
        "MARKER": str(tmp_path / "marker.json"),
        **extra,
    }


def _session_cwds(trace: Path) -> list[str]:
    """The ``cwd`` of every ``session/new`` the client sent, from a ``--trace`` file."""
    cwds = []
    for line in trace.read_text().splitlines():
        record = json.loads(line)
        frame = record.get("frame", record)
        if isinstance(frame, dict) and frame.get("method") == "session/new":
            cwds.append(frame["params"]["cwd"])
    return cwds


def test_the_cli_starts_the_agent_in_the_folder_it_checked(shared, user_dirs, tmp_path):
    """--cwd shared/B, B swapped to another folder after the check: A's agent runs, in A."""
    trace = tmp_path / "trace.jsonl"
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            SWAP_AFTER_RESOLVE,
            *("--cwd", str(shared.b), "-a", "proj", "--no-history", "--trace", str(trace)),
            "--no-sandbox",  # the agent reports by writing a marker outside its workspace
            "hello",
        ],
        cwd=tmp_path,
        env=_env(user_dirs, tmp_path, SWAP_LINK=str(shared.b), SWAP_TO=str(shared.evil)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert os.readlink(shared.b) == str(shared.evil)  # the swap did happen
    ran = json.loads(shared.marker.read_text())
    assert ran == {"who": "A", "cwd": os.path.realpath(shared.a)}, r.stderr
    assert r.returncode == 0, r.stderr
    # The session's workspace (the jail's root) is the same folder.
    assert _session_cwds(trace) == [os.path.realpath(shared.a)]


def test_the_tui_opens_the_folder_it_checked(shared, monkeypatch):
    """`acphost tui shared/B`: the app gets A's real path and A's agent, whatever B is later."""
    import acphost.tui

    real = _setup.resolve

    def resolve_then_swap(args):
        out = real(args)
        _swap_link(shared.b, shared.evil)
        return out

    opened = []

    class App:
        def __init__(self, spec, cwd, **_):
            opened.append((spec.name, cwd))

        def run(self):
            return 0

    monkeypatch.setattr(acphost.launch, "resolve", resolve_then_swap, raising=False)
    monkeypatch.setattr(acphost.tui, "AcpApp", App)
    args = SimpleNamespace(agent="proj", settings=None, cwd=str(shared.b))
    assert acphost.tui.run_tui(args) == 0
    assert opened == [("proj", os.path.realpath(shared.a))]


def test_resolve_returns_the_real_folder_and_says_so_when_asked(shared, caplog):
    args = SimpleNamespace(agent="proj", settings=None, cwd=str(shared.b))
    with caplog.at_level("INFO", logger="acphost.launch"):
        cwd, settings, spec = acphost.launch.resolve(args)
    assert cwd == os.path.realpath(shared.a) == project_dir(shared.b)
    assert settings.path == Path(cwd, ".acphost", "settings.json")
    assert spec.argv == [sys.executable, "agent.py"]
    [note] = [r.getMessage() for r in caplog.records]
    assert cwd in note and str(shared.b) in note and "symbolic link" in note
    caplog.clear()
    with caplog.at_level("INFO", logger="acphost.launch"):
        acphost.launch.resolve(SimpleNamespace(agent="proj", settings=None, cwd=str(shared.a)))
    assert caplog.records == []  # no link: nothing to say


@pytest.fixture
def copy_of_a(shared, tmp_path):
    """Project C, whose settings file is its own copy of A's trusted bytes (untrusted for C)."""
    c = tmp_path / "c"
    (c / ".acphost").mkdir(parents=True)
    own = c / ".acphost" / "settings.json"
    own.write_bytes((shared.a / ".acphost" / "settings.json").read_bytes())
    return own


def _swap_when_the_store_is_read(monkeypatch, link: Path, to: Path) -> None:
    """Turn ``link`` into a link to ``to`` the first time the trust store is looked up."""
    real = _trust.trust_store_path

    def store_path():
        if not link.is_symlink():
            link.unlink()
            link.symlink_to(to)
        return real()

    monkeypatch.setattr(_trust, "trust_store_path", store_path)


def test_a_copy_turned_into_a_link_during_the_check_is_not_trusted(shared, copy_of_a, monkeypatch):
    """C's copy becomes a link to A's file between the read and the trust lookup: untrusted."""
    a_file = shared.a / ".acphost" / "settings.json"
    _swap_when_the_store_is_read(monkeypatch, copy_of_a, a_file)
    assert find_settings(None, str(copy_of_a.parent.parent)) == (None, False)
    copy_of_a.unlink()
    copy_of_a.write_bytes(a_file.read_bytes())
    with pytest.raises(SettingsError, match="not trusted"):
        load_settings(copy_of_a, explicit=False)
    copy_of_a.unlink()
    copy_of_a.write_bytes(a_file.read_bytes())
    assert settings_for(None, project_dir(copy_of_a.parent.parent)).agents == {}


def test_the_bytes_checked_are_the_bytes_parsed(shared, monkeypatch):
    """One read: a change after it is not seen, and the digest is of what is parsed."""
    a_file = shared.a / ".acphost" / "settings.json"
    reads = []
    real = _project.read_input_fd

    def read_then_change(fd, **kw):
        data = real(fd, **kw)
        reads.append(data)
        a_file.write_text(json.dumps({"agent_servers": {"evil": {"command": "curl"}}}))
        return data

    monkeypatch.setattr(_project, "read_input_fd", read_then_change)
    settings = settings_for(None, project_dir(shared.a))
    assert list(settings.agents) == ["proj"] and len(reads) == 1

    # Bytes other than the trusted ones, as read: not used, though the file is trusted again.
    trusted = json.dumps(SETTINGS).encode()
    a_file.write_bytes(trusted)
    trust(a_file, trusted)
    monkeypatch.setattr(_project, "read_input_fd", lambda fd, **kw: real(fd, **kw) + b" ")
    assert settings_for(None, project_dir(shared.a)).agents == {}


def test_a_flipping_settings_file_is_never_taken_for_the_trusted_one(shared, copy_of_a):
    """Bounded stress: C's file flips between a link to A's file and a copy; C is never trusted."""
    a_file = shared.a / ".acphost" / "settings.json"
    master = copy_of_a.with_name("master")
    master.write_bytes(a_file.read_bytes())
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            _swap_link(copy_of_a, a_file)
            tmp = copy_of_a.with_name("copy.new")
            os.link(master, tmp)
            os.replace(tmp, copy_of_a)

    flipper = threading.Thread(target=flip)
    flipper.start()
    hits = 0
    try:
        for _ in range(50):
            path, _ = find_settings(None, str(copy_of_a.parent.parent))
            hits += path is not None
            with contextlib.suppress(SettingsError):
                hits += "proj" in load_settings(copy_of_a, explicit=False).agents
            hits += "proj" in settings_for(None, project_dir(copy_of_a.parent.parent)).agents
    finally:
        stop.set()
        flipper.join()
    assert hits == 0


@pytest.mark.parametrize("linked", ["project", "folder", "file"])
def test_the_reader_never_follows_a_link_and_names_it(tmp_path, linked):
    real = tmp_path / "real"
    (real / ".acphost").mkdir(parents=True)
    (real / ".acphost" / "settings.json").write_text("{}")
    project = tmp_path / "p"
    if linked == "project":
        project.symlink_to(real)
        link = project
    elif linked == "folder":
        project.mkdir()
        link = project / ".acphost"
        link.symlink_to(real / ".acphost")
    else:
        (project / ".acphost").mkdir(parents=True)
        link = project / ".acphost" / "settings.json"
        link.symlink_to(real / ".acphost" / "settings.json")
    found = _project.read_project_file(str(project))
    assert found is not None and found.data is None
    assert found.link is not None and found.link.startswith(f"{link} -> ")
    assert _project.read_project_file(str(real)).data == b"{}"


def test_the_reader_refuses_what_is_not_a_regular_file_in_one_line(tmp_path):
    (tmp_path / ".acphost").mkdir()
    assert _project.read_project_file(str(tmp_path)) is None  # no file: no project settings
    os.mkfifo(tmp_path / ".acphost" / "settings.json")
    with pytest.raises(SettingsError, match=r"settings\.json is a FIFO") as caught:
        settings_for(None, str(tmp_path))  # neither blocks nor reads forever
    assert "\n" not in str(caught.value)


def test_a_link_swapped_back_after_the_open_refused_it_is_still_a_link(tmp_path, monkeypatch):
    """The open found a link (ELOOP) and the file was a copy again when its link was read:
    it was reported as unreadable (an error naming a usable path), now as a link."""
    from acphost.config import _project

    (tmp_path / "a").mkdir()
    target = tmp_path / "a" / "settings.json"
    target.write_text("{}")
    (tmp_path / "c" / ".acphost").mkdir(parents=True)
    (tmp_path / "c" / ".acphost" / "settings.json").symlink_to(target)

    def swapped_back(*args, **kwargs):
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(_project.os, "readlink", swapped_back)
    found = _project.read_project_file(str(tmp_path / "c"))
    assert found is not None and found.data is None
    assert "a symbolic link when it was opened" in str(found.link)
