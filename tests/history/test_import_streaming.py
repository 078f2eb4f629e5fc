"""``acphost history import`` streams: its memory is bounded by one turn, never by the file.

Each import is a real ``acphost`` process, started by a small launcher that
reports the peak resident memory of its child (``RUSAGE_CHILDREN``): a child
forked from pytest itself would count pytest's own pages as its peak.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acphost.history import HistoryStore

from .conftest import run_cli

#: The peak an import of a 20 MiB file may reach, whatever is in it: the
#: interpreter and acphost take about 30 MB; the largest turn read here, a few
#: times its size. Reading such a file whole took 3.4 GB.
BOUND_MB = 160
SIZE = 20 << 20
T = "2026-01-01T00:00:00+00:00"

_LAUNCH = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.stdout.write(r.stdout)\n"
    "sys.stderr.write(r.stderr)\n"
    "sys.exit(r.returncode)\n"
)


def import_measured(path, store):
    """Run ``acphost history import PATH``; return (exit code, stdout, stderr, peak MB)."""
    proc = subprocess.run(
        [sys.executable, "-c", _LAUNCH, sys.executable, "-m", "acphost", "history", "import",
         str(path)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "ACPHOST_HISTORY": str(store)},
    )  # fmt: skip
    peak, _, out = proc.stdout.partition("\n")
    return proc.returncode, out, proc.stderr, int(peak) / 1024


def session(i):
    return {"id": f"{i:032x}", "agent": "demo", "command": ["demo"], "cwd": "/w", "started_at": T}


def write_export(path, kind, sessions):
    """Write ``(session, turns)`` pairs as a json or jsonl export, piece by piece."""
    with open(path, "w") as f:
        if kind == "jsonl":
            for head, turns in sessions:
                f.write(json.dumps({"type": "session", **head}) + "\n")
                for turn in turns:
                    f.write(json.dumps({"type": "turn", **turn}) + "\n")
            return
        f.write('{"format": "acphost-history", "version": 1, "sessions": [')
        for n, (head, turns) in enumerate(sessions):
            f.write(("," if n else "") + json.dumps(head)[:-1] + ', "turns": [')
            f.write(",".join(json.dumps(turn, indent=2) for turn in turns) + "]}")
        f.write("]}")


def empty_objects_turn():
    """One turn whose events are 20 MiB of ``{}``: a hundred bytes each once decoded."""
    count = SIZE // 3
    yield {"seq": 1, "started_at": T, "prompt": "p", "events": [{}] * count}


@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_twenty_mib_of_empty_objects_are_refused_within_the_bound(tmp_path, kind):
    path = tmp_path / f"objects.{kind}"
    write_export(path, kind, [(session(1), empty_objects_turn())])
    assert path.stat().st_size > SIZE
    code, out, err, peak = import_measured(path, tmp_path / "h.sqlite3")
    assert peak < BOUND_MB, f"peak {peak:.0f} MB"
    assert code == 1 and out == "", err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "holds more than 500,000 JSON values, the most acphost imports at once" in err
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        assert store.list_sessions() == []


def many_turns(sessions, turns, text):
    for i in range(sessions):
        calls = [{"tool_call_id": f"t{k}", "title": "Read", "kind": "read", "status": "completed",
                  "locations": [{"path": f"/w/f{k}.py", "line": k}]} for k in range(20)]  # fmt: skip
        yield session(i), [
            {"seq": j + 1, "started_at": T, "prompt": f"prompt {j}", "text": text,
             "events": [{"kind": "text", "text": text}, *({"kind": "tool", "id": c["tool_call_id"]}
                                                         for c in calls)],
             "tool_calls": calls, "complete": True}
            for j in range(turns)
        ]  # fmt: skip


@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_twenty_mib_of_sessions_import_within_the_bound(tmp_path, kind):
    path = tmp_path / f"many.{kind}"
    write_export(path, kind, many_turns(400, 10, "y" * 2500))
    assert path.stat().st_size > SIZE
    code, out, err, peak = import_measured(path, tmp_path / "h.sqlite3")
    assert code == 0, err
    assert peak < BOUND_MB, f"peak {peak:.0f} MB"
    assert len(out.splitlines()) == 400
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        assert len(store.list_sessions(limit=None)) == 400
        record = store.get(f"{399:032x}")
        assert [t.seq for t in record.turns] == list(range(1, 11))
        assert record.origin == "imported" and len(record.turns[9].tool_calls) == 20


@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_one_large_turn_imports_within_the_bound(tmp_path, kind):
    text = "z" * (10 << 20)  # held twice in a turn: its text and its text event
    turn = {"seq": 1, "started_at": T, "prompt": "p", "text": text,
            "events": [{"kind": "text", "text": text}], "complete": True}  # fmt: skip
    path = tmp_path / f"large.{kind}"
    write_export(path, kind, [(session(7), [turn])])
    assert path.stat().st_size > SIZE
    code, _out, err, peak = import_measured(path, tmp_path / "h.sqlite3")
    assert code == 0, err
    assert peak < BOUND_MB, f"peak {peak:.0f} MB"
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        assert store.get(f"{7:032x}").turns[0].text == text


def test_turns_before_the_sessions_fields_and_stdin(store_path, tmp_path):
    """Keys in any order (the turns are read after the header), and a pipe spooled."""
    turns = [{"seq": n, "started_at": T, "prompt": f"p{n}", "complete": True} for n in (1, 2, 3)]
    doc = {"session": {"turns": turns, **session(3), "title": "after the turns"},
           "version": 1, "format": "acphost-history"}  # fmt: skip
    proc = run_cli("history", "import", "-", input=json.dumps(doc, indent=1))
    assert proc.returncode == 0, proc.stderr
    with HistoryStore.open(str(store_path)) as store:
        record = store.get(f"{3:032x}")
    assert [t.prompt for t in record.turns] == ["p1", "p2", "p3"]
    assert record.title == "after the turns"


def test_a_bad_turn_late_in_a_file_adds_nothing(store_path, tmp_path):
    path = tmp_path / "late.jsonl"
    sessions = list(many_turns(3, 2, "ok"))
    sessions[2][1][1]["started_at"] = "9999-01-01T00:00:00+00:00"
    write_export(path, "jsonl", sessions)
    proc = run_cli("history", "import", str(path))
    assert proc.returncode == 1 and f"{path}:9.started_at" in proc.stderr, proc.stderr
    with HistoryStore.open(str(store_path)) as store:
        assert store.list_sessions() == []


@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_turns_out_of_order_are_refused_not_called_a_damaged_store(store_path, tmp_path, kind):
    path = tmp_path / f"twice.{kind}"
    sessions = list(many_turns(1, 2, "ok"))
    sessions[0][1][1]["seq"] = 1
    write_export(path, kind, sessions)
    proc = run_cli("history", "import", str(path))
    assert proc.returncode == 1, proc.stderr
    assert "seq: 1 does not follow the turn before it (1)" in proc.stderr, proc.stderr
    assert "damaged" not in proc.stderr and len(proc.stderr.splitlines()) == 1
