"""Protected paths and the host's own output files."""

from __future__ import annotations

import json
import os

import pytest

from acphost.errors import InternalError, OutputFileError
from acphost.host import (
    AllowAll,
    AuditLog,
    Interactive,
    PermissionBroker,
    PermissionRequest,
    ProtectedPaths,
    RulesPolicy,
    Verdict,
    open_output,
)
from acphost.host._protect import names_area


def test_protected_areas():
    p = ProtectedPaths(["/r", "/s"], ["/logs/audit.jsonl", "/data/history"])
    # All of git's metadata: hooks and config, and every other indirection.
    assert p.area("/r/.git/hooks/pre-commit") == "/r/.git"
    assert p.area("/r/.git/config") == "/r/.git"
    assert p.area("/r/sub/.git/hooks/x") == "/r/sub/.git"
    assert p.area("/r/.git/modules/m/config") == "/r/.git"
    assert p.area("/r/.git/modules/m/hooks/post-checkout") == "/r/.git"
    assert p.area("/r/.git/commondir") == "/r/.git"  # points git at another config
    assert p.area("/r/.git/objects/info/alternates") == "/r/.git"
    assert p.area("/r/.git/HEAD") == "/r/.git"
    assert p.area("/r/sub/.git") == "/r/sub/.git"  # a gitdir file can point anywhere
    assert p.area("/s/.acphost/settings.json") == "/s/.acphost"
    assert p.area("/s/deep/.acphost/policy.json") == "/s/deep/.acphost"
    assert p.area("/logs/audit.jsonl") == "/logs/audit.jsonl"
    assert p.area("/data/history/store.sqlite-wal") == "/data/history"
    for free in (
        "/r/src/x.py",
        "/r/.github/workflows/x",
        "/r/hooks/x",
        "/t/.git/config",
    ):
        assert p.area(free) is None, free
    assert p.areas(["/r/.git/config", "/r/a", "/r/.git/hooks/x"]) == ("/r/.git",)


@pytest.mark.parametrize(
    ("glob", "named"),
    [
        ("/r/.git/hooks/pre-commit", True),
        ("/r/.git/hooks/*", True),
        ("/r/.git/hooks/**", True),
        ("/r/.git/hooks", True),
        ("/r/**", False),
        ("/r/.git/*", False),
        ("/r/.git/hoo*", False),
        ("*/.git/hooks/*", False),
        ("/r/.git/hooks*", False),
    ],
)
def test_only_a_glob_spelling_the_area_names_it(glob, named):
    assert names_area(glob, "/r/.git/hooks") is named


def write(path, protect=None):
    return PermissionRequest.for_fs_write("s1", path, protect=protect or ProtectedPaths(["/r"]))


async def test_protected_writes_need_a_rule_naming_them():
    asked = []

    async def user(request):
        asked.append(request)
        return Verdict.allow("user", always=True)

    for broker in (
        PermissionBroker(AllowAll()),
        PermissionBroker(Interactive(user)),
        PermissionBroker(
            RulesPolicy.from_dict({"rules": [{"path": "/r/**", "decision": "allow"}]})
        ),
        PermissionBroker(
            RulesPolicy.from_dict({"rules": [], "default": "ask"}), ask=Interactive(user)
        ),
    ):
        for path in ("/r/.git/hooks/pre-commit", "/r/.git/config", "/r/.acphost/settings.json"):
            with pytest.raises(InternalError, match="is protected") as info:
                await broker.check(write(path))
            assert info.value.data == {"reason": "permission_denied"}
        await broker.check(write("/r/src/x.py"))  # the rest is as before
    # the two asking brokers asked about the free path only, never a protected one
    assert [r.paths for r in asked] == [("/r/src/x.py",), ("/r/src/x.py",)]

    naming = RulesPolicy.from_dict(
        {
            "rules": [
                {"path": "/r/**", "decision": "allow"},
                {"kind": "edit", "path": "/r/.git/hooks/pre-commit", "decision": "allow"},
                {"path": "/r/.acphost/*", "decision": "ask"},
            ]
        }
    )
    broker = PermissionBroker(naming, ask=Interactive(user))
    await broker.check(write("/r/.git/hooks/pre-commit"))
    with pytest.raises(InternalError, match="is protected"):
        await broker.check(write("/r/.git/hooks/post-checkout"))
    await broker.check(write("/r/.acphost/settings.json"))  # named by an ask rule: asked
    assert asked[-1].protected == ("/r/.acphost",)


async def test_protected_tool_calls_and_grants():
    protect = ProtectedPaths(["/r"])
    call = PermissionRequest.for_tool_call(
        "s1",
        "t1",
        title="Edit hook",
        kind="edit",
        locations=["/r/.git/hooks/pre-push"],
        cwd="/r",
        protect=protect,
        options=(),
    )
    assert call.protected == ("/r/.git",)
    broker = PermissionBroker(AllowAll())
    outcome = await broker.request(call)
    assert outcome.decision == "cancelled" and "is protected" in outcome.reason
    # reading and running are not writes: not protected
    read = PermissionRequest.for_tool_call(
        "s1",
        "t2",
        title="Read hook",
        kind="read",
        locations=["/r/.git/config"],
        cwd="/r",
        protect=protect,
    )
    assert read.protected == ()


def test_output_files_refuse_links_and_fifos(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep\n")
    os.symlink(target, tmp_path / "link.jsonl")
    with pytest.raises(OutputFileError, match="symbolic link"):
        open_output(tmp_path / "link.jsonl")
    with pytest.raises(OutputFileError, match="symbolic link"):
        AuditLog(str(tmp_path / "link.jsonl"))
    assert target.read_text() == "keep\n"
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OutputFileError, match="not a regular file"):
        open_output(tmp_path / "fifo")
    # with a reader the open itself succeeds: the check after it refuses the FIFO
    reader = os.open(tmp_path / "fifo", os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(OutputFileError, match="not a regular file"):
            open_output(tmp_path / "fifo", append=False)
    finally:
        os.close(reader)
    with pytest.raises(OutputFileError, match="not a regular file"):
        open_output(tmp_path)  # a directory


def test_output_files_append_truncate_and_keep_their_inode(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text("old\n")
    with open_output(path) as out:
        out.write("appended\n")
    assert path.read_text() == "old\nappended\n"
    with open_output(path, append=False) as out:
        out.write("fresh\n")
    assert path.read_text() == "fresh\n"
    open_output(tmp_path / "new").close()
    assert oct(os.stat(tmp_path / "new").st_mode & 0o777) == "0o600"


def test_replacing_the_audit_log_does_not_redirect_it(tmp_path):
    path = tmp_path / "audit.jsonl"
    decoy = tmp_path / "decoy"
    decoy.write_text("")
    log = AuditLog(str(path))
    log.record(PermissionRequest("s1", tool_kind="read"), "allow")
    moved = tmp_path / "moved.jsonl"
    os.rename(path, moved)
    os.symlink(decoy, path)  # the agent replaces the name with a link
    log.record(PermissionRequest("s1", tool_kind="edit"), "reject")
    log.close()
    assert decoy.read_text() == ""
    lines = [json.loads(x) for x in moved.read_text().splitlines()]
    assert [x["decision"] for x in lines] == ["allow", "reject"]


async def test_audit_log_records_resolved_and_requested_paths(tmp_path):
    path = tmp_path / "audit.jsonl"
    broker = PermissionBroker(AllowAll(), audit_log=str(path))
    with pytest.raises(InternalError):
        await broker.check(
            PermissionRequest.for_fs_write(
                "s1", "/r/.git/hooks/x", requested="/r/link/x", protect=ProtectedPaths(["/r"])
            )
        )
    await broker.check(PermissionRequest.for_fs_read("s1", "/r/a.py", requested="/r/./a.py"))
    await broker.check(PermissionRequest.for_fs_read("s1", "/r/b.py", requested="/r/b.py"))
    broker.close()
    first, second, third = (json.loads(x) for x in path.read_text().splitlines())
    assert first["paths"] == ["/r/.git/hooks/x"]
    assert first["requestedPaths"] == ["/r/link/x"]
    assert first["protected"] == ["/r/.git"]
    assert first["decision"] == "reject"
    assert second["operation"] == "fs_read" and second["requestedPaths"] == ["/r/./a.py"]
    assert "requestedPaths" not in third
