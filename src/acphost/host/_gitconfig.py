"""The files git's effective configuration turns into code, asked of git itself.

A folder named ``.git`` is not all of git's metadata. The configuration
names more: ``core.hooksPath`` moves the hooks (``.githooks/pre-commit``
runs on the user's next commit), ``core.fsmonitor`` and the other keys that
hold a command (``core.pager``, ``diff.<driver>.textconv``,
``filter.<driver>.process``, ``alias.<name> = !…``...) may name a script in
the working tree, ``include.path`` and ``includeIf.<condition>.path`` make
another file configuration (existing or not yet: the agent could create
it), and a ``.git`` file (``gitdir: …``, worktrees and submodules) puts the
git directory anywhere. These are read from git's own answer, never parsed
by hand: ``git config --show-origin --list`` (every scope, includes
followed, each entry with the file it came from) and ``git rev-parse``
(the git directories, the top of the working tree), run with the host's
environment, bounded in time, with ``core.fsmonitor`` off. Neither command
runs a hook or a configured program.

The answer is cached per folder and asked again as soon as one of the files
it came from (or could come from: the repository's ``config`` and
``config.worktree``, the user's ``~/.gitconfig``, the include targets, the
folder's ``.git``) changes, so a change made during a run (an allowed
``git config core.hooksPath x``) protects the new place at the next request.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterable

__all__ = ["git_config_areas"]

_TIMEOUT = 5.0
_BOOLEAN = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
# Keys whose value is a command git runs (git-config(1)); the words of the
# value that name a path are protected. ``core.fsmonitor`` may also be a
# boolean (the built-in daemon).
_COMMAND_KEY = re.compile(
    r"core\.(?:fsmonitor|pager|editor|sshcommand|askpass|gitproxy)"
    r"|sequence\.editor|diff\.external|interactive\.difffilter"
    r"|gpg\.(?:[^.]+\.)?program|gpg\.ssh\.defaultkeycommand"
    r"|credential\.(?:.+\.)?helper|alias\..+|pager\..+"
    r"|diff\..+\.(?:textconv|command)|merge\..+\.driver"
    r"|filter\..+\.(?:clean|smudge|process)"
    r"|(?:difftool|mergetool|man|browser)\..+\.(?:cmd|path)"
    r"|uploadpack\.packobjectshook|core\.hookspath"
)
_INCLUDE_KEY = re.compile(r"include\.path|includeif\..+\.path")

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

# folder -> (the files the answer came from, their signature, the areas)
_cache: dict[str, tuple[tuple[str, ...], tuple[object, ...], tuple[str, ...]]] = {}


def _git(directory: str, *args: str) -> str | None:
    """Run ``git -C directory ARGS`` for its output; None when git is missing or fails."""
    git = shutil.which("git")
    if git is None:
        return None
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            [git, "-c", "core.fsmonitor=false", "-C", directory, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_TIMEOUT,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


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
    """``(origin file, key, value)`` from ``config -z --show-origin --list``."""
    fields = listing.split("\0")
    out = []
    for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = entry.partition("\n")
        where = origin[len("file:") :] if origin.startswith("file:") else ""
        out.append((where, key.lower(), value))
    return out


def _runs(key: str, value: str) -> bool:
    """Tell whether a configuration entry is a command git runs."""
    if not _COMMAND_KEY.fullmatch(key) or key == "core.hookspath":
        return False
    if key == "core.fsmonitor" and value.lower() in _BOOLEAN:
        return False  # the built-in daemon, or off
    # An alias without "!" is git's own arguments: a path there is no program.
    return not key.startswith("alias.") or value.startswith("!")


def _path_words(value: str) -> list[str]:
    """The words of a command value that name a file (they hold a ``/``)."""
    value = value.removeprefix("!")
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    return [w for w in words if "/" in w]


def git_config_areas(directory: str) -> tuple[str, ...]:
    """The paths git's configuration, as seen from ``directory``, runs or reads as configuration.

    Args:
        directory: a folder (a workspace root, or a repository inside one).

    Returns:
        Canonical absolute paths (files, or folders protecting everything
        below them): the git directories, the hooks folder
        (``core.hooksPath``), the files named by command-valued keys, the
        configuration files read and every include target. Empty when git
        is missing or the folder holds no configuration.

    """
    cached = _cache.get(directory)
    if cached is not None and _signature(cached[0]) == cached[1]:
        return cached[2]
    areas, deps = _ask_git(directory)
    _cache[directory] = (deps, _signature(deps), areas)
    return areas


def _ask_git(directory: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Ask git; return the areas and the files whose change must ask again."""
    deps = [os.path.join(directory, ".git")]
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    deps += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        deps.append(os.environ["GIT_CONFIG_GLOBAL"])
    lines = (
        _git(
            directory,
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
            "--is-bare-repository",
            "--show-toplevel",
        )
        or ""
    ).splitlines()
    git_dirs = [d for d in lines[:2] if os.path.isabs(d)]
    top = lines[3] if len(lines) > 3 and os.path.isabs(lines[3]) else None
    found: list[str] = list(git_dirs)
    hooks: list[str] = []
    if top is not None:
        deps.append(os.path.join(top, ".git"))
    for git_dir in git_dirs:
        deps += [os.path.join(git_dir, "config"), os.path.join(git_dir, "config.worktree")]
    # Where git resolves a relative path: hooks and commands run at the top of
    # the working tree (in a bare repository, its git directory).
    bases = [b for b in (top, *git_dirs[:1], directory) if b]
    listing = _git(directory, "config", "-z", "--show-origin", "--list")
    for where, key, value in _entries(listing or ""):
        origin = os.path.join(bases[0], where) if where else ""
        if origin:
            found.append(origin)
            deps.append(origin)
        if _INCLUDE_KEY.fullmatch(key) and value:
            target = os.path.expanduser(value)
            if origin and not os.path.isabs(target):
                target = os.path.join(os.path.dirname(origin), target)
            found.append(target)
            deps.append(target)
        elif key == "core.hookspath" and value:
            hooks += [os.path.join(b, os.path.expanduser(value)) for b in bases]
        elif _runs(key, value):
            words = [os.path.expanduser(w) for w in _path_words(value)]
            found += [os.path.join(base, w) for w in words for base in bases]
    areas = [os.path.realpath(p) for p in found if os.path.isabs(p)]
    for folder in (os.path.realpath(h) for h in hooks if os.path.isabs(h)):
        if _holds(folder, directory):
            areas += [os.path.join(folder, name) for name in _HOOKS]
        else:
            areas.append(folder)
    # A path that holds the folder asked about (``./``, ``~``) cannot be protected
    # whole without refusing every write of the workspace.
    kept = (a for a in areas if not _holds(a, directory))
    return tuple(dict.fromkeys(kept)), tuple(dict.fromkeys(deps))


def _holds(area: str, directory: str) -> bool:
    """Tell whether ``area`` is ``directory`` or one of the folders above it."""
    real = os.path.realpath(directory)
    return real == area or real.startswith(area.rstrip("/") + "/")
