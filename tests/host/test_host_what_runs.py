"""A rule's globs stand for what will run: no plugin, script or program the agent wrote.

``cargo WORD`` runs ``cargo-WORD`` from ``PATH``, ``kubectl WORD`` a
``kubectl-WORD`` plugin, ``docker WORD`` a CLI plugin, ``pnpm WORD`` a
``package.json`` script: a glob standing for the subcommand matches only a
built-in one. A glob standing for the program matches only a bare name found
on ``PATH`` outside the workspace: ``* status`` never runs ``./git``, nor a
``git`` that a ``PATH`` entry in the workspace supplies. Replayed with the
hostile agent against the real ``acphost`` and the real programs, and the
matcher on its own.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from pathlib import Path

import pytest

from acphost.host import Decision, PermissionRequest, Rule
from tests.host.test_host_hostile_review import denied, run_hostile


def _terminal(command, args, env=None):
    params = {"sessionId": "$SID", "command": command, "args": args, "cwd": "$CWD"}
    if env is not None:
        params["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return ["terminal/create", params]


def _program(path: Path, marker: Path, extra: str = "") -> None:
    """An executable that leaves ``marker`` behind when it runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{extra}touch {marker}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _policy(tmp_path: Path, *commands: str) -> str:
    policy = tmp_path / "policy.json"
    rules = [{"kind": "execute", "command": c, "decision": "allow"} for c in commands]
    policy.write_text(json.dumps({"rules": rules}))
    return str(policy)


def _needs(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")


def test_cargo_star_runs_no_cargo_plugin(tmp_path):
    """``cargo evil`` runs ``cargo-evil`` from a ``PATH`` folder such as ``~/.cargo/bin``."""
    _needs("cargo")
    ws, plugins, marker = tmp_path / "ws", tmp_path / "plugins", tmp_path / "PWNED"
    ws.mkdir()
    _program(plugins / "cargo-evil", marker)
    env = {"PATH": f"{plugins}{os.pathsep}{os.environ['PATH']}"}
    steps = [_terminal("cargo", ["evil"]), _terminal("cargo", ["version"])]
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy",
                          _policy(tmp_path, "cargo *"), env=env)  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    assert not marker.exists()


def test_kubectl_star_runs_no_kubectl_plugin(tmp_path):
    _needs("kubectl")
    ws, plugins, marker = tmp_path / "ws", tmp_path / "plugins", tmp_path / "PWNED"
    ws.mkdir()
    _program(plugins / "kubectl-evil", marker)
    env = {"PATH": f"{plugins}{os.pathsep}{os.environ['PATH']}"}
    steps = [_terminal("kubectl", ["evil"]), _terminal("kubectl", ["version"])]
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy",
                          _policy(tmp_path, "kubectl *"), env=env)  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    assert not marker.exists()


def test_docker_star_runs_no_cli_plugin(tmp_path):
    """``docker evil`` runs the CLI plugin ``cli-plugins/docker-evil``."""
    _needs("docker")
    ws, config, marker = tmp_path / "ws", tmp_path / "docker", tmp_path / "PWNED"
    ws.mkdir()
    meta = '{"SchemaVersion":"0.1.0","Vendor":"x","Version":"1","ShortDescription":"x"}'
    _program(config / "cli-plugins" / "docker-evil", marker,
             f"[ \"$1\" = docker-cli-plugin-metadata ] && echo '{meta}' && exit 0\n")  # fmt: skip
    steps = [_terminal("docker", ["evil"]), _terminal("docker", ["version"])]
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy",
                          _policy(tmp_path, "docker *"), env={"DOCKER_CONFIG": str(config)})  # fmt: skip
    assert [denied(a) for a in answers] == [True, False], answers
    assert not marker.exists()


def test_a_program_glob_runs_no_program_of_the_workspace(tmp_path):
    """``* status`` and ``*git*`` allow ``git status``, not ``./git status``,
    ``sub/git status``, ``$WS/git status`` nor ``env ./git``."""
    ws, marker = tmp_path / "ws", tmp_path / "PWNED"
    for where in ("git", "sub/git"):
        _program(ws / where, marker)
    steps = [
        _terminal("./git", ["status"]),
        _terminal("sub/git", ["status"]),
        _terminal("$CWD/git", ["status"]),
        _terminal("*git*", []),  # a shell line: "*" is shell syntax, never words
        _terminal("git", ["status"]),
        _terminal("env", ["./git", "status"]),
        _terminal("nice", ["-n", "1", "git", "x/../git"]),
    ]
    policy = _policy(tmp_path, "* status", "*git* *", "env * *", "nice -n 1 * *")
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy", policy)
    assert [denied(a) for a in answers] == [True, True, True, True, False, True, True], answers
    assert not marker.exists()


def test_a_path_into_the_workspace_makes_a_bare_name_the_agents(tmp_path):
    """A ``PATH`` that leads into the workspace (the agent's ``env``, or the host's
    own with ``.`` or a workspace folder first) makes ``git`` the agent's program:
    neither ``* status`` nor a rule spelling ``git status`` allows it."""
    ws, marker = tmp_path / "ws", tmp_path / "PWNED"
    _program(ws / "bin" / "git", marker)
    bin_dir = str(ws / "bin")
    steps = [_terminal("git", ["status"], env={"PATH": bin_dir})]
    rules = (f"PATH={bin_dir} git status", f"PATH={bin_dir} * status")
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy", _policy(tmp_path, *rules))
    assert [denied(a) for a in answers] == [True], answers
    for first in (bin_dir, "bin", "."):
        host_path = {"PATH": f"{first}{os.pathsep}{os.environ['PATH']}"}
        if first == ".":
            _program(ws / "git", marker)
        steps = [_terminal("git", ["status"])]
        policy = _policy(tmp_path, "git status", "* status")
        answers = run_hostile(tmp_path, ws, steps, "--permission-policy", policy, env=host_path)
        assert [denied(a) for a in answers] == [True], (first, answers)
    assert not marker.exists()


def _request(command, args):
    return PermissionRequest.for_terminal("s", command, args, cwd="/ws")


@pytest.mark.parametrize(
    ("pattern", "command", "allowed"),
    [
        ("cargo *", "cargo build", True),
        ("cargo *", "cargo evil", False),
        ("cargo *", "cargo x/../evil", False),
        ("cargo *", "cargo b", False),  # .cargo/config.toml may redefine it
        ("cargo * *", "cargo help evil", False),  # runs cargo-evil --help
        ("cargo **", "cargo +evil build", False),
        ("cargo **", "cargo --config alias.build=x build", False),
        ("cargo **", "cargo -q build --release", True),
        ("cargo +nightly *", "cargo +nightly build", True),  # spelled by the user
        ("gh *", "gh pr", True),
        ("gh *", "gh co", False),  # an alias
        ("gh * *", "gh evil x", False),
        ("kubectl **", "kubectl -n prod get pods", True),
        ("kubectl **", "kubectl --kubeconfig ./k get pods", False),
        ("kubectl * *", "kubectl get pods", True),
        ("kubectl *", "kubectl evil", False),
        ("docker *", "docker ps", True),
        ("docker *", "docker compose", False),
        ("docker **", "docker --config ./d ps", False),
        ("helm *", "helm list", True),
        ("helm *", "helm evil", False),
        ("npm *", "npm install", True),
        ("npm *", "npm evil", False),
        ("pnpm *", "pnpm install", True),
        ("pnpm *", "pnpm lint", False),  # a package.json script
        ("pnpm lint", "pnpm lint", True),  # the user named it
        ("yarn *", "yarn evil", False),
        ("yarn *", "yarn list", False),  # yarn 1's only: a script for yarn 2+
        ("bun *", "bun evil.ts", False),
        ("npx *", "npx evil", False),
        ("npx prettier", "npx prettier", True),
        ("* *", "cargo evil", False),
        ("env * *", "env git x/../evil", False),
        ("env **", "env LD_PRELOAD=/ws/x.so git status", False),
        ("env * * *", "env A=1 git status", False),
        ("env A=1 git status", "env A=1 git status", True),
        ("env -S *", "env -S 'git status'", False),
        ("timeout 5 **", "timeout 5 ./evil", False),
        ("timeout 5 git *", "timeout 5 git status", True),
        ("xargs *", "xargs ./evil", False),
        ("sudo * *", "sudo git evil", False),
        ("**", "./evil", False),
        ("**", "git status", True),
        ("*", "/usr/bin/git", False),
        ("/usr/bin/git *", "/usr/bin/git status", True),
        ("* status", "no-such-program-anywhere status", False),
    ],
)
def test_what_a_glob_may_stand_for(pattern, command, allowed):
    argv = shlex.split(command)
    request = _request(argv[0], argv[1:] or None)
    for decision in (Decision.ALLOW, Decision.ASK):
        assert Rule(decision, command=pattern).matches(request) is allowed, decision
    # A reject rule errs on the side of matching.
    assert Rule(Decision.REJECT, command=pattern).matches(request) or not allowed


def test_a_program_is_found_the_way_exec_finds_it(tmp_path):
    from acphost.host._lookup import lookup_program

    ws, outside = tmp_path / "ws", tmp_path / "bin"
    marker = tmp_path / "m"
    _program(ws / "bin" / "tool", marker)
    _program(outside / "tool", marker)
    roots = [str(ws)]
    first_outside = lookup_program("tool", f"{outside}:{ws}/bin", cwd=str(ws), workspace=roots)
    assert first_outside.found == str(outside / "tool")
    assert not first_outside.passes_workspace and not first_outside.agents
    first_inside = lookup_program("tool", f"{ws}/bin:{outside}", cwd=str(ws), workspace=roots)
    assert first_inside.agents
    # A workspace folder met before the program could receive it later.
    passing = lookup_program("tool", f"{ws}:{outside}", cwd=str(ws), workspace=roots)
    assert passing.found == str(outside / "tool") and passing.passes_workspace
    assert not passing.agents
    relative = lookup_program("tool", f":{outside}", cwd=None, workspace=roots)
    assert relative.agents


def test_a_host_path_into_the_workspace_makes_bash_the_agents(tmp_path):
    """With a workspace folder first on the host's ``PATH``, ``bash -c 'git status'``
    runs the agent's ``bash``: it is not the line it claims, so ``git status`` does
    not allow it (``/bin/sh -c 'git status'`` still is)."""
    ws, marker = tmp_path / "ws", tmp_path / "PWNED"
    _program(ws / "bin" / "bash", marker)
    host_path = {"PATH": f"{ws / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    steps = [_terminal("bash", ["-c", "git status"]), _terminal("/bin/sh", ["-c", "git status"])]
    policy = _policy(tmp_path, "git status")
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy", policy, env=host_path)
    assert [denied(a) for a in answers] == [True, False], answers
    assert not marker.exists()


def test_a_glob_for_the_program_never_stands_for_one_that_runs_workspace_code(tmp_path):
    """``* --version`` allowed ``mvn --version``, which reads ``.mvn/jvm.config`` (the
    agent's): a glob never stands for a program that runs the workspace's files."""
    ws = tmp_path / "ws"
    ws.mkdir()
    steps = [_terminal("make", ["--version"]), _terminal("python3", ["--version"]),
             _terminal("git", ["--version"])]  # fmt: skip
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy",
                          _policy(tmp_path, "* --version"))  # fmt: skip
    assert [denied(a) for a in answers] == [True, True, False], answers


def test_doctor_names_a_rule_whose_program_is_a_glob(tmp_path):
    import subprocess
    import sys

    policy = _policy(tmp_path, "* --version")
    out = subprocess.run(
        [sys.executable, "-m", "acphost", "-a", "demo", "doctor", "--permission-policy", policy],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert "for any program found on PATH" in out.stdout + out.stderr, out.stdout + out.stderr
