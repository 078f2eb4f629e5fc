"""Every file the user names is read by one bounded reader and one strict JSON decoder.

The real ``acphost`` command: a device, a FIFO or a directory given to a flag
is refused at once (never read, never waited on) with one line naming the flag
and exit 2; a JSON file with a repeated key or NaN is refused naming the place.
"""

from __future__ import annotations

import json
import os

import pytest

from .runner import run

DEVICE = "/dev/zero"  # endless: a naive read hangs and eats memory


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)  # no writer ever comes: a naive open blocks forever
    return path


def _one_line(r, *needles, code=2):
    assert r.returncode == code, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("kind", ["device", "fifo", "directory"])
def test_settings_that_is_not_a_regular_file(tmp_path, fifo, kind):
    path, what = {
        "device": (DEVICE, "a character device"),
        "fifo": (str(fifo), "a FIFO"),
        "directory": (str(tmp_path), "a directory"),
    }[kind]
    r = run(["--settings", path, "echo x"], cwd=tmp_path)
    _one_line(r, "--settings file", path, what, "not a regular file")


def test_other_flags_name_themselves(tmp_path, fifo):
    history = {"ACPHOST_HISTORY": str(tmp_path / "h.sqlite3")}
    cases = [
        (["--permission-policy", str(fifo), "echo x"], "--permission-policy"),
        (["batch", "--prompts", DEVICE, "--out", str(tmp_path / "o1")], "--prompts file"),
        (["batch", "--spec", str(fifo)], "--spec file"),
        (["history", "import", DEVICE], "history import file"),
        (["validate", str(fifo)], "trace file"),
    ]
    for args, needle in cases:
        r = run(args, cwd=tmp_path, env=history)
        _one_line(r, needle, "not a regular file")


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        (
            '{"agent_servers": {"x": {"command": "a"}, "x": {"command": "b"}}}',
            ['duplicate key "x"', "line 1 column 19"],
        ),
        ('{"agent_servers": {"x": {"command": "a", "budget": NaN}}}', ["NaN is not JSON"]),
        ('{"agent_servers": {}, "n": 1e400}', ["too large"]),
    ],
)
def test_settings_json_is_strict(tmp_path, content, needles):
    settings = tmp_path / "settings.json"
    settings.write_text(content)
    r = run(["--settings", str(settings), "echo x"], cwd=tmp_path)
    _one_line(r, str(settings), *needles)


def test_a_strict_settings_file_still_runs_the_demo(tmp_path):
    """The control: a well-formed file passes the same reader and decoder."""
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"agent_servers": {}}))
    r = run(["-o", "simple", "--settings", str(settings), "echo hello"], cwd=tmp_path)
    assert r.returncode == 0 and "hello" in r.stdout


def test_rules_prompts_and_imports_refuse_repeated_keys(tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text('{"rules": [], "default": "allow", "default": "reject"}')
    r = run(["--permission-policy", str(rules), "echo x"], cwd=tmp_path)
    _one_line(r, str(rules), 'duplicate key "default"')

    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"id": "a", "prompt": "echo a"}\n{"id": "b", "prompt": "x", "prompt": ""}\n')
    r = run(["batch", "--prompts", str(prompts), "--out", str(tmp_path / "o")], cwd=tmp_path)
    _one_line(r, str(prompts), "duplicate key \"prompt\" in the object at line 2 column 1")

    export = tmp_path / "export.json"
    export.write_text('{"format": "acphost-history", "version": 1, "version": 2, "session": {}}')
    r = run(["history", "import", str(export)], cwd=tmp_path,
            env={"ACPHOST_HISTORY": str(tmp_path / "h.sqlite3")})
    # Like any malformed export, a failure of the import (1), not of the command line.
    _one_line(r, str(export), 'duplicate key "version"', code=1)


def test_a_damaged_trust_store_is_named(tmp_path):
    store = tmp_path / ".xdg" / "acphost" / "trusted.json"
    store.parent.mkdir(parents=True)
    store.write_text('{"version": 1, "trusted": {"/x": {"sha256": NaN}}}')
    project = tmp_path / ".acphost" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"agent_servers": {}}))
    r = run(["trust", "--list"], cwd=tmp_path)
    assert r.returncode == 2
    assert str(store) in r.stderr and "NaN" in r.stderr and "move it away" in r.stderr


def test_a_resume_file_is_read_like_every_other_input(tmp_path):
    saved = tmp_path / "saved.json"
    saved.write_text('{"sessionId": "a", "sessionId": "b"}')
    r = run(["--resume", str(saved), "hi"], cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert str(saved) in r.stderr and "sessionId" in r.stderr
    saved.write_text("x" * (2 << 20))
    r = run(["--resume", str(saved), "hi"], cwd=tmp_path)
    assert r.returncode == 2 and "limit" in r.stderr, r.stderr
