"""What particular programs run: subcommands that dispatch, and the workspace's own code.

A rule judges what will run, not only the words. Several programs run
another program for a subcommand that is not one of their own:

* ``git WORD`` runs ``git-WORD`` from ``PATH`` or ``--exec-path``, takes a
  ``WORD`` holding a ``/`` as a path (``git x/../../usr/bin/make`` runs
  ``make``), and expands an alias from the configuration;
* ``cargo WORD`` runs ``cargo-WORD`` from ``PATH`` (``~/.cargo/bin``
  included), or an alias of ``.cargo/config.toml``, which may shadow the
  one-letter built-in aliases ``b``, ``c``, ``t``...; ``cargo help WORD``
  runs ``cargo-WORD --help``;
* ``gh WORD`` runs an alias (``!`` aliases are shell lines) or an extension;
* ``kubectl WORD`` runs a ``kubectl-WORD`` plugin from ``PATH``;
* ``docker WORD`` runs a CLI plugin (``compose``, ``buildx``; ``docker
  build`` is ``buildx``, and the ``builder`` alias may be too);
* ``helm WORD`` runs a plugin;
* ``pnpm WORD``, ``yarn WORD`` and ``bun WORD`` run the ``package.json``
  script (or a package's binary) of that name; ``npm`` does for ``test``,
  ``start``, ``stop``, ``restart``, which :func:`runs_workspace_code` says;
* ``npx WORD``, ``bunx WORD``, ``uvx WORD`` run the package ``WORD`` (from
  ``node_modules/.bin``, which the agent can write, or downloaded): they
  have no built-in command at all.

So where a glob or ``**`` of a rule stands for such a program's subcommand,
it matches only one of the program's built-in commands (:func:`builtins`:
for git the installed ``git --list-cmds=builtins``, which no alias can
shadow; for the others a fixed table of built-in commands that no plugin,
extension, alias or script can take over, short aliases left out): ``cargo
*`` allows ``cargo build``, never ``cargo evil`` nor ``cargo x/../evil``. A
subcommand the pattern spells out (``git lfs``, ``pnpm lint``) is the user's
choice and is matched as written. Options before the subcommand that a final
``**`` covers must change nothing of what runs (:data:`DISPATCHERS`); the
others must be spelled in the rule.

Some commands run what is in the workspace: ``npm test`` runs the scripts
of ``package.json``, ``pytest`` imports ``conftest.py``, ``make`` follows
the ``Makefile``. While the agent may write those files, allowing such a
command allows any command. :func:`runs_workspace_code` names them, so that
the question, ``doctor`` and the documentation can say so.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._commands import _ASSIGNMENT, command_words

__all__ = [
    "DISPATCHERS",
    "Dispatcher",
    "builtins",
    "git_builtins",
    "git_subcommand",
    "harmless_option",
    "runs_workspace_code",
    "subcommand_index",
    "takes_value",
    "workspace_code_note",
]

_GIT_LIST_TIMEOUT = 10.0


@functools.cache
def git_builtins() -> frozenset[str]:
    """The built-in commands of git, as the installed ``git --list-cmds=builtins`` lists them.

    A built-in runs inside git itself: no ``git-WORD`` program is looked up
    and no alias can take its name (git ignores aliases that hide commands).
    Asked once per process, bounded in time; without a working git the set
    is empty, so a glob allows no subcommand (nothing would run anyway).

    Returns:
        The command names.

    """
    git = shutil.which("git")
    if git is None:
        return frozenset()
    try:
        done = subprocess.run(
            [git, "--list-cmds=builtins"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_GIT_LIST_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    if done.returncode != 0:
        return frozenset()
    names = done.stdout.decode("ascii", "replace").split()
    return frozenset(n for n in names if re.fullmatch(r"[a-z0-9][a-z0-9-]*", n))


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _table(names: str) -> Callable[[], frozenset[str]]:
    fixed = _set(names)
    return lambda: fixed


@dataclass(frozen=True, slots=True)
class Dispatcher:
    """A program that runs another program for a subcommand that is not its own.

    Attributes:
        builtins: the commands it runs itself, which nothing can shadow.
        value_options: its options before the subcommand that take the next
            word as their value (the others stand alone or carry ``=value``).
        harmless: its options before the subcommand that change nothing of
            what runs; a final ``**`` covers only these, the others must be
            spelled in the rule.
        option_prefixes: what starts an option before the subcommand
            (cargo's ``+toolchain`` is one).

    """

    builtins: Callable[[], frozenset[str]]
    value_options: frozenset[str] = frozenset()
    harmless: frozenset[str] = frozenset()
    option_prefixes: tuple[str, ...] = ("-",)


# For each, the options before the subcommand that change what runs, which
# therefore must be spelled: git's ``-c``/``--config-env`` (any configuration:
# a pager, an alias), ``--exec-path`` (where git-WORD comes from), ``-C``,
# ``--git-dir``, ``--work-tree`` (another repository and its configuration);
# cargo's ``+toolchain``, ``--config`` (aliases, runners, wrappers), ``-Z``,
# ``-C``; kubectl's and helm's ``--kubeconfig`` (its ``exec`` credential
# plugins run commands), ``--context``, ``--server``...; docker's
# ``--config`` (where plugins come from), ``--context``, ``--host`` (an
# ``ssh://`` host runs ssh); pnpm's ``--dir``/``--filter``. A table keeps
# no short alias a configuration may redefine (cargo's ``b``, ``t``...) nor
# ``help`` (``cargo help WORD`` runs ``cargo-WORD``).
DISPATCHERS: dict[str, Dispatcher] = {
    "git": Dispatcher(
        git_builtins,
        _set(
            "-C -c --git-dir --work-tree --namespace --super-prefix --config-env "
            "--shallow-file --attr-source"
        ),
        _set(
            "--no-pager -P --no-optional-locks --literal-pathspecs --no-literal-pathspecs "
            "--glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-replace-objects "
            "--no-advice --no-lazy-fetch"
        ),
    ),
    "cargo": Dispatcher(
        _table(
            "add bench build check clean config doc fetch fix generate-lockfile info init "
            "install locate-project login logout metadata new owner package pkgid publish "
            "read-manifest remove report run rustc rustdoc search test tree uninstall update "
            "vendor verify-project version yank"
        ),
        _set("--color --config -Z -C --explain"),
        _set("-v -vv --verbose -q --quiet --locked --offline --frozen --color"),
        ("-", "+"),
    ),
    "gh": Dispatcher(
        _table(
            "alias api attestation auth browse cache codespace completion config extension "
            "gist gpg-key issue label org pr project release repo ruleset run search secret "
            "ssh-key status variable workflow"
        ),
    ),
    "kubectl": Dispatcher(
        _table(
            "create expose run set explain get edit delete rollout scale autoscale certificate "
            "cluster-info top cordon uncordon drain taint describe logs attach exec "
            "port-forward proxy cp auth debug events diff apply patch replace wait kustomize "
            "label annotate completion api-resources api-versions config plugin version"
        ),
        _set(
            "--as --as-group --as-uid --cache-dir --certificate-authority --client-certificate "
            "--client-key --cluster --context --kubeconfig --log-flush-frequency -n "
            "--namespace --password --profile --profile-output --request-timeout -s --server "
            "--tls-server-name --token --user --username -v --v --vmodule"
        ),
        _set("-n --namespace -v --v --request-timeout"),
    ),
    "docker": Dispatcher(
        _table(
            "attach checkpoint commit config container context cp create diff events exec "
            "export history image images import info inspect kill load login logout logs "
            "manifest network node pause plugin port ps pull push rename restart rm rmi run "
            "save search secret service stack start stats stop swarm system tag top trust "
            "unpause update version volume wait"
        ),
        _set("--config -c --context -H --host -l --log-level --tlscacert --tlscert --tlskey"),
        _set("-D --debug -l --log-level"),
    ),
    "helm": Dispatcher(
        _table(
            "completion create dependency env get history install lint list package plugin "
            "pull push registry repo rollback search show status template test uninstall "
            "upgrade verify version"
        ),
        _set(
            "--burst-limit --content-cache --kube-apiserver --kube-as-group --kube-as-user "
            "--kube-ca-file --kube-context --kube-tls-server-name --kube-token --kubeconfig "
            "-n --namespace --qps --registry-config --repository-cache --repository-config"
        ),
        _set("-n --namespace --debug"),
    ),
    "npm": Dispatcher(
        _table(
            "access adduser approve-scripts audit bugs cache ci completion config dedupe "
            "deny-scripts deprecate diff dist-tag docs doctor edit exec explain explore "
            "find-dupes fund get help-search init install install-ci-test install-scripts "
            "install-test link ll login logout ls org outdated owner pack ping pkg prefix "
            "profile prune publish query rebuild repo restart root run run-script sbom search "
            "set shrinkwrap stage star stars start stop team test token trust undeprecate "
            "uninstall unpublish unstar update version view whoami"
        ),
        _set("--prefix -w --workspace --loglevel"),
    ),
    "pnpm": Dispatcher(
        _table(
            "add audit bin config create dedupe deploy dlx doctor env exec fetch import init "
            "install install-test licenses link list outdated pack patch patch-commit "
            "patch-remove prune publish rebuild remove root run server setup start store "
            "test unlink update why"
        ),
        _set("-C --dir -F --filter --reporter --loglevel --workspace-concurrency"),
    ),
    # Built in both to yarn 1 and to yarn 2+ (a word built into one only is a
    # script's name for the other).
    "yarn": Dispatcher(
        _table(
            "add bin cache config info init install link node pack remove run unlink version "
            "why workspace workspaces"
        ),
        _set("--cwd"),
    ),
    # Every word is a package to fetch (or take from node_modules/.bin, the
    # workspace's) and run: none is built in.
    **dict.fromkeys(
        ("npx", "bunx", "uvx"), Dispatcher(_table(""), _set("-p --package -c --call --from --with"))
    ),
    "bun": Dispatcher(
        _table(
            "add build create exec init install link outdated pm publish remove repl run test "
            "unlink update upgrade"
        ),
        _set("--cwd --config -c"),
    ),
}


def builtins(program: str) -> frozenset[str] | None:
    """The built-in commands of a program that dispatches its subcommands.

    Args:
        program: the program's name (``git``, ``cargo``...; a path's last part).

    Returns:
        The commands it runs itself, or ``None`` when it is not known to
        dispatch (:data:`DISPATCHERS`).

    """
    known = DISPATCHERS.get(os.path.basename(program))
    return known.builtins() if known is not None else None


def subcommand_index(words: Sequence[str], program: int) -> int | None:
    """Where a dispatching program's subcommand is among a command's words.

    Args:
        words: the command's words.
        program: the index of the program's word.

    Returns:
        The subcommand's index, after the program's own options and their
        values (:data:`DISPATCHERS`); ``None`` when the program does not
        dispatch or no subcommand follows.

    """
    known = DISPATCHERS.get(os.path.basename(words[program])) if program < len(words) else None
    if known is None:
        return None
    index = program + 1
    while index < len(words) and words[index].startswith(known.option_prefixes):
        index += 2 if words[index] in known.value_options else 1
    return index if index < len(words) else None


def git_subcommand(words: Sequence[str]) -> int | None:
    """Where git's subcommand is among a command's words, when the program is git.

    Args:
        words: words from :func:`command_words` (environment words first).

    Returns:
        The subcommand's index: the first word after ``git`` (any path whose
        last part is ``git``) and git's own options and their values; ``None``
        when the program is not git or no subcommand follows.

    """
    index = 0
    while index < len(words) and _ASSIGNMENT.match(words[index]):
        index += 1
    if index >= len(words) or os.path.basename(words[index]) != "git":
        return None
    return subcommand_index(words, index)


def harmless_option(program: str, word: str) -> bool:
    """Tell whether an option before a dispatcher's subcommand changes nothing of what runs.

    Args:
        program: the program's word.
        word: the option (``--flag`` or ``--flag=value``).

    Returns:
        ``True`` when the program is known and the option is harmless.

    """
    known = DISPATCHERS.get(os.path.basename(program))
    return known is not None and word.split("=", 1)[0] in known.harmless


def takes_value(program: str, word: str) -> bool:
    """Tell whether an option before a dispatcher's subcommand takes the next word.

    Args:
        program: the program's word.
        word: the option.

    Returns:
        ``True`` when the next word is the option's value.

    """
    known = DISPATCHERS.get(os.path.basename(program))
    return known is not None and word in known.value_options


# Programs that run what the workspace holds (build files, scripts, tests),
# and what: a rule allowing them allows whatever the agent writes there.
_RUNS_WORKSPACE = {
    **dict.fromkeys(("npm", "pnpm", "bun"), "the scripts of package.json"),
    "yarn": "the scripts of package.json and the yarnPath and plugins of .yarnrc.yml",
    "npx": "packages and package.json scripts",
    **dict.fromkeys(("make", "gmake"), "the Makefile"),
    "just": "the justfile",
    "rake": "the Rakefile",
    "ninja": "build.ninja",
    "cmake": "CMakeLists.txt",
    **dict.fromkeys(("pytest", "py.test"), "conftest.py and the tests"),
    "tox": "tox.ini and the tests",
    "nox": "noxfile.py",
    "cargo": "build.rs, .cargo/config.toml, rust-toolchain.toml and the crate's code",
    "go": "the module's code (tests, go generate)",
    **dict.fromkeys(("gradle", "gradlew", "mvn", "ant", "sbt"), "the build files"),
    **dict.fromkeys(("node", "deno", "ruby", "perl", "php", "Rscript"), "scripts"),
    "uv": "the project's code",
    "poetry": "the project's code",
}
_PYTHON = re.compile(r"python[0-9.]*|pypy[0-9.]*")


def runs_workspace_program(name: str) -> bool:
    """Tell whether the program named ``name`` is known to run what the workspace holds.

    A glob in a rule never stands for such a program (``* --version`` must not
    allow ``mvn --version``, which reads ``.mvn/jvm.config``): it must be spelled.
    """
    return name in _RUNS_WORKSPACE or _PYTHON.fullmatch(name) is not None


def runs_workspace_code(words: Sequence[str]) -> str | None:
    """Say what a command runs from the workspace, if it is known to run the workspace's code.

    Args:
        words: words from :func:`command_words` (environment words first).

    Returns:
        A phrase such as ``"npm runs the scripts of package.json"``, or
        ``None`` when the program is not known to.

    """
    index = 0
    while index < len(words) and _ASSIGNMENT.match(words[index]):
        index += 1
    if index >= len(words):
        return None
    program = words[index]
    name = os.path.basename(program)
    if "/" in program and not os.path.isabs(program):
        return f"{program} is a program in the workspace"
    if _PYTHON.fullmatch(name):
        rest = words[index + 1 :]
        module = rest[1] if len(rest) > 1 and rest[0] == "-m" else None
        if module in _RUNS_WORKSPACE:
            return f"{name} -m {module} runs {_RUNS_WORKSPACE[module]}"
        # A script is code, and "-m NAME" finds NAME in the working directory first.
        return f"{name} runs Python code from the workspace"
    what = _RUNS_WORKSPACE.get(name)
    return f"{name} runs {what}" if what is not None else None


def workspace_code_note(
    argv: Sequence[str] | None,
    shell_line: str | None,
    env: Sequence[tuple[str, str]] = (),
) -> str | None:
    """The warning a question about this command carries when it runs the workspace's code.

    Args:
        argv: the argv, when the command is one.
        shell_line: the shell line, when the command is one.
        env: the environment overrides, in order.

    Returns:
        One line (``npm runs the scripts of package.json, which the agent
        can write: ...``), or ``None``.

    """
    words = command_words(argv, shell_line, env)
    what = runs_workspace_code(words) if words is not None else None
    if what is None:
        return None
    return (
        f"{what}, which the agent can write: while it may write files, "
        "allowing this allows any command"
    )
