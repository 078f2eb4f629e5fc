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

What particular programs run (git's subcommands, the workspace's code) is
known to :mod:`._programs`, which rules consult after the words matched.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from fnmatch import fnmatchcase

__all__ = [
    "CommandKey",
    "command_key",
    "command_words",
    "is_system_shell",
    "match_words",
    "pattern_words",
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
      environment overrides must not set ``PATH``, and the lookup must find
      it in one of the directories below before any relative entry (``.``,
      an empty one), which the agent's working directory supplies: a host
      ``PATH`` starting with a workspace folder makes ``bash`` the agent's;
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
        if any(name == "PATH" for name, _value in env):
            return False
        found = _first_on_path(program)
        return found is not None and _in_system_dir(found)
    if not os.path.isabs(program):
        return False  # ./bash, tools/bash: relative to a directory the agent chose
    return _in_system_dir(program)


def _in_system_dir(program: str) -> bool:
    real = os.path.realpath(program)
    return os.path.dirname(real) in _system_dirs() and os.path.isfile(real)


def _first_on_path(name: str) -> str | None:
    """The file ``execvp`` runs for a bare name on the host's PATH; None past a relative entry."""
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not os.path.isabs(entry):
            return None  # relative to the command's directory: the agent's choice
        candidate = os.path.join(entry, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


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
