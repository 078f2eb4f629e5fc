"""Which program a command's words run, and what a rule's globs may stand for in them.

A rule judges what will run. After a rule's words matched a command's
(:func:`~._commands.match_words`), an allow or ask rule still holds only if
:func:`pattern_holds_what_runs` says so:

* **The program.** A glob (or ``**``) standing for the program matches only
  a bare name found on ``PATH`` outside the workspace: never a path
  (``./git``, ``sub/git``, ``/ws/git`` must be spelled out in the rule), never
  a name that is not found, and never one whose lookup meets, before it finds
  the program, a directory the agent can write: an entry inside the
  workspace, ``.``, an empty or any relative entry (relative to the
  command's directory). A bare name the rule spells out (``git``) is not
  matched when the file found is the agent's. The ``PATH`` is the one the
  command will run with: an override in its environment (a
  ``terminal/create`` ``env``, a ``PATH=...`` word), else the host's. An
  agent's own tool call runs with the agent's environment, which the host
  cannot see; its command is judged with the host's ``PATH``.
* **Programs that run a program** (``env``, ``nice``, ``nohup``,
  ``timeout``, ``stdbuf``, ``setsid``, ``ionice``, ``time``, ``xargs``,
  ``sudo``, ``doas``): the program they run is judged as above, with the
  environment ``env`` or ``sudo`` gives it; their options that a final
  ``**`` covers, and ``NAME=value`` words a glob stands for, must be
  spelled in the rule; ``env -S`` (one word split into many) only matches a
  rule spelling every word after it.
* **Programs that dispatch their subcommands** (``git``, ``cargo``,
  ``kubectl``...; :data:`~._programs.DISPATCHERS`): a glob standing for the
  subcommand matches only a built-in one, and options before it that ``**``
  covers must change nothing of what runs.

A reject rule is not held to any of this: it errs on the side of matching.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from ._commands import _ASSIGNMENT, _GLOB, REST
from ._programs import (
    DISPATCHERS,
    _set,
    builtins,
    harmless_option,
    runs_workspace_program,
    subcommand_index,
    takes_value,
)

__all__ = ["Lookup", "lookup_program", "pattern_holds_what_runs"]


@dataclass(frozen=True, slots=True)
class Lookup:
    """Where a bare program name leads on a ``PATH``.

    Attributes:
        found: the file that would run, or ``None``.
        passes_workspace: the lookup meets a directory the agent can write
            (inside the workspace, or relative) before or where it finds the
            program.
        agents: the file found lies where the agent can write (or cannot be
            told: a relative entry with no known directory).

    """

    found: str | None
    passes_workspace: bool
    agents: bool


def lookup_program(
    name: str, path: str | None, *, cwd: str | None, workspace: Sequence[str]
) -> Lookup:
    """Find a bare program name the way ``execvp`` would, and say whose it is.

    Args:
        name: the program's name (no ``/``).
        path: the ``PATH`` the command runs with; ``None``: the host's
            (``os.defpath`` when the host has none).
        cwd: the command's working directory (relative entries are relative
            to it), when known.
        workspace: the canonical workspace roots.

    Returns:
        The lookup.

    """
    if path is None:
        path = os.environ.get("PATH", os.defpath)
    passes = False
    for entry in path.split(os.pathsep):
        if os.path.isabs(entry):
            directory: str | None = entry
            writable = _inside(os.path.realpath(entry), workspace)
        else:  # "", ".", "bin": the directory the command starts in
            directory = os.path.join(cwd, entry) if cwd is not None else None
            writable = True
        passes = passes or writable
        if directory is None:
            return Lookup(None, True, True)  # cannot tell what is there
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            agents = writable or _inside(os.path.realpath(candidate), workspace)
            return Lookup(candidate, passes or agents, agents)
    return Lookup(None, passes, False)


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


@dataclass(frozen=True, slots=True)
class _Runner:
    """A program whose arguments are another command."""

    value_options: frozenset[str] = frozenset()
    positionals: int = 0  # words before the command (timeout's DURATION)
    assignments: bool = False  # NAME=value words set the command's environment
    opaque: frozenset[str] = frozenset()  # options after which the command cannot be told


_RUNNERS = {
    "env": _Runner(
        _set("-u --unset -C --chdir"), assignments=True, opaque=_set("-S --split-string")
    ),
    "nice": _Runner(_set("-n --adjustment")),
    "nohup": _Runner(),
    "setsid": _Runner(),
    "timeout": _Runner(_set("-k --kill-after -s --signal"), positionals=1),
    "stdbuf": _Runner(_set("-i -o -e --input --output --error")),
    "ionice": _Runner(_set("-c --class -n --classdata")),
    "time": _Runner(_set("-f --format -o --output")),
    "xargs": _Runner(
        _set("-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars")
    ),
    "sudo": _Runner(
        _set(
            "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role "
            "-t --type -T --command-timeout -U --other-user -R --chroot"
        ),
        assignments=True,
    ),
    "doas": _Runner(_set("-u -C")),
}


@dataclass(frozen=True, slots=True)
class _Judge:
    pattern: Sequence[str]
    words: Sequence[str]
    fixed: int  # pattern words before a final "**"
    cwd: str | None
    workspace: Sequence[str]

    def covered(self, index: int) -> bool:
        """The final ``**`` stands for this word: the user never wrote it."""
        return index >= self.fixed

    def globbed(self, index: int) -> bool:
        """A glob or the final ``**`` stands for this word."""
        return self.covered(index) or any(c in _GLOB for c in self.pattern[index])

    def holds(self, start: int, path: str | None) -> bool:
        """Judge the command whose program is ``words[start]``, run with ``PATH`` ``path``."""
        if start >= len(self.words):
            return True
        program = self.words[start]
        if "/" in program:
            if self.globbed(start):
                return False  # a path is never a glob's: the rule must spell it
        else:
            found = lookup_program(program, path, cwd=self.cwd, workspace=self.workspace)
            if found.agents:
                return False  # the agent's program, whatever the rule calls it
            if self.globbed(start) and (found.found is None or found.passes_workspace):
                return False
        if self.globbed(start) and runs_workspace_program(os.path.basename(program)):
            # A program that runs the workspace's build files or scripts runs what
            # the agent wrote: a glob never stands for one, the rule must name it.
            return False
        name = os.path.basename(program)
        if name in _RUNNERS:
            return self.runner(start, _RUNNERS[name], path)
        if name in DISPATCHERS:
            return self.dispatcher(start)
        return True

    def runner(self, start: int, runner: _Runner, path: str | None) -> bool:
        words = self.words
        index = start + 1
        while index < len(words):
            word = words[index]
            if word == "--":
                if self.covered(index):
                    return False
                index += 1
                break
            if word.startswith("-") and word != "-":
                if any(word.startswith(o) for o in runner.opaque):
                    # The command is inside one word: only a rule spelling it all holds.
                    return not any(self.globbed(i) for i in range(index, len(words)))
                if self.covered(index):
                    return False  # an option "**" stands for
                index += 2 if word in runner.value_options else 1
                continue
            if runner.assignments and _ASSIGNMENT.match(word):
                if self.globbed(index):
                    return False  # the environment a glob stands for
                if word.startswith("PATH="):
                    path = word[len("PATH=") :]
                index += 1
                continue
            break
        return self.holds(index + runner.positionals, path)

    def dispatcher(self, start: int) -> bool:
        program = self.words[start]
        sub = subcommand_index(self.words, start)
        end = sub if sub is not None else len(self.words)
        index = start + 1
        while index < end:
            # Options before the subcommand that "**" covers were never written
            # by the user: only those that change nothing of what runs pass.
            word = self.words[index]
            step = 2 if takes_value(program, word) else 1
            covered = self.covered(index) or (step == 2 and self.covered(index + 1))
            if covered and not harmless_option(program, word):
                return False
            index += step
        if sub is None or not self.globbed(sub):
            return True  # no subcommand, or the one the user named
        return self.words[sub] in (builtins(program) or frozenset())


def pattern_holds_what_runs(
    pattern: Sequence[str],
    words: Sequence[str],
    *,
    cwd: str | None = None,
    workspace: Sequence[str] = (),
) -> bool:
    """Tell whether matched words run only what the rule's globs may stand for.

    Call it after :func:`~._commands.match_words` succeeded for an allow or
    ask rule (see the module docstring).

    Args:
        pattern: words from :func:`~._commands.pattern_words`.
        words: words from :func:`~._commands.command_words` (environment first).
        cwd: the command's working directory, when known.
        workspace: the canonical workspace roots; without them, only
            relative ``PATH`` entries count as the agent's.

    Returns:
        ``False`` when a glob would let the command run a program the agent
        wrote, a path, a plugin, an alias or a script.

    """
    fixed = len(pattern) - 1 if pattern and pattern[-1] == REST else len(pattern)
    judge = _Judge(pattern, words, fixed, cwd, tuple(workspace))
    start = 0
    path: str | None = None
    while start < len(words) and _ASSIGNMENT.match(words[start]):
        if words[start].startswith("PATH="):
            path = words[start][len("PATH=") :]
        start += 1
    return judge.holds(start, path)
