"""What a command runs, as words: the one view that rules and grants judge.

A command reaches the host in three spellings: an argv (``terminal/create``
with ``args``, or a tool call whose ``rawInput.command`` is a list), a shell
line (``terminal/create`` without ``args``, run by ``/bin/sh -c``, or a tool
call whose command is a string), or an argv that wraps a shell line
(``bash -c "git status"``). They are reduced to one form here:

* a shell line holding no shell syntax at all is split into words the way
  ``sh`` would split it (:func:`shell_words`); a line holding any (``;``,
  ``|``, ``$``, redirections, globbing, comments, ``~``, backslashes, control
  characters...) has no words: what it runs cannot be told without a shell;
* ``sh|bash|zsh|dash|ksh -c LINE`` is the words of ``LINE`` when the program
  is a real system shell (:func:`is_system_shell`): a bare name while the
  request's environment leaves ``PATH`` alone, or an absolute path whose real
  path lies in ``/bin``, ``/usr/bin`` or ``/usr/local/bin``. Any other
  program named ``bash`` (``/ws/tools/bash``, ``./sh``, ``bash`` with the
  agent's ``PATH``) is the agent's own program: its argv is what is judged
  and shown, never the line it claims to run. A login shell (``bash -lc
  LINE``, ``bash --login -c LINE``) is not unwrapped either: it first runs
  the user's profile, which is not the line;
* the environment overrides come first, as ``NAME=value`` words, the way a
  shell spells them (they can change what a program runs: ``PATH``,
  ``LD_PRELOAD``, ``GIT_CONFIG_*``).

Patterns (the ``command`` of a permission rule) are split into words the same
way and matched word by word (:func:`match_words`):

* a pattern word matches exactly one word; ``*``, ``?`` and ``[...]`` are
  globs *within* that word (fnmatch, case-sensitive);
* a glob never matches an option (a word starting with ``-``) unless the
  pattern word starts with ``-`` itself, and never an assignment word
  (``NAME=value``, the environment): options and the environment that a
  command runs with must be spelled out. So ``git *`` allows ``git status``
  but not ``git -c alias.x='!sh' x`` nor ``git --exec-path=/tmp x``;
* a last pattern word ``**`` matches any further words, options included.

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
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from fnmatch import fnmatchcase

__all__ = [
    "CommandKey",
    "command_key",
    "command_words",
    "git_builtins",
    "git_subcommand",
    "is_system_shell",
    "match_words",
    "pattern_holds_git_to_builtins",
    "pattern_words",
    "runs_workspace_code",
    "workspace_code_note",
    "shell_line_of",
    "shell_words",
]

# Characters that make a shell line more than words: separators, pipes,
# substitutions, redirections, globbing (a file named "-c..." would become an
# option), brace and tilde expansion, comments, quoting by backslash.
_SHELL_SYNTAX = frozenset(";&|`$<>()*?[]{}~#\\")
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh"})
# ``-c`` with only options that leave the words of the line as they are:
# errexit, xtrace, nounset, noglob. Others change what a word means (``-k``
# makes any ``NAME=value`` word an environment assignment, so
# ``bash -kc 'git status GIT_CONFIG_PARAMETERS=...'`` would run git with the
# agent's configuration) or run more than the line (``-l``, a login shell,
# first sources ``~/.bash_profile`` or ``~/.profile``, which a workspace in
# the home directory lets the agent write; ``-i`` sources ``~/.bashrc``):
# such a line has no words, and only an exact ``"shell": true`` rule can
# match it.
# Where a real shell lives. A workspace never covers these in practice; one
# that did would let the agent replace ``git`` itself there, so a shell found
# there is no weaker than a bare ``git`` a rule allows.
_SYSTEM_BIN = ("/bin", "/usr/bin", "/usr/local/bin")
_SHELL_FLAG = re.compile(r"-[exuf]*c[exuf]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_GLOB = frozenset("*?[")
REST = "**"
"""The pattern word that matches every further word."""

CommandKey = tuple[tuple[str, ...], tuple[str, ...] | str]
"""A command's identity: its environment words and its words (or its shell line)."""


def _has_syntax(line: str) -> bool:
    return any(c in _SHELL_SYNTAX or (c < " " and c != "\t") or c == "\x7f" for c in line)


def shell_words(line: str) -> tuple[str, ...] | None:
    """Split a shell line into the words ``sh`` would run, if it has no shell syntax.

    Args:
        line: the shell line.

    Returns:
        The words (quotes removed), or ``None`` when the line holds shell
        syntax (see the module docstring) or unbalanced quotes.

    """
    if _has_syntax(line):
        return None
    try:
        return tuple(shlex.split(line))
    except ValueError:
        return None


def is_system_shell(program: str, env: Sequence[tuple[str, str]] = ()) -> bool:
    """Tell whether ``program`` runs a real system shell, not one of the agent's.

    A shell's name is no proof: ``/ws/tools/bash -c 'git status'`` runs the
    agent's own program, which may ignore its line. So only these count:

    * a bare name (``bash``) looked up in the host's ``PATH``: the
      environment overrides must not set ``PATH``;
    * an absolute path whose real path (symbolic links resolved) is a
      regular file in ``/bin``, ``/usr/bin`` or ``/usr/local/bin``.

    Args:
        program: the program of an argv (``argv[0]``).
        env: the environment overrides the command runs with.

    Returns:
        ``True`` for a real shell (the name must also be a shell's).

    """
    if os.path.basename(program) not in _SHELLS:
        return False
    if "/" not in program:
        return not any(name == "PATH" for name, _value in env)
    if not os.path.isabs(program):
        return False  # ./bash, tools/bash: relative to a directory the agent chose
    real = os.path.realpath(program)
    return os.path.dirname(real) in _system_dirs() and os.path.isfile(real)


def _system_dirs() -> frozenset[str]:
    # /bin is a link to /usr/bin on merged-usr systems: compare real paths.
    return frozenset(os.path.realpath(d) for d in _SYSTEM_BIN)


def _unwrap(argv: Sequence[str], env: Sequence[tuple[str, str]] = ()) -> str | None:
    """The shell line of ``[sh, -c, LINE]`` run by a real shell, or ``None``."""
    if len(argv) != 3:
        return None
    program, flag, line = argv
    if not _SHELL_FLAG.fullmatch(flag) or not is_system_shell(program, env):
        return None
    return line


def shell_line_of(
    argv: Sequence[str] | None,
    shell_line: str | None,
    env: Sequence[tuple[str, str]] = (),
) -> str | None:
    """The shell line a command runs: the line itself, or the one ``sh -c`` wraps.

    Args:
        argv: the argv, when the command is one.
        shell_line: the shell line, when the command is one.
        env: the environment overrides (a ``PATH`` among them makes a bare
            ``sh`` the agent's choice, see :func:`is_system_shell`).

    Returns:
        The line, or ``None`` for an argv that is not a real shell wrapper.

    """
    if shell_line is not None:
        return shell_line
    return _unwrap(argv, env) if argv is not None else None


def command_words(
    argv: Sequence[str] | None,
    shell_line: str | None,
    env: Sequence[tuple[str, str]] = (),
) -> tuple[str, ...] | None:
    """Reduce a command to the words it runs (see the module docstring).

    Args:
        argv: the argv, when the command is one.
        shell_line: the shell line, when the command is one.
        env: the environment overrides, in order.

    Returns:
        ``NAME=value`` words for the environment, then the program and its
        arguments; ``None`` when there is no command or a shell line holds
        shell syntax.

    """
    line = shell_line_of(argv, shell_line, env)
    if line is not None:
        words = shell_words(line)
    elif argv is not None:
        words = tuple(argv)
    else:
        return None
    if words is None or not words:
        return None
    return tuple(f"{name}={value}" for name, value in env) + words


def command_key(
    argv: Sequence[str] | None,
    shell_line: str | None,
    env: Sequence[tuple[str, str]] = (),
) -> CommandKey | None:
    """Identify a command so that two spellings of the same one compare equal.

    ``git status`` as a shell line, as the argv ``["git", "status"]`` and as
    ``bash -c "git status"`` have one key; a line with shell syntax keeps
    its exact text. The environment is part of the key.

    Args:
        argv: the argv, when the command is one.
        shell_line: the shell line, when the command is one.
        env: the environment overrides, in order.

    Returns:
        The key, or ``None`` when there is no command.

    """
    env_words = tuple(f"{name}={value}" for name, value in env)
    words = command_words(argv, shell_line, env)
    if words is not None:
        return env_words, words[len(env_words) :]
    line = shell_line_of(argv, shell_line, env)
    if line is not None and line.strip():
        return env_words, line.strip()
    if argv:
        return env_words, tuple(argv)
    return None


def pattern_words(pattern: str) -> tuple[str, ...]:
    """Split a rule's ``command`` pattern into words, as a command is split.

    Quotes group words (``"GREETING='hello there' printenv *"``); a
    ``sh -c 'LINE'`` pattern is the words of ``LINE``.

    Args:
        pattern: the pattern as written in the rules file.

    Returns:
        The pattern words.

    Raises:
        ValueError: unbalanced quotes, an empty pattern, or ``**`` anywhere
            but last.

    """
    try:
        words = tuple(shlex.split(pattern))
        line = _unwrap(words)
        if line is not None:
            words = tuple(shlex.split(line))
    except ValueError:
        raise ValueError(f"the command pattern {pattern!r} has unbalanced quotes") from None
    if not words:
        raise ValueError("the command pattern is empty")
    if REST in words[:-1]:
        raise ValueError("'**' may only be the last word of a command pattern")
    return words


def _word_matches(pattern: str, word: str, *, leading: bool) -> bool:
    if not any(c in _GLOB for c in pattern):
        return pattern == word
    if word.startswith("-") and not pattern.startswith("-"):
        return False
    if leading and _ASSIGNMENT.match(word):
        return False
    return fnmatchcase(word, pattern)


def match_words(pattern: Sequence[str], words: Sequence[str]) -> bool:
    """Tell whether a command's words match a pattern's (see the module docstring).

    Args:
        pattern: words from :func:`pattern_words`.
        words: words from :func:`command_words`.

    Returns:
        ``True`` on a match.

    """
    fixed = pattern[:-1] if pattern and pattern[-1] == REST else pattern
    if len(words) < len(fixed) or (fixed is pattern and len(words) != len(fixed)):
        return False
    leading = True
    for want, word in zip(fixed, words, strict=False):
        if not _word_matches(want, word, leading=leading):
            return False
        leading = leading and bool(_ASSIGNMENT.match(word))
    return True


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
