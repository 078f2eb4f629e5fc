"""The files git's effective configuration turns into code, asked of git itself.

A folder named ``.git`` is not all of git's metadata. The configuration
names more: ``core.hooksPath`` moves the hooks (``.githooks/pre-commit``
runs on the user's next commit), ``init.templateDir`` names hooks every new
repository copies, the keys that hold a command (``core.fsmonitor``,
``core.pager``, ``diff.<driver>.textconv``, ``filter.<driver>.process``,
``alias.<name> = !…``, ``remote.<name>.uploadpack``... :data:`_COMMAND_KEY`)
may name a script in the working tree, ``include.path`` and
``includeIf.<condition>.path`` make another file configuration (existing
or not yet: the agent could create it), and a ``.git`` file (``gitdir:
…``, worktrees and submodules) puts the git directory anywhere. These are
read from git's own answer, never parsed by hand: ``git config
--show-origin --list`` (every scope, includes followed, each entry with the
file it came from; every include target is also read on its own, ``git
config -f``, whatever its condition: a branch switch makes it active)
and ``git rev-parse`` (the git directories, the top of the working
tree), run with the host's environment, bounded in time, with
``core.fsmonitor`` off. Neither command runs a hook or a configured
program.

A command is shell code, judged without running it: every word of it
(between blanks, shell syntax, ``=`` and ``:``, quotes removed) counts as a
path, whether or not a file has that name yet, resolved against every
folder git may run it in (the top of the working tree, the git directory,
the folder asked, the configuration file's folder) and against the folder
each ``cd`` in it moves to. That protects some names that are no file of
the command's (``$top/python3``), never fewer than it runs. A word the
shell expands (``$X``, ``$(...)``, a backquote, ``~+``, ``{a,b}``) or
globs (``*?[``) is unknown until it runs: it protects the literal folder
before its first expansion (``checks/*.sh``: ``checks/``), or, when its
first name is already expanded, every path of that shape
(``"$(git rev-parse --show-toplevel)/tools/clean.sh"``: every
``tools/clean.sh``). A word that is an expansion and nothing else
(``"$f"``) names nothing that can be located and protects nothing.

When git cannot answer (it is missing, fails on a malformed configuration,
or takes longer than :data:`_TIMEOUT`) inside a repository, the answer
says so, and the caller refuses every write the configuration could
have named (fail closed).

The answer is cached per folder and asked again as soon as one of the files
it came from (or could come from: the repository's ``config`` and
``config.worktree``, the user's ``~/.gitconfig``, the include targets, the
folder's ``.git``) changes, so a change made during a run (an allowed
``git config core.hooksPath x``) protects the new place at the next request.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import stat
import subprocess
from collections.abc import Iterable
from typing import NamedTuple

from .._infile import InputFileError, read_input

__all__ = ["GitAreas", "git_config_areas"]

_TIMEOUT = 5.0
# What git says (setup.c) in a folder that is no repository, nor inside one.
_NOT_A_REPOSITORY = "not a git repository"
_GITFILE_BYTES = 4096
_BOOLEAN = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
# Keys whose value is a command git runs, or the path of a program it runs
# (git-config(1), git-archive(1), git-interpret-trailers(1),
# git-send-email(1), git-lfs-config(5)): every word of the value is taken
# for a path (see _command_paths). ``core.fsmonitor`` and ``pager.<cmd>`` may also be
# booleans; ``submodule.<name>.update`` is a command only with a leading
# ``!``; URLs only with the ``ext::`` transport (a command). Every alias is
# one: without ``!`` it is a git command line, and git commands run
# programs their arguments name (``rebase -x``, ``difftool -x``, ``grep
# -O``, ``bisect run``, ``submodule foreach``).
_COMMAND_KEY = re.compile(
    r"core\.(?:fsmonitor|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|interactive\.difffilter"
    r"|gpg\.(?:[^.]+\.)?program|gpg\.ssh\.defaultkeycommand"
    r"|credential\.(?:.+\.)?helper|alias\..+|pager\..+"
    r"|diff\..+\.(?:textconv|command)|merge\..+\.driver"
    r"|filter\..+\.(?:clean|smudge|process)"
    r"|(?:difftool|mergetool|man|browser)\..+\.(?:cmd|path)"
    r"|guitool\..+\.cmd|trailer\..+\.(?:command|cmd)|tar\..+\.command"
    r"|sendemail\.(?:.+\.)?(?:sendmailcmd|smtpserver|tocmd|cccmd|headercmd)"
    r"|remote\..+\.(?:uploadpack|receivepack|url|pushurl)|submodule\..+\.(?:update|url)"
    r"|web\.browser|man\.viewer|help\.browser|instaweb\.(?:httpd|browser|modulepath)"
    r"|imap\.tunnel|uploadpack\.packobjectshook"
    # git-lfs (git-lfs-config(5)): a custom transfer agent, an extension's filters.
    r"|lfs\.customtransfer\..+\.path|lfs\.extension\..+\.(?:clean|smudge)"
)
# Keys naming a folder whose content git runs: the hooks, and the template
# folder whose ``hooks/`` every ``git init`` and ``git clone`` copies.
_FOLDER_KEY = frozenset({"core.hookspath", "init.templatedir"})
_INCLUDE_KEY = re.compile(r"include\.path|includeif\..+\.path")
# Include targets read whatever their condition (_included): git's own
# nesting limit (config.c: MAX_INCLUDE_DEPTH), and a bound on their number.
_MAX_INCLUDE_DEPTH = 10
_MAX_INCLUDES = 64
# url.<base>.insteadOf: the base replaces the URL, and an ext:: base is a command.
_URL_BASE = re.compile(r"url\.(.+)\.(?:insteadof|pushinsteadof)")

# The hooks git runs (githooks(5)): where core.hooksPath is the working tree
# itself (``core.hooksPath = .``), only these names in it are protected, not
# every file of the workspace.
_HOOKS = ("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
          "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
          "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive",
          "update", "proc-receive", "post-receive", "post-update",
          "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
          "sendemail-validate", "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
          "p4-post-changelist", "p4-pre-submit", "post-index-change")  # fmt: skip


class GitAreas(NamedTuple):
    """What git's configuration, seen from one folder, makes protected.

    Attributes:
        paths: canonical absolute paths (files, or folders protecting
            everything below them).
        problem: why git could not be asked (it is missing, failed or took
            too long), or None: when set, ``paths`` is incomplete and the
            caller must fail closed.
        patterns: absolute :mod:`fnmatch` patterns (``*`` also spans
            ``/``) of the paths a command's expanded or globbed words may
            name: a path matching one, or below one that does, is protected.

    """

    paths: tuple[str, ...]
    problem: str | None = None
    patterns: tuple[str, ...] = ()


# folder -> (the files the answer came from, their signature, the areas)
_cache: dict[str, tuple[tuple[str, ...], tuple[object, ...], GitAreas]] = {}


class _GitFailed(Exception):
    """git could not answer (the message says why).

    ``refused`` is true when git ran and exited with an error (rather than
    being missing or too slow).
    """

    def __init__(self, message: str, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


def _git(directory: str, *args: str, partial: int = 0) -> str:
    """Run ``git -C directory ARGS`` for its output.

    Args:
        directory: where git runs.
        args: its arguments.
        partial: a failing run still answers when it printed this many lines
            (``rev-parse`` prints what it knows before failing on
            ``--show-toplevel`` in a bare repository).

    Raises:
        _GitFailed: git is missing, timed out or failed.

    """
    git = shutil.which("git")
    if git is None:
        raise _GitFailed("git is not installed (not found on PATH)")
    # English messages: a refusal is told apart by git's words (_not_a_repository).
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    env.pop("LANGUAGE", None)
    try:
        # safe.directory=*: git refusing a repository owned by another user
        # (safe.directory) would hide its configuration, which still runs for
        # its owner; these queries run nothing of it (fsmonitor off, no hook).
        done = subprocess.run(
            [git, "-c", "core.fsmonitor=false", "-c", "safe.directory=*", "-C", directory, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_TIMEOUT,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _GitFailed(f"git {args[0]} took more than {_TIMEOUT:g} s") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise _GitFailed(f"git could not run: {exc}") from None
    out = done.stdout.decode("utf-8", "surrogateescape")
    if done.returncode != 0 and (not partial or len(out.splitlines()) < partial):
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[0] if said else f"exit status {done.returncode}"
        raise _GitFailed(f"git {args[0]} failed: {why}", refused=True)
    return out


def _signature(paths: Iterable[str]) -> tuple[object, ...]:
    out: list[object] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append((path, None))
        else:
            out.append((path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def _entries(listing: str) -> list[tuple[str, str, str]]:
    """``(origin file, key, value)`` from ``config -z --show-origin --list``.

    The key keeps its case: a subsection (``url.<base>``) is case-sensitive.
    """
    fields = listing.split("\0")
    out = []
    for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = entry.partition("\n")
        where = origin[len("file:") :] if origin.startswith("file:") else ""
        out.append((where, key, value))
    return out


def _command(key: str, value: str) -> str | None:
    """The shell command (or program path) a configuration entry holds, or None."""
    lower = key.lower()
    base = _URL_BASE.fullmatch(key)
    if base is not None:
        return base.group(1) if base.group(1).lower().startswith("ext::") else None
    if not _COMMAND_KEY.fullmatch(lower):
        return None
    if (lower == "core.fsmonitor" or lower.startswith("pager.")) and value.lower() in _BOOLEAN:
        return None  # the built-in daemon; the pager on or off
    if lower.startswith("submodule.") and lower.endswith(".update"):
        # An update mode without "!" is git's own word (checkout, rebase...).
        return value if value.startswith("!") else None
    if lower.startswith("alias.") and not value.startswith("!"):
        # A git command line: its subcommand (``log``, ``diff``) is no path,
        # only the rest may name a program (``rebase -x ./check.sh``).
        first, _, rest = value.strip().partition(" ")
        return value if first.startswith("-") else rest
    if lower.endswith("url"):  # remote.<name>.url and .pushurl, submodule.<name>.url
        return value if value.lower().startswith("ext::") else None
    return value


# Shell syntax around words (separators, redirections, grouping, expansions,
# quotes) and the "=" and ":" of options and lists (``-oProxyCommand=./x``,
# ``PATH=bin:$PATH``): a word of a command is what lies between them.
_SHELL_SPLIT = re.compile(r"[\s;&|()<>`{}=,:$'\"\\!]+")
# Words after which the next one is a folder the rest runs in.
_CHDIR = frozenset({"cd", "pushd", "-C", "--git-dir", "--work-tree"})


def _words(command: str) -> list[str]:
    """Every word a command could use as a path, in order (a generous superset).

    The shell's own words (``shlex``: quoted names with blanks) and the
    pieces between shell syntax; ``$HOME`` and a leading ``~`` expanded; an
    option glued to its value (``-F./ssh_config``) also gives the value.
    """
    home = os.environ.get("HOME") or os.path.expanduser("~")
    command = re.sub(r"\$\{?HOME\}?", lambda _: home, command)
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        words = []
    words += [w for w in _SHELL_SPLIT.split(command) if w]
    out: list[str] = []
    for word in words:
        kept = word
        if word.startswith("-") and word not in _CHDIR:
            kept = word.lstrip("-")[1:] if "/" in word else ""
        if kept:
            out.append(os.path.expanduser(kept))
    return out


def _command_paths(command: str, bases: list[str]) -> tuple[list[str], list[str]]:
    """The paths a command may run or read: each word against each base.

    A command is shell code judged without running it, so every word counts
    (``python3 conv.py`` runs ``conv.py``; a word that names no file yet may
    be created), resolved against every folder git may run it in, and
    against the folder each ``cd X`` moves to (X itself is not protected).

    Returns:
        The paths, and the patterns (:func:`_expansion_patterns`) of the
        words the shell would expand.

    """
    words = _words(command)
    roots = list(bases)
    folders: set[str] = set()
    for before, after in itertools.pairwise(words):
        if before in _CHDIR:
            folders.add(after)
            roots += [os.path.join(b, after) for b in bases]
    paths = [
        os.path.join(base, word)
        for word in words
        if word not in _CHDIR and word not in folders
        for base in roots
    ]
    patterns: list[str] = []
    for folder, pattern, anywhere in _expansion_patterns(command):
        if folder:
            paths += [os.path.join(base, folder) for base in roots]
        else:
            patterns += [pattern] if anywhere else [os.path.join(b, pattern) for b in roots]
    return list(dict.fromkeys(paths)), list(dict.fromkeys(patterns))


# What the shell replaces in a word before running it: the output of
# $(...) and `...` (the command inside is judged word by word, _words),
# parameters ($X, ${X}, $1, $@...), ~+ and ~- ($PWD, $OLDPWD) and brace
# expansion ({a,b}, {1..3}).
_SUBSTITUTION = re.compile(r"\$\([^()]*\)|`[^`]*`")
_EXPANSION = re.compile(
    r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|(?<![^\s=:])~[+-]"
    r"|\{[^\s{}]*(?:,|\.\.)[^\s{}]*\}"
)
_MAX_NESTING = 8
_MARK = "\0"  # an expansion, in a word being turned into a pattern
_GLOB_CHARS = re.compile(r"[*?\[]")
# Between the words of a command once expansions are marked: blanks, shell
# syntax, quotes, the start of a command substitution, "=" and ":".
_PATTERN_SPLIT = re.compile(r"[\s;&|<>'\"\\=:,(]+|\$\(")
# A pattern must keep a name: "$X" or "$f/*" alone names nothing to locate.
_LITERAL = re.compile(r"[^*?\[\]/.\0-]")


def _expansion_patterns(command: str) -> list[tuple[str, str, bool]]:
    """The words of ``command`` the shell expands or globs, as areas to protect.

    Such a word names no one path: what it expands to is unknown until it
    runs. Each gives either a folder (relative to a base): the literal
    folders before the first expansion or wildcard (``tools/$X.sh``,
    ``checks/*.sh``: the whole folder); or, when the first name is already
    expanded, a pattern (:mod:`fnmatch`, ``*`` also spanning ``/``): a
    leading expansion's pattern matches anywhere (``$(git rev-parse
    --show-toplevel)/tools/clean.sh`` is ``*/tools/clean.sh``), another is
    relative to a base (``*.sh``). A word with no name of its own (``"$f"``,
    ``$X/*``) names nothing that can be located and gives nothing.

    Returns:
        ``(folder, "", False)`` or ``("", pattern, anywhere)`` for each word.

    """
    marked = command
    for _ in range(_MAX_NESTING):  # innermost substitutions first
        marked, count = _SUBSTITUTION.subn(_MARK, marked)
        if not count:
            break
    marked = _EXPANSION.sub(_MARK, marked)
    out: list[tuple[str, str, bool]] = []
    for word in _PATTERN_SPLIT.split(marked):
        first = next((m.start() for m in re.finditer(f"{_MARK}|[*?[]", word)), None)
        if first is None or not _LITERAL.search(word):
            continue
        folder = os.path.expanduser(word[:first].rpartition("/")[0])
        if folder.strip("/."):
            out.append((folder, "", False))
        else:
            pattern = re.sub(f"{_MARK}+", "*", word)
            out.append(("", pattern, word.startswith(_MARK)))
    return out


def git_config_areas(directory: str, repository: bool = True) -> GitAreas:
    """The paths git's configuration, as seen from ``directory``, runs or reads as configuration.

    Args:
        directory: a folder (a workspace root, or a repository inside one).
        repository: whether ``directory`` is known to be in a repository (it
            or a folder above holds a ``.git`` or is a bare one): then git
            failing to tell is a problem, not the sign of a plain folder.

    Returns:
        The git directories, the hooks folder (``core.hooksPath``) and the
        template folder, the files named by command-valued keys, the
        configuration files read and every include target; with the problem
        when git could not be asked (never cached: asked again next time).

    """
    cached = _cache.get(directory)
    if cached is not None and _signature(cached[0]) == cached[1]:
        return cached[2]
    try:
        areas, deps, patterns = _ask_git(directory, repository)
    except _GitFailed as exc:
        # Outside every repository git's configuration runs nothing here, nor
        # behind a ``.git`` file git refuses (no git command works there).
        dead = exc.refused and _dead_gitfile(directory)
        return GitAreas((), str(exc) if repository and not dead else None)
    answer = GitAreas(areas, patterns=patterns)
    _cache[directory] = (deps, _signature(deps), answer)
    return answer


def _ask_git(
    directory: str, repository: bool, others: bool = True
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Ask git; return the areas, the files whose change must ask again, the patterns.

    With ``others``, the repository's other worktrees are asked too, where
    they are (even outside the workspace): a worktree's own configuration
    (``config.worktree``) may name a path of this one's workspace.
    """
    deps = [os.path.join(directory, ".git")]
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    deps += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        deps.append(os.environ["GIT_CONFIG_GLOBAL"])
    # Outside a repository (a plain workspace root) rev-parse fails, and only
    # the user's and the system's configuration is there to list; a
    # configuration git cannot read fails this listing.
    listing = _git(directory, "config", "-z", "--show-origin", "--list")
    try:
        lines = _git(
            directory,
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
            "--is-bare-repository",
            "--show-toplevel",
            partial=3,
        ).splitlines()
    except _GitFailed as exc:
        # A folder git does not take for a repository (a stray ``.git``
        # folder) or behind a ``.git`` file naming nothing runs nothing of a
        # configuration there; any other refusal (an unsupported format, a
        # configuration git cannot read), git missing or too slow, tells
        # nothing of what the configuration names.
        if repository and not (
            exc.refused and (_NOT_A_REPOSITORY in str(exc) or _dead_gitfile(directory))
        ):
            raise
        lines = []
    git_dirs = [d for d in lines[:2] if os.path.isabs(d)]
    top = lines[3] if len(lines) > 3 and os.path.isabs(lines[3]) else None
    found: list[str] = list(git_dirs)
    folders: list[str] = []
    patterns: list[str] = []
    if top is not None:
        deps.append(os.path.join(top, ".git"))
    for git_dir in git_dirs:
        deps += [os.path.join(git_dir, "config"), os.path.join(git_dir, "config.worktree")]
    # Where git resolves a relative path: hooks and commands run at the top of
    # the working tree (in a bare repository, its git directory).
    bases = [b for b in (top, *git_dirs[:1], directory) if b]
    entries = [(where, key, value, 0) for where, key, value in _entries(listing)]
    read: set[str] = set()
    while entries:
        where, key, value, depth = entries.pop(0)
        origin = os.path.join(bases[0], where) if where else ""
        if origin:
            found.append(origin)
            deps.append(origin)
        lower = key.lower()
        command = _command(key, value)
        if _INCLUDE_KEY.fullmatch(lower) and value:
            target = os.path.expanduser(value)
            if origin and not os.path.isabs(target):
                target = os.path.join(os.path.dirname(origin), target)
            found.append(target)
            deps.append(target)
            if depth < _MAX_INCLUDE_DEPTH and len(read) < _MAX_INCLUDES and target not in read:
                read.add(target)
                entries += [(*e, depth + 1) for e in _included(directory, target)]
        elif lower in _FOLDER_KEY and value:
            folders += [os.path.join(b, os.path.expanduser(value)) for b in bases]
        elif command is not None:
            # Also the configuration file's folder: a relative word there is
            # what the user meant when writing it.
            places = bases + ([os.path.dirname(origin)] if origin else [])
            named, expanded = _command_paths(command.removeprefix("!"), places)
            found += named
            patterns += expanded
    areas = [os.path.realpath(p) for p in found if os.path.isabs(p)]
    for folder in (os.path.realpath(h) for h in folders if os.path.isabs(h)):
        if _holds(folder, directory):
            areas += [os.path.join(folder, name) for name in _HOOKS]
            areas.append(os.path.join(folder, "hooks"))  # the template's hooks
        else:
            areas.append(folder)
    # A path that holds the folder asked about (``./``, ``~``) cannot be protected
    # whole without refusing every write of the workspace.
    kept = [a for a in areas if not _holds(a, directory)]
    if others and len(git_dirs) > 1:
        deps.append(os.path.join(git_dirs[1], "worktrees"))  # a worktree added or removed
        for worktree in _worktrees(directory):
            if worktree not in (top, directory) and os.path.isdir(worktree):
                more, more_deps, more_patterns = _ask_git(worktree, True, others=False)
                kept += more
                deps += more_deps
                patterns += more_patterns
    return tuple(dict.fromkeys(kept)), tuple(dict.fromkeys(deps)), tuple(dict.fromkeys(patterns))


def _included(directory: str, target: str) -> list[tuple[str, str, str]]:
    """The entries of an include target, read whatever its condition.

    ``git config --list`` follows only the includes active now; an
    ``includeIf.onbranch:release.path`` becomes active when the user
    switches branch, so what it names is protected now. Its own includes
    are followed by the caller (not by git: the condition does not matter).
    A target that is no file, or that git cannot read (git would stop
    there too, running nothing), gives nothing; git too slow fails.
    """
    if not os.path.isabs(target) or not os.path.isfile(target):
        return []
    try:
        listing = _git(
            directory, "config", "-z", "--show-origin", "--no-includes", "-f", target, "--list"
        )
    except _GitFailed as exc:
        if exc.refused:
            return []
        raise
    return _entries(listing)


def _dead_gitfile(directory: str) -> bool:
    """Tell whether ``directory/.git`` is a file naming no directory (git dies there).

    Asked only after git refused the folder, to tell a checkout whose git
    directory is gone (a submodule not yet updated) from a configuration git
    cannot read: a ``.git`` file is ``gitdir: <path>`` (gitrepository-layout(5)).
    """
    gitfile = os.path.join(directory, ".git")
    try:
        if not stat.S_ISREG(os.lstat(gitfile).st_mode):
            return False
        text = read_input(gitfile, what="the git file", limit=_GITFILE_BYTES)
    except (OSError, InputFileError):
        return False
    line = text.decode("utf-8", "surrogateescape").partition("\n")[0].rstrip("\r")
    if not line.startswith("gitdir:"):
        return True  # git: "invalid gitfile format"
    target = os.path.join(directory, line[len("gitdir:") :].strip())
    return not os.path.isdir(target)


def _worktrees(directory: str) -> list[str]:
    """The working trees of the repository at ``directory`` (``git worktree list``)."""
    listing = _git(directory, "worktree", "list", "--porcelain", "-z")
    return [f[len("worktree ") :] for f in listing.split("\0") if f.startswith("worktree ")]


def _holds(area: str, directory: str) -> bool:
    """Tell whether ``area`` is ``directory`` or one of the folders above it."""
    real = os.path.realpath(directory)
    return real == area or real.startswith(area.rstrip("/") + "/")
