"""One path resolution: what the policy judges is the path the jail opens."""

from __future__ import annotations

import os

import pytest

from acphost.errors import InternalError, InvalidParams, ResourceNotFound
from acphost.host import FileSystemProvider, Workspace, resolve_path


@pytest.fixture
def repo(ws_dir):
    (ws_dir / ".git" / "hooks").mkdir(parents=True)
    (ws_dir / "a").mkdir()
    os.symlink(".git/hooks", ws_dir / "hooks-link")
    os.symlink("a", ws_dir / "a-link")
    return ws_dir


def test_spellings_of_one_path_resolve_alike(repo):
    ws = str(repo)
    want = f"{ws}/.git/hooks/pre-commit"
    for spelling in (
        f"/{ws}/.git/hooks/pre-commit",
        f"{ws}//.git/./hooks/pre-commit",
        f"{ws}/./a/../.git/hooks/pre-commit",
        f"{ws}/hooks-link/pre-commit",
        f"{ws}/a-link/../hooks-link/pre-commit",
    ):
        assert resolve_path(spelling) == want, spelling
    assert resolve_path("hooks-link/pre-commit", base=ws) == want
    # missing components are kept as written; a root is itself
    assert resolve_path(f"{ws}/new/dir/f") == f"{ws}/new/dir/f"
    assert resolve_path(ws) == ws


def test_bad_paths_are_refused(repo):
    for bad in ("relative", "", "/x\x00y"):
        with pytest.raises(InvalidParams):
            resolve_path(bad)
    (repo / "file").write_text("")
    with pytest.raises(InvalidParams, match="not a directory"):
        resolve_path(f"{repo}/file/below")


async def test_reads_are_authorized_on_the_file_opened(repo, workspace):
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    fs = FileSystemProvider()
    seen = []

    async def authorize(path):
        seen.append(path)

    text = await fs.read_text_file(workspace, f"{repo}/hooks-link/pre-commit", authorize=authorize)
    assert text == "#!/bin/sh\n"
    assert seen == [f"{repo}/.git/hooks/pre-commit"]
    # a missing file is judged by the path it would have, before "not found"
    with pytest.raises(ResourceNotFound, match="does not exist"):
        await fs.read_text_file(workspace, f"{repo}/a-link/nope", authorize=authorize)
    assert seen[-1] == f"{repo}/a/nope"


async def test_a_refused_read_reads_nothing_and_a_refused_write_creates_nothing(repo, workspace):
    fs = FileSystemProvider()

    async def refuse(path):
        raise InternalError(f"no: {path}")

    (repo / "a" / "f").write_text("x")
    with pytest.raises(InternalError, match=f"no: {repo}/a/f"):
        await fs.read_text_file(workspace, f"{repo}/a-link/f", authorize=refuse)
    with pytest.raises(InternalError, match=f"no: {repo}/.git/hooks/new/dir/f"):
        await fs.write_text_file(workspace, f"{repo}/hooks-link/new/dir/f", "x", authorize=refuse)
    assert not (repo / ".git" / "hooks" / "new").exists()


async def test_a_link_swapped_in_after_the_check_is_refused(repo, workspace):
    fs = FileSystemProvider()
    (repo / "b").mkdir()

    async def swap(path):
        assert path == f"{repo}/b/f"
        (repo / "b").rmdir()
        os.symlink(".git/hooks", repo / "b")

    with pytest.raises(InternalError, match="changed while it was being checked"):
        await fs.write_text_file(workspace, f"{repo}/b/f", "x", authorize=swap)
    assert not (repo / ".git" / "hooks" / "f").exists()


def test_workspace_roots_are_canonical(tmp_path, repo):
    os.symlink(repo, tmp_path / "alias")
    assert Workspace([str(tmp_path / "alias")]).roots == (str(repo),)


async def test_rule_globs_resolve_their_directories_like_request_paths(tmp_path, repo):
    from acphost.host import Decision, PermissionRequest, RulesPolicy

    os.symlink(repo, tmp_path / "alias")
    policy = RulesPolicy.from_dict(
        {
            "rules": [
                {"path": f"{tmp_path}/alias/a/*", "decision": "allow"},
                {"path": f"{tmp_path}/alias/hooks-link/pre-commit", "decision": "allow"},
            ]
        }
    )
    write = PermissionRequest.for_fs_write("s", f"{repo}/a/x.py")
    assert (await policy.decide(write)).decision is Decision.ALLOW
    hook = PermissionRequest.for_fs_write("s", f"{repo}/.git/hooks/pre-commit")
    verdict = await policy.decide(hook)
    assert verdict.decision is Decision.ALLOW and verdict.reason == "rule 2 in rules"
