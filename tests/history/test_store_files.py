"""The store's files are opened as themselves and kept owner-only.

Real symbolic links and real ``acphost`` processes: a history command, an
import, and a prompt run that records (against the demo agent).
"""

from __future__ import annotations

import os
import stat

from acphost.history import HistoryStore

from .conftest import run_cli
from .test_cli import export_file as _export


def export_file(tmp_path):
    return _export(tmp_path, "a" * 32)


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_dangling_link_is_refused_and_its_target_never_created(store_path, tmp_path):
    store_path.parent.mkdir(parents=True, mode=0o700)
    target = tmp_path / "elsewhere" / "planted.sqlite3"
    target.parent.mkdir()
    store_path.symlink_to(target)
    for args in (("import", str(export_file(tmp_path))), ("info",), ("list",)):
        proc = run_cli("history", *args)
        assert proc.returncode == 1, proc.stderr
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
        assert "is a symbolic link" in proc.stderr and "Traceback" not in proc.stderr
    config = {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "ACPHOST_SETTINGS": ""}
    run = run_cli("-o", "simple", "echo still here", cwd=tmp_path, env=config)
    assert run.returncode == 0 and run.stdout == "still here\n", run.stderr
    (warning,) = [line for line in run.stderr.splitlines() if "warning" in line]
    assert "is a symbolic link" in warning and "not recorded" in warning
    assert not target.exists()
    assert os.path.islink(store_path)


def test_a_link_to_a_real_store_is_refused(store_path, tmp_path):
    real = tmp_path / "real.sqlite3"
    HistoryStore.open(str(real)).close()
    store_path.parent.mkdir(parents=True)
    store_path.symlink_to(real)
    proc = run_cli("history", "list")
    assert proc.returncode == 1 and "is a symbolic link" in proc.stderr, proc.stderr


def test_a_companion_that_is_a_link_is_refused(store_path, tmp_path):
    HistoryStore.open(str(store_path)).close()
    decoy = tmp_path / "decoy"
    os.symlink(decoy, str(store_path) + "-wal")
    proc = run_cli("history", "import", str(export_file(tmp_path)))
    assert proc.returncode == 1, proc.stderr
    assert f"{store_path}-wal is a symbolic link" in proc.stderr
    assert not decoy.exists()


def test_a_store_open_to_others_is_made_owner_only_with_one_warning(store_path):
    HistoryStore.open(str(store_path)).close()
    os.chmod(store_path, 0o644)
    wal = str(store_path) + "-wal"
    with open(wal, "a"):
        pass
    os.chmod(wal, 0o664)
    proc = run_cli("history", "list")
    assert proc.returncode == 0, proc.stderr
    (warning,) = proc.stderr.splitlines()
    assert warning.startswith(
        f"acphost: warning: the history store {store_path} was open to other users "
        "(the database 0644, -wal "
    ), warning
    assert warning.endswith("it is owner-only (0600) now"), warning
    assert mode(store_path) == 0o600
    again = run_cli("history", "list")
    assert (again.returncode, again.stderr) == (0, "")


def test_a_new_store_is_owner_only_in_an_owner_only_directory(store_path, tmp_path):
    assert run_cli("history", "import", str(export_file(tmp_path))).returncode == 0
    assert mode(store_path) == 0o600 and mode(store_path.parent) == 0o700
