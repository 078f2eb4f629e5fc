"""The history keeps the OS sandbox a run's agent ran in, and says it back."""

from __future__ import annotations

import json

import pytest

from acphost.history import HistoryStore, sandbox_record
from acphost.host import sandbox_support
from tests.support.in_process import run_main

from .conftest import only_record

ABI, WHY = sandbox_support()


@pytest.mark.skipif(ABI == 0, reason=f"no Landlock here: {WHY}")
def test_a_confined_run_records_its_sandbox_and_history_shows_it(tmp_path, env, store_path):
    r = run_main(["-a", "demo", "echo hi"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    record = only_record(store_path)
    sandbox = record.sandbox
    assert sandbox is not None and sandbox["mechanism"] == "landlock"
    assert sandbox["abi"] == ABI and str(tmp_path) in sandbox["write"][0]
    assert sandbox["deny"]  # the secrets and acphost's own folders
    show = run_main(["history", "show", record.id[:8]], cwd=tmp_path, env=env)
    assert f"sandbox: landlock (ABI {ABI}); writes: " in show.stdout
    exported = run_main(["history", "export", record.id[:8], "-f", "json"], cwd=tmp_path, env=env)
    assert exported.code == 0, exported.stderr
    assert json.loads(exported.stdout)["session"]["sandbox"]["mechanism"] == "landlock"


def test_an_unconfined_run_says_so(tmp_path, env, store_path):
    r = run_main(["-a", "demo", "--no-sandbox", "echo hi"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    record = only_record(store_path)
    assert record.sandbox is not None and record.sandbox["mechanism"] == "none"
    show = run_main(["history", "show", record.id[:8]], cwd=tmp_path, env=env)
    assert "sandbox: none, the agent ran unconfined" in show.stdout


def test_a_tampered_sandbox_column_is_not_trusted(tmp_path, env, store_path):
    run_main(["-a", "demo", "--no-sandbox", "echo hi"], cwd=tmp_path, env=env)
    with HistoryStore.open(str(store_path)) as store:
        store._conn.execute("UPDATE sessions SET sandbox = ?", ('{"mechanism": ["x"]}',))
        store._conn.commit()
    assert only_record(store_path).sandbox is None
    assert sandbox_record({"mechanism": "landlock", "abi": True, "write": ["/a", 3]}) == {
        "mechanism": "landlock",
        "write": ["/a"],
    }
