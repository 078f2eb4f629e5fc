"""What particular programs run: git's subcommands, and the workspace's own code.

A rule judges what will run, not only the words. ``git`` runs ``git-WORD``
for a subcommand that is not one of its own, and takes a ``WORD`` holding a
``/`` as a path (``git x/../../usr/bin/make`` runs ``make``, ``git
x/../tools/build.sh`` a script in the workspace), and an alias from the
configuration (``git WORD`` may be anything). So where a glob or ``**``
stands for git's subcommand, it matches only one of git's built-in commands
(:func:`git_builtins`, which no alias can shadow): ``git *`` allows ``git
status`` and ``git log``, never ``git x/../../usr/bin/make``, ``git lfs``
or an alias. A subcommand the pattern spells out (``git lfs``) is the
user's choice and is matched as written.

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
from collections.abc import Sequence

from ._commands import _ASSIGNMENT, _GLOB, REST, command_words

__all__ = [
    "git_builtins",
    "git_subcommand",
    "pattern_holds_git_to_builtins",
    "runs_workspace_code",
    "workspace_code_note",
]


# git's options before the subcommand that take the next word as their value
# (git.c ``handle_options``); the others stand alone or carry ``=value``.
_GIT_VALUE_OPTIONS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
     "--config-env", "--shallow-file", "--attr-source"}
)  # fmt: skip
_GIT_LIST_TIMEOUT = 10.0
# git's options before the subcommand that change nothing of what runs; the
# others do (``-c``/``--config-env``: any configuration, a pager or an alias;
# ``--exec-path``: where git-WORD and helpers come from; ``-C``,
# ``--git-dir``, ``--work-tree``: another repository, with its configuration).
_GIT_HARMLESS_OPTIONS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs",
     "--no-literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
     "--icase-pathspecs", "--no-replace-objects", "--no-advice", "--no-lazy-fetch"}
)  # fmt: skip


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
    index += 1
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in _GIT_VALUE_OPTIONS else 1
    return index if index < len(words) else None


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


def pattern_holds_git_to_builtins(pattern: Sequence[str], words: Sequence[str]) -> bool:
    """Tell whether matched words keep git to its built-in commands where the pattern globs.

    Call it after :func:`match_words` succeeded for an allowing rule. When
    the words run git and the pattern word standing for the subcommand is a
    glob or the final ``**``, the subcommand must be built in
    (:func:`git_builtins`); a subcommand spelled out in the pattern is
    taken as written. git's own options before the subcommand that the
    final ``**`` covers must change nothing of what runs (``--no-pager``
    does; ``-c``, ``--config-env``, ``--exec-path``, ``-C``, ``--git-dir``
    do not: ``git -c core.pager=CMD log`` runs ``CMD``).

    Args:
        pattern: words from :func:`pattern_words`.
        words: words from :func:`command_words`.

    Returns:
        ``False`` when a glob would let git run a program, a path or an alias.

    """
    index = git_subcommand(words)
    if index is None:
        return True
    # Options before the subcommand that a final "**" covers were never written
    # by the user: only those that change nothing of what runs pass.
    fixed = len(pattern) - 1 if pattern and pattern[-1] == REST else len(pattern)
    program = next(i for i, w in enumerate(words) if not _ASSIGNMENT.match(w))
    for word in words[max(fixed, program + 1) : index]:
        if word not in _GIT_HARMLESS_OPTIONS:
            return False
    spelled = index < len(pattern) and pattern[index] != REST
    if spelled and not any(c in _GLOB for c in pattern[index]):
        return True  # the user named this subcommand
    return words[index] in git_builtins()


# Programs that run what the workspace holds (build files, scripts, tests),
# and what: a rule allowing them allows whatever the agent writes there.
_RUNS_WORKSPACE = {
    **dict.fromkeys(("npm", "pnpm", "yarn", "bun"), "the scripts of package.json"),
    "npx": "packages and package.json scripts",
    **dict.fromkeys(("make", "gmake"), "the Makefile"),
    "just": "the justfile",
    "rake": "the Rakefile",
    "ninja": "build.ninja",
    "cmake": "CMakeLists.txt",
    **dict.fromkeys(("pytest", "py.test"), "conftest.py and the tests"),
    "tox": "tox.ini and the tests",
    "nox": "noxfile.py",
    "cargo": "build.rs and the crate's code",
    "go": "the module's code (tests, go generate)",
    **dict.fromkeys(("gradle", "gradlew", "mvn", "ant", "sbt"), "the build files"),
    **dict.fromkeys(("node", "deno", "ruby", "perl", "php", "Rscript"), "scripts"),
    "uv": "the project's code",
    "poetry": "the project's code",
}
_PYTHON = re.compile(r"python[0-9.]*|pypy[0-9.]*")


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
